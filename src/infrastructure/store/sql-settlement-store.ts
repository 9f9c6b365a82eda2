import type {
  BudgetedClaimResult,
  SpendingBudget,
  ClaimResult,
  PayerPaymentId,
  SettlementDraft,
  SettlementBacklog,
  SettlementRecord,
  SettlementState,
  SettlementStore,
} from "../../application/ports/settlement-store.ts";
import { createBatcher } from "../../application/settlement/batcher.ts";
import { arrayLiteral, retryDeadlock } from "./sql-batch.ts";
import type { SqlExecutor, SqlParam, SqlQueryable } from "./sql-executor.ts";
import { sqlStateOf, UNIQUE_VIOLATION } from "./sql-executor.ts";
import { SETTLEMENT_COLUMNS, backlogOf, claimedRecordOf, feeChargeText, settlementFromRow, stateOf } from "./settlement-rows.ts";
import type { FinishDetail } from "../../application/ports/settlement-store.ts";
import type { WebhookSubscription } from "../../application/ports/webhook-outbox.ts";
import { settlementColumns } from "./settlement-rows.ts";
import { subscriptionParams, withEvents } from "./sql-webhook-events.ts";

const U64_MAX = 2n ** 64n - 1n;
const I64_MAX = 2n ** 63n - 1n;
/** listUnresolved and listRecentlyFailed never return more than this in one call, whatever is asked. */
export const MAX_UNRESOLVED_PAGE = 1000;

const INSERT_CLAIM = `
  INSERT INTO settlements (key, payment_id, payer, pay_to, asset, amount, network, mode,
                           signature, wire_transaction, last_valid_block_height, fee_charge, api_key, receipt)
  VALUES ($1, $2, $3, $4, $5, $6::numeric, $7, $8, $9, $10, $11::bigint, $12, $13, $14)
  ON CONFLICT DO NOTHING
  RETURNING ${SETTLEMENT_COLUMNS}`;

// The WHERE clause is the whole lock: PostgreSQL re-checks it after waiting for a
// concurrent writer, so of several retries of one failed row only the first matches.
const RETAKE_FAILED_CLAIM = `
  UPDATE settlements
     SET payment_id = $2, payer = $3, pay_to = $4, asset = $5, amount = $6::numeric,
         network = $7, mode = $8, signature = $9, wire_transaction = $10,
         last_valid_block_height = $11::bigint, fee_charge = $12, api_key = $13, receipt = $14, state = 'pending', error = NULL,
         attempts = attempts + 1, updated_at = now(), slot = NULL, submitted_at = NULL, pending_at = NULL,
         finished_at = NULL, corrected_at = NULL
   WHERE key = $1 AND state = 'failed'
  RETURNING ${SETTLEMENT_COLUMNS}`;

/** A failed settlement never moved money, so its paymentId may serve a rebuilt transaction. */
const RELEASE_FAILED_PAYMENT_ID = `
  UPDATE settlements SET payment_id = NULL, updated_at = now()
   WHERE payer = $1 AND payment_id = $2 AND state = 'failed'
  RETURNING key`;

// Serialises budget checks per Delegation across every connection and process.
const LOCK_DELEGATION = `SELECT pg_advisory_xact_lock(hashtext($1)) AS locked`;
const DELEGATION_USE = `
  SELECT coalesce(sum(amount), 0)::text AS spent, count(*)::text AS uses
    FROM settlements
   WHERE delegation = $1 AND state <> 'failed' AND key <> $2`;
const SET_DELEGATION = `UPDATE settlements SET delegation = $2 WHERE key = $1`;

const SELECT_BY_KEY = `SELECT ${SETTLEMENT_COLUMNS} FROM settlements WHERE key = $1`;
const SELECT_BY_PAYMENT_ID = `SELECT ${SETTLEMENT_COLUMNS} FROM settlements WHERE payer = $1 AND payment_id = $2`;

// ---- the batched statements: one each per batch of concurrent calls ----

/**
 * Claims of a batch, new keys only (a conflict is resolved per claim afterwards). Sorted by key,
 * so two replicas' batches take their row locks in the same order.
 */
