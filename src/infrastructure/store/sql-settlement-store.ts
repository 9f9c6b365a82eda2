import type {
  BudgetedClaimResult,
  SpendingBudget,
  ClaimResult,
  SettlementDraft,
  SettlementRecord,
  SettlementStore,
} from "../../application/ports/settlement-store.ts";
import type { SqlExecutor, SqlParam, SqlQueryable } from "./sql-executor.ts";
import { sqlStateOf, UNIQUE_VIOLATION } from "./sql-executor.ts";
import { SETTLEMENT_COLUMNS, settlementFromRow } from "./settlement-rows.ts";

const U64_MAX = 2n ** 64n - 1n;
const I64_MAX = 2n ** 63n - 1n;
/** listUnresolved never returns more than this in one call, whatever is asked. */
export const MAX_UNRESOLVED_PAGE = 1000;

const INSERT_CLAIM = `
  INSERT INTO settlements (key, payment_id, payer, pay_to, asset, amount, network, mode,
                           signature, wire_transaction, last_valid_block_height)
  VALUES ($1, $2, $3, $4, $5, $6::numeric, $7, $8, $9, $10, $11::bigint)
  ON CONFLICT DO NOTHING
  RETURNING ${SETTLEMENT_COLUMNS}`;

// The WHERE clause is the whole lock: PostgreSQL re-checks it after waiting for a
// concurrent writer, so of several retries of one failed row only the first matches.
const RETAKE_FAILED_CLAIM = `
  UPDATE settlements
     SET payment_id = $2, payer = $3, pay_to = $4, asset = $5, amount = $6::numeric,
         network = $7, mode = $8, signature = $9, wire_transaction = $10,
         last_valid_block_height = $11::bigint, state = 'pending', error = NULL,
         attempts = attempts + 1, updated_at = now()
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

const MARK_SUBMITTED = `
  UPDATE settlements SET state = 'submitted', updated_at = now()
   WHERE key = $1 AND signature = $2 AND state = 'pending'`;

// SECURITY: a final state is never overwritten, so a late or replayed confirmation cannot
// flip a settled payment to failed (inviting a second submission) or a failure to settled.
// SECURITY: the signature condition keeps a late outcome of an earlier attempt from finishing a
// retry of the same key (which would let a third attempt run while the second may still land).
const FINISH = `
  UPDATE settlements SET state = $2, error = $3, updated_at = now()
   WHERE key = $1 AND signature = $4 AND state IN ('pending', 'submitted')
  RETURNING key`;

const SELECT_UNRESOLVED = `
  SELECT ${SETTLEMENT_COLUMNS} FROM settlements
   WHERE state IN ('pending', 'submitted')
   ORDER BY created_at, seq
   LIMIT $1`;

/**
 * The SettlementStore port over any SqlExecutor (PostgreSQL or PGlite).
 *
 * Claims run as single autocommit statements, never read-then-write, so the database's
 * unique constraints decide the winner. See docs/store.md for the argument.
 */
export function createSqlSettlementStore(db: SqlExecutor): SettlementStore {
  return Object.freeze({
    claim: (draft: SettlementDraft) => claim(db, draft),
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
        const result = await claim(tx, draft);
        if (result.outcome === "claimed") await tx.query(SET_DELEGATION, [draft.key, budget.delegation]);
        return result;
      }),
    async markSubmitted(key: string, signature: string): Promise<void> {
      await db.query(MARK_SUBMITTED, [key, signature]);
    },
    async finish(key, signature, outcome): Promise<boolean> {
      const error = outcome.state === "failed" ? outcome.error : null;
      return (await db.query(FINISH, [key, outcome.state, error, signature])).length > 0;
    },
    get: (key: string) => selectOne(db, SELECT_BY_KEY, key),
    findByPaymentId: (payer: string, paymentId: string) => selectOne(db, SELECT_BY_PAYMENT_ID, payer, paymentId),
    async listUnresolved(limit: number): Promise<readonly SettlementRecord[]> {
      if (!Number.isSafeInteger(limit) || limit < 0) throw new RangeError("limit must be a non-negative integer");
      if (limit === 0) return Object.freeze([]);
      const rows = await db.query(SELECT_UNRESOLVED, [Math.min(limit, MAX_UNRESOLVED_PAGE)]);
      return Object.freeze(rows.map(settlementFromRow));
    },
  });
}

/**
 * 1. INSERT ... ON CONFLICT DO NOTHING: a new key and paymentId wins outright. A concurrent
 *    insert of the same key or paymentId blocks until the first commits, then does nothing.
 * 2. Otherwise the row holding the key, if it is `failed`, is retaken by a conditional
 *    UPDATE; exactly one concurrent retry matches `state = 'failed'`.
 * 3. Anything else is `exists` with the row that holds the key, or else the paymentId.
 */
async function claim(db: SqlQueryable, draft: SettlementDraft): Promise<ClaimResult> {
  assertDraft(draft);
  const params = draftParams(draft);
  // Rows are never deleted, so the conflicting row is found on the first pass; the bound
  // only guards against looping forever should that ever change.
  for (let attempt = 0; attempt < 3; attempt += 1) {
    const inserted = await db.query(INSERT_CLAIM, params);
    if (inserted[0] !== undefined) return claimed(settlementFromRow(inserted[0]));

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