const INSERT_CLAIMS = `
  INSERT INTO settlements (key, payment_id, payer, pay_to, asset, amount, network, mode,
                           signature, wire_transaction, last_valid_block_height, fee_charge, api_key, receipt)
  SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::numeric[],
                       $7::text[], $8::text[], $9::text[], $10::text[], $11::bigint[], $12::text[], $13::text[], $14::text[])
         AS d(key, payment_id, payer, pay_to, asset, amount, network, mode, signature,
              wire_transaction, last_valid_block_height, fee_charge, api_key, receipt)
   ORDER BY key
  ON CONFLICT DO NOTHING
  RETURNING key, created_at, updated_at`;

/** Every record a batch of lookups names, by key and by (payer, paymentId). */
const LOOKUP = `
  SELECT ${SETTLEMENT_COLUMNS} FROM settlements WHERE key = ANY($1::text[])
  UNION ALL
  SELECT ${SETTLEMENT_COLUMNS} FROM settlements
   WHERE payment_id IS NOT NULL
     AND (payer, payment_id) IN (SELECT p.payer, p.payment_id FROM unnest($2::text[], $3::text[]) AS p(payer, payment_id))`;

// SECURITY: a final state is never overwritten, so a late or replayed confirmation cannot
// flip a settled payment to failed (inviting a second submission); the one way out of `failed`
// is SETTLE_LANDED, on the ledger's word that this very signature landed.
// SECURITY: the signature condition keeps a late outcome of an earlier attempt from finishing a
// retry of the same key (which would let a third attempt run while the second may still land).
// `submitted` is only found in records written by earlier releases.
/** An event's copy of the record leaves out the signed bytes: webhooks send the view, which has none. */
const EVENT_RECORD = { withoutWireTransaction: true } as const;

// The slot and the send's acknowledgement ride this statement (status lookups) instead of a write of their own.
const FINISH_MANY_CHANGE = `
  UPDATE settlements AS s SET state = f.state, error = f.error, updated_at = now(), finished_at = now(),
         slot = coalesce(f.slot, s.slot), submitted_at = coalesce(s.submitted_at, f.submitted_at)
    FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::bigint[], $6::timestamptz[])
         AS f(key, signature, state, error, slot, submitted_at)
   WHERE s.key = f.key AND s.signature = f.signature AND s.state IN ('pending', 'submitted')`;
const FINISH_MANY = `${FINISH_MANY_CHANGE} RETURNING s.key`;
const FINISH_MANY_WITH_EVENTS = withEvents(
  `${FINISH_MANY_CHANGE}
  RETURNING ${settlementColumns("s", EVENT_RECORD)},
            CASE s.state WHEN 'settled' THEN 'settlement.confirmed' ELSE 'settlement.failed' END AS event_type`,
  7,
);

/**
 * Claims or finishes running at once per store. With one, a settlement that arrives just after a
 * batch left waits for it and then for its own (two commits); two halve that wait for a few
 * more, smaller, statements (bench:compare-settle: claim and finish waits 9-12 -> 2-7 ms,
 * PostgreSQL CPU per settlement +20-30 µs).
 */
export const STATEMENTS_IN_FLIGHT = 2;
/** Largest batches: a claim row carries the signed bytes (about 1 KB of base64 at most). */
const MAX_CLAIMS_PER_STATEMENT = 200;
const MAX_ROWS_PER_STATEMENT = 500;
/** The parameters draftParams gives a claim, one array each in INSERT_CLAIMS. */
const CLAIM_COLUMNS = 14;

// Scoped to one network: another environment sharing the database reconciles its own records
// against its own ledger; ours would find none of them and fail them as expired.
const SELECT_UNRESOLVED = `
  SELECT ${SETTLEMENT_COLUMNS} FROM settlements
   WHERE state IN ('pending', 'submitted') AND network = $1
   ORDER BY created_at, seq
   LIMIT $2`;

const SELECT_RECENTLY_FAILED = `
  SELECT ${SETTLEMENT_COLUMNS} FROM settlements
   WHERE state = 'failed' AND network = $1 AND updated_at > now() - make_interval(secs => $2)
   ORDER BY updated_at DESC, seq DESC
   LIMIT $3`;

/**
 * The ledger says this attempt landed, so its record is settled whatever it says now. The
 * subquery locks the row and keeps the state it had, which RETURNING reports: `failed` there is
 * a correction. A concurrent second call waits for the lock, then finds the row settled.
 */
// SECURITY: only the record's own signature (the attempt the ledger confirmed) is moved, and only
// towards settled: nothing here can fail a payment or finish another attempt.
// A correction keeps when the record failed (finished_at) and adds when it was corrected.
const SETTLE_LANDED_CHANGE = `
  UPDATE settlements AS s SET state = 'settled', error = NULL, updated_at = now(), slot = coalesce($3::bigint, s.slot),
         finished_at = CASE WHEN previous.state = 'failed' THEN coalesce(s.finished_at, s.updated_at) ELSE now() END,
         corrected_at = CASE WHEN previous.state = 'failed' THEN now() ELSE s.corrected_at END
    FROM (SELECT key, state FROM settlements
           WHERE key = $1 AND signature = $2 AND state <> 'settled'
             FOR UPDATE) AS previous
   WHERE s.key = previous.key`;
const SETTLE_LANDED = `${SETTLE_LANDED_CHANGE} RETURNING previous.state AS previous_state`;
const SETTLE_LANDED_WITH_EVENTS = withEvents(
  `${SETTLE_LANDED_CHANGE}
  RETURNING previous.state AS previous_state, ${settlementColumns("s", EVENT_RECORD)},
            CASE previous.state WHEN 'failed' THEN 'settlement.corrected' ELSE 'settlement.confirmed' END AS event_type`,
  4,
);

/** Only the first `settlement_pending` answer of an attempt is recorded (and makes an event). */
const MARK_PENDING_CHANGE = `
  UPDATE settlements SET pending_at = now(), submitted_at = coalesce(submitted_at, $3::timestamptz), updated_at = now()
   WHERE key = $1 AND signature = $2 AND state IN ('pending', 'submitted') AND pending_at IS NULL`;
const MARK_PENDING = `${MARK_PENDING_CHANGE} RETURNING key`;
const MARK_PENDING_WITH_EVENTS = withEvents(`${MARK_PENDING_CHANGE} RETURNING ${settlementColumns(undefined, EVENT_RECORD)}, 'settlement.pending' AS event_type`, 4);

const MARK_REPLAYED = `
  UPDATE settlements SET replays = replays + 1, replayed_at = coalesce(replayed_at, now())
   WHERE network = $1 AND signature = $2 AND state = 'settled'`;

// A retry of a failed record keeps its key and takes a new signature, so one signature names at
// most one attempt; the latest record wins should two keys ever share one (mode records).
const SELECT_BY_SIGNATURE = `
  SELECT ${SETTLEMENT_COLUMNS} FROM settlements
   WHERE network = $1 AND signature = $2
   ORDER BY updated_at DESC, seq DESC
   LIMIT 1`;

const SELECT_ALL_BY_PAYMENT_ID = `
  SELECT ${SETTLEMENT_COLUMNS} FROM settlements
   WHERE network = $1 AND payment_id = $2 AND ($4::boolean IS FALSE OR api_key IS NOT DISTINCT FROM $5)
   ORDER BY created_at DESC, seq DESC
   LIMIT $3`;

const BACKLOG = `
  SELECT state, count(*)::integer AS records, min(created_at) AS oldest FROM settlements
   WHERE state IN ('pending', 'submitted') AND network = $1
   GROUP BY state`;

/**
 * The SettlementStore port over any SqlExecutor (PostgreSQL or PGlite).
 *
 * Claims never read-then-write: the database's unique constraints decide the winner. See
 * docs/store.md for the argument. Concurrent claims, finishes and lookups are grouped (group
 * commit, see batcher.ts): each group is one multi-row statement, committed on its own, so the
 * statements per settlement fall as concurrency rises. Only a claim that meets an existing row
 * takes the per-claim path (retake a failed record, report the holder).
 */
export type SqlSettlementStoreOptions = Readonly<{
  /**
   * The configured webhooks (WEBHOOKS_FILE). With any, the statements that change a record's state
   * also insert its events into the webhook outbox (the same statement, so the same commit); with
   * none, they are the statements they always were.
   */
  webhooks?: readonly WebhookSubscription[];
}>;

export function createSqlSettlementStore(db: SqlExecutor, options: SqlSettlementStoreOptions = {}): SettlementStore {
  const webhooks = options.webhooks ?? [];
  const events = webhooks.length > 0 ? subscriptionParams(webhooks) : null;
  const insertClaim = createBatcher((drafts: readonly SettlementDraft[]) => insertClaims(db, drafts), { maxBatch: MAX_CLAIMS_PER_STATEMENT, maxInFlight: STATEMENTS_IN_FLIGHT });
  const finishOne = createBatcher((items: readonly Finish[]) => finishMany(db, items, events), { maxBatch: MAX_ROWS_PER_STATEMENT, maxInFlight: STATEMENTS_IN_FLIGHT });
  // One lookup at a time: it runs beside the pre-signing ledger reads, which take longer, so
  // larger batches cost a settlement no wait.
  const lookUp = createBatcher((items: readonly Lookup[]) => lookUpMany(db, items), { maxBatch: MAX_ROWS_PER_STATEMENT });
  return Object.freeze({
    async claim(draft: SettlementDraft): Promise<ClaimResult> {
      assertDraft(draft);
      const inserted = await insertClaim(draft);
      if (inserted !== null) return claimed(inserted);
      // The key or the paymentId is taken: the per-claim algorithm decides what that means.
      return claimOne(db, draft, { conflicted: true });
    },
    claimWithinBudget: (draft: SettlementDraft, budget: SpendingBudget) =>
      db.transaction(async (tx): Promise<BudgetedClaimResult> => {
        assertDraft(draft);
        await tx.query(LOCK_DELEGATION, [budget.delegation]);
        const [use] = await tx.query(DELEGATION_USE, [budget.delegation, draft.key]);
        const spent = BigInt(String(use?.["spent"] ?? "0"));
        const uses = BigInt(String(use?.["uses"] ?? "0"));
        const overTotal = budget.remaining !== null && spent + draft.amount > budget.remaining;
        const overUses = budget.usesRemaining !== null && uses + 1n > budget.usesRemaining;
        if (overTotal || overUses) return Object.freeze({ outcome: "over-budget", spent, uses });
        const result = await claimOne(tx, draft);
        if (result.outcome === "claimed") await tx.query(SET_DELEGATION, [draft.key, budget.delegation]);
        return result;
      }),
    finish: (key, signature, outcome, detail: FinishDetail = {}) =>
      finishOne({ key, signature, state: outcome.state, error: outcome.state === "failed" ? outcome.error : null, slot: detail.slot ?? null, submittedAt: detail.submittedAt ?? null }),
    async markPending(key: string, signature: string, submittedAt: Date | null): Promise<boolean> {
      const params = [key, signature, submittedAt === null ? null : submittedAt.toISOString()];
      const rows = await retryDeadlock(() => (events ? db.query(MARK_PENDING_WITH_EVENTS, [...params, ...events]) : db.query(MARK_PENDING, params)));
      return rows.length > 0;
    },
    async markReplayed(network: string, signature: string): Promise<void> {
      await db.query(MARK_REPLAYED, [network, signature]);
    },
    async findBySignature(network: string, signature: string): Promise<SettlementRecord | null> {
      const [row] = await db.query(SELECT_BY_SIGNATURE, [network, signature]);
      return row === undefined ? null : settlementFromRow(row);
    },
    async findAllByPaymentId(network: string, paymentId: string, limit: number, submittedWith?: Readonly<{ apiKey: string | null }>): Promise<readonly SettlementRecord[]> {
      if (pageSize(limit) === 0) return Object.freeze([]);
      const rows = await db.query(SELECT_ALL_BY_PAYMENT_ID, [network, paymentId, pageSize(limit), submittedWith !== undefined, submittedWith?.apiKey ?? null]);
      return Object.freeze(rows.map(settlementFromRow));
    },
    get: async (key: string) => (await lookUp({ key, paymentId: null })).byKey,
    findByPaymentId: async (payer: string, paymentId: string) => (await lookUp({ key: null, paymentId: { payer, paymentId } })).byPaymentId,
    async findExisting(key: string, paymentId: PayerPaymentId | null): Promise<SettlementRecord | null> {
      const found = await lookUp({ key, paymentId });
      return found.byKey ?? found.byPaymentId;
    },
    async settleLanded(key: string, signature: string, slot: bigint | null = null): Promise<SettlementState | null> {
      const params = [key, signature, slot === null ? null : slot.toString()];
      const [row] = await retryDeadlock(() => (events ? db.query(SETTLE_LANDED_WITH_EVENTS, [...params, ...events]) : db.query(SETTLE_LANDED, params)));
      return row === undefined ? null : stateOf(row, "previous_state");
    },
    async listUnresolved(network: string, limit: number): Promise<readonly SettlementRecord[]> {
      if (pageSize(limit) === 0) return Object.freeze([]);
      const rows = await db.query(SELECT_UNRESOLVED, [network, pageSize(limit)]);
      return Object.freeze(rows.map(settlementFromRow));
    },
    async listRecentlyFailed(network: string, withinSeconds: number, limit: number): Promise<readonly SettlementRecord[]> {
      if (!Number.isSafeInteger(withinSeconds) || withinSeconds < 0) throw new RangeError("withinSeconds must be a non-negative integer");
      if (pageSize(limit) === 0 || withinSeconds === 0) return Object.freeze([]);
      const rows = await db.query(SELECT_RECENTLY_FAILED, [network, withinSeconds, pageSize(limit)]);
      return Object.freeze(rows.map(settlementFromRow));
    },
    async backlog(network: string): Promise<SettlementBacklog> {
      const rows = await db.query(BACKLOG, [network]);
      return backlogOf(rows);
    },
  });
}

/** listUnresolved and listRecentlyFailed never return more than MAX_UNRESOLVED_PAGE, whatever is asked. */
function pageSize(limit: number): number {
  if (!Number.isSafeInteger(limit) || limit < 0) throw new RangeError("limit must be a non-negative integer");
  return Math.min(limit, MAX_UNRESOLVED_PAGE);
}

type Finish = Readonly<{ key: string; signature: string; state: "settled" | "failed"; error: string | null; slot: bigint | null; submittedAt: Date | null }>;
type Lookup = Readonly<{ key: string | null; paymentId: PayerPaymentId | null }>;
type Found = Readonly<{ byKey: SettlementRecord | null; byPaymentId: SettlementRecord | null }>;

/**
 * One INSERT for a batch of claims; each gets its new record, or null when its key or paymentId
 * was taken. Only the first claim of a key in a batch is sent: RETURNING names keys, so two
 * claims of one key in one statement could not tell which of them won.
 */
async function insertClaims(db: SqlQueryable, drafts: readonly SettlementDraft[]): Promise<readonly (SettlementRecord | null)[]> {
  const first = new Map<string, SettlementDraft>();
  for (const draft of drafts) if (!first.has(draft.key)) first.set(draft.key, draft);
  const sent = [...first.values()];
  const columns = sent.map(draftParams);
  const params = Array.from({ length: CLAIM_COLUMNS }, (_, column) => arrayLiteral(columns.map((row) => row[column] as string | null)));
  const rows = await retryDeadlock(() => db.query(INSERT_CLAIMS, params));
  const insertedAt = new Map(rows.map((row) => [String(row["key"]), row]));
  return drafts.map((draft) => {
    const row = insertedAt.get(draft.key);
    return row !== undefined && first.get(draft.key) === draft ? claimedRecordOf(draft, row) : null;
  });
}

/**
 * One UPDATE for a batch of finishes. Two finishes of one key go in separate statements, in
 * arrival order: one statement updates a row once, so both would read as having finished it.
 */
async function finishMany(db: SqlQueryable, items: readonly Finish[], events: readonly SqlParam[] | null): Promise<readonly boolean[]> {
  const results: boolean[] = items.map(() => false);
  let remaining = items.map((item, index) => ({ item, index }));
  while (remaining.length > 0) {
    const round = new Map<string, { item: Finish; index: number }>();
    const later: typeof remaining = [];
    for (const entry of remaining) {
      if (round.has(entry.item.key)) later.push(entry);
      else round.set(entry.item.key, entry);
    }
    remaining = later;
    const batch = [...round.values()];
    const params = [
      arrayLiteral(batch.map((e) => e.item.key)),
      arrayLiteral(batch.map((e) => e.item.signature)),
      arrayLiteral(batch.map((e) => e.item.state)),
      arrayLiteral(batch.map((e) => e.item.error)),
      arrayLiteral(batch.map((e) => e.item.slot?.toString() ?? null)),
      arrayLiteral(batch.map((e) => e.item.submittedAt?.toISOString() ?? null)),
    ];
    const rows = await retryDeadlock(() => (events ? db.query(FINISH_MANY_WITH_EVENTS, [...params, ...events]) : db.query(FINISH_MANY, params)));
    const finished = new Set(rows.map((row) => String(row["key"])));
    for (const entry of batch) results[entry.index] = finished.has(entry.item.key);
  }
  return results;
}

async function lookUpMany(db: SqlQueryable, items: readonly Lookup[]): Promise<readonly Found[]> {
  const keys = new Set<string>();
  const paymentIds = new Map<string, PayerPaymentId>();
  for (const item of items) {
    if (item.key !== null) keys.add(item.key);
    if (item.paymentId !== null) paymentIds.set(payerPaymentIdOf(item.paymentId), item.paymentId);
  }
  const pairs = [...paymentIds.values()];
  const rows = await db.query(LOOKUP, [arrayLiteral([...keys]), arrayLiteral(pairs.map((p) => p.payer)), arrayLiteral(pairs.map((p) => p.paymentId))]);
  const byKey = new Map<string, SettlementRecord>();
  const byPaymentId = new Map<string, SettlementRecord>();
  for (const row of rows) {
    const record = settlementFromRow(row);
    byKey.set(record.key, record);
    if (record.paymentId !== null) byPaymentId.set(payerPaymentIdOf(record), record);
  }
  return items.map((item) =>
    Object.freeze({
      byKey: item.key === null ? null : (byKey.get(item.key) ?? null),
      byPaymentId: item.paymentId === null ? null : (byPaymentId.get(payerPaymentIdOf(item.paymentId)) ?? null),
    }),
  );
}

const payerPaymentIdOf = (p: Readonly<{ payer: string; paymentId: string | null }>) => `${p.payer}\u0000${p.paymentId ?? ""}`;

/**
 * 1. INSERT ... ON CONFLICT DO NOTHING: a new key and paymentId wins outright. A concurrent
 *    insert of the same key or paymentId blocks until the first commits, then does nothing.
 * 2. Otherwise the row holding the key, if it is `failed`, is retaken by a conditional
 *    UPDATE; exactly one concurrent retry matches `state = 'failed'`.
 * 3. Anything else is `exists` with the row that holds the key, or else the paymentId.
 */
async function claimOne(db: SqlQueryable, draft: SettlementDraft, options: Readonly<{ conflicted?: boolean }> = {}): Promise<ClaimResult> {
  assertDraft(draft);
  const params = draftParams(draft);
  // Rows are never deleted, so the conflicting row is found on the first pass; the bound
  // only guards against looping forever should that ever change.
  for (let attempt = 0; attempt < 3; attempt += 1) {
    // A batched INSERT that already met the conflict need not be repeated.
    if (attempt > 0 || options.conflicted !== true) {
      const inserted = await db.query(INSERT_CLAIM, params);
      if (inserted[0] !== undefined) return claimed(settlementFromRow(inserted[0]));
    }

    const holder = await selectOne(db, SELECT_BY_KEY, draft.key);
    if (holder !== null) {
      if (holder.state !== "failed") return exists(holder);
      const retaken = await retakeFailed(db, params);
      if (retaken === "payment-id-taken") {
        if (await releaseFailedPaymentId(db, draft)) continue;
        return existsByPaymentId(db, draft, holder);
      }
      if (retaken !== null) return claimed(retaken);
      // Another retry took it first; report that claim as it stands now.
      return exists((await selectOne(db, SELECT_BY_KEY, draft.key)) ?? holder);
    }
    if (draft.paymentId !== null) {
      const byPaymentId = await selectOne(db, SELECT_BY_PAYMENT_ID, draft.payer, draft.paymentId);
      if (byPaymentId !== null && byPaymentId.state === "failed" && (await releaseFailedPaymentId(db, draft))) continue;
      if (byPaymentId !== null) return exists(byPaymentId);
    }
  }
  throw new Error("settlement claim conflicted but no conflicting row was found");
}

/**
 * A client that rebuilds its transaction after a failure (say, its blockhash expired) keeps its
 * paymentId. The failed record gives the id up (conditionally, so a concurrent retry that
 * already took it over keeps it) and the claim is tried again.
 */
async function releaseFailedPaymentId(db: SqlQueryable, draft: SettlementDraft): Promise<boolean> {
  if (draft.paymentId === null) return false;
  return (await db.query(RELEASE_FAILED_PAYMENT_ID, [draft.payer, draft.paymentId])).length > 0;
}

async function retakeFailed(
  db: SqlQueryable,
  params: readonly SqlParam[],
): Promise<SettlementRecord | null | "payment-id-taken"> {
  try {
    const rows = await db.query(RETAKE_FAILED_CLAIM, params);
    return rows[0] === undefined ? null : settlementFromRow(rows[0]);
  } catch (error) {
    // The retry carries a paymentId another settlement already holds.
    if (sqlStateOf(error) === UNIQUE_VIOLATION) return "payment-id-taken";
    throw error;
  }
}

async function existsByPaymentId(
  db: SqlQueryable,
  draft: SettlementDraft,
  fallback: SettlementRecord,
): Promise<ClaimResult> {
  const byPaymentId = draft.paymentId === null ? null : await selectOne(db, SELECT_BY_PAYMENT_ID, draft.payer, draft.paymentId);
  return exists(byPaymentId ?? fallback);
}

async function selectOne(db: SqlQueryable, text: string, ...values: string[]): Promise<SettlementRecord | null> {
  const rows = await db.query(text, values);
  return rows[0] === undefined ? null : settlementFromRow(rows[0]);
}

function draftParams(draft: SettlementDraft): readonly SqlParam[] {
  return [
    draft.key,
    draft.paymentId,
    draft.payer,
    draft.payTo,
    draft.asset,
    draft.amount.toString(),
    draft.network,
    draft.mode,
    draft.signature,
    draft.wireTransaction,
    draft.lastValidBlockHeight === null ? null : draft.lastValidBlockHeight.toString(),
    feeChargeText(draft.feeCharge ?? null),
    draft.apiKey ?? null,
    draft.receipt ?? null,
  ];
}

/** Programming errors, caught before they become opaque database errors. */
function assertDraft(draft: SettlementDraft): void {
  if (draft.key.length === 0) throw new RangeError("settlement key must not be empty");
  if (draft.amount < 0n || draft.amount > U64_MAX) throw new RangeError("settlement amount must fit in a u64");
  const height = draft.lastValidBlockHeight;
  if (height !== null && (height < 0n || height > I64_MAX)) {
    throw new RangeError("lastValidBlockHeight must be a non-negative 64-bit integer");
  }
}

const claimed = (record: SettlementRecord): ClaimResult => Object.freeze({ outcome: "claimed", record });
const exists = (record: SettlementRecord): ClaimResult => Object.freeze({ outcome: "exists", record });
