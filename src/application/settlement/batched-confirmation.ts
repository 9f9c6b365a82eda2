import type { Signature } from "@solana/kit";
import { systemClock } from "../ports/clock.ts";
import { type Ledger, type SignatureStatus, isLedgerError } from "../ports/ledger.ts";
import type { SignatureNotice, SignatureWatch } from "../ports/signature-watch.ts";
import { type ConfirmationOutcome, type ConfirmationPolicy, DEFAULT_CONFIRMATION_POLICY } from "./confirm-transaction.ts";

/**
 * Waits for one submitted signature; same outcomes and bounds as {@link confirmTransaction}.
 * `firstLook`, when given, is a status already asked for with the send (BatchedConfirmer.lookWithSend).
 */
export type Confirmer = (signature: Signature, lastValidBlockHeight: bigint, firstLook?: Promise<SignatureStatus | null>) => Promise<ConfirmationOutcome>;

/**
 * A Confirmer that can be told of a send before it happens: `expect` starts watching for the
 * node's pushed confirmation (a SignatureWatch), so the notice, which the node sends as soon as
 * the transaction lands, is already asked for when the send returns. Returns the function that
 * stops watching; call it once the settlement no longer waits (confirmed, or never sent).
 */
export type BatchedConfirmer = Confirmer &
  Readonly<{
    expect(signature: Signature): () => void;
    /**
     * Called in the same turn as the send: a status look that leaves with the send's batch, after
     * it (Ledger.lookAfterSends), for `confirm`'s `firstLook`. Undefined when the ledger cannot,
     * or while such looks keep finding nothing (a real cluster takes hundreds of ms to confirm).
     */
    lookWithSend(signature: Signature): Promise<SignatureStatus | null> | undefined;
  }>;

/**
 * After this many looks with the send in a row found nothing decided, only one send in this many
 * gets one (so a ledger that starts confirming at once is noticed again): on a real cluster a
 * status asked with the send is never confirmed yet, and the look would only add to its load.
 */
const SEND_LOOK_PATIENCE = 64;

type Watched = { notice: SignatureNotice | null; waiter: Waiter | null };

/**
 * How soon a newly submitted signature gets its first look, at the earliest after the last poll
 * started. It bounds the status calls that fresh signatures cause (at most one per gap, and one
 * poll at a time), and it is most of what a settlement waits for after its send on a ledger that
 * confirms at once: 20 ms here cost the bench's settlements 10 ms each on average.
 */
const FIRST_LOOK_GAP_MS = 5;

type Waiter = {
  readonly signature: Signature;
  readonly lastValidBlockHeight: bigint;
  readonly deadline: number;
  readonly resolve: (outcome: ConfirmationOutcome) => void;
  readonly reject: (error: unknown) => void;
  lastProblem: string;
  looked: boolean;
};

/**
 * Confirmation for every settlement in flight with ONE `getSignatureStatuses` call per poll
 * (the adapter splits it into 256-signature pages) and one `getBlockHeight` when something is
 * still missing, instead of two calls per settlement per poll. At 1,000 settlements in flight
 * that is the difference between thousands of RPC calls a second and a handful, which decides
 * both throughput and an RPC provider's rate limit.
 *
 * Two kinds of poll, one at a time: a first look asks only about signatures not looked at yet,
 * within a few milliseconds of their send (FIRST_LOOK_GAP_MS); a full poll asks about everything
 * in flight every `pollIntervalMs` and is the only one that checks block height for expiry. So
 * sends arriving all the time cost small first-look calls, not a re-poll of every signature still
 * waiting (on a real cluster most wait a few hundred ms), and a signature not yet visible right
 * after its send costs no height read. Semantics per signature are those of `confirmTransaction`:
 * confirmed, failed on-chain, expired (blockhash passed and one last look found nothing), or
 * unknown at `maxWaitMs`.
 *
 * A send's first look can also leave with the send itself (`lookWithSend`, at the end of the
 * send's JSON-RPC batch): on a ledger that executes the batch in order and confirms at once, the
 * settlement is decided with its send's answer, one hop and the first-look gap less.
 *
 * With a SignatureWatch, a pushed `confirmed` notice settles a signature at once (when it came
 * before the send returned, without any status call); everything above still runs beside it, so a
 * watch that says nothing changes nothing. A notice that the transaction failed is not taken as
 * the outcome: the failure's detail comes from the status read, so it only brings the next look
 * forward.
 */
export function createBatchedConfirmer(
  ledger: Ledger,
  policy: ConfirmationPolicy = DEFAULT_CONFIRMATION_POLICY,
  now: () => number = systemClock.now,
  watch?: SignatureWatch,
): BatchedConfirmer {
  const waiters = new Set<Waiter>();
  const watched = new Map<Signature, Watched>();
  const firstLookGap = Math.min(FIRST_LOOK_GAP_MS, policy.pollIntervalMs);
  let timer: ReturnType<typeof setTimeout> | null = null;
  let dueAt = Number.POSITIVE_INFINITY;
  let polling = false;
  let lastPollAt = Number.NEGATIVE_INFINITY;
  /** When everything in flight is next looked at (and expiry checked). */
  let nextFullPollAt = Number.POSITIVE_INFINITY;
  /** Waiters not looked at yet (each leaves the set only after a look). */
  let fresh = 0;
  /** Looks with the send in a row that found nothing decided, and sends since the last probe. */
  let sendLookMisses = 0;
  let sendsSinceProbe = 0;

  function schedule(delayMs: number): void {
    const at = now() + Math.max(0, delayMs);
    if (timer !== null && dueAt < at) return;
    if (timer !== null) clearTimeout(timer);
    dueAt = at;
    timer = setTimeout(() => void tick(), Math.max(0, delayMs));
  }

  /** The next poll: a first look as soon as the gap allows if anything is fresh, else the full poll. */
  function scheduleNext(): void {
    if (waiters.size === 0) return;
    const time = now();
    schedule(Math.min(nextFullPollAt - time, fresh > 0 ? lastPollAt + firstLookGap - time : Number.POSITIVE_INFINITY));
  }

  async function tick(): Promise<void> {
    timer = null;
    dueAt = Number.POSITIVE_INFINITY;
    if (polling || waiters.size === 0) return;
    polling = true;
    lastPollAt = now();
    const full = lastPollAt >= nextFullPollAt;
    if (full) nextFullPollAt = lastPollAt + policy.pollIntervalMs;
    try {
      await pollOnce(full ? [...waiters] : [...waiters].filter((w) => !w.looked), full);
    } finally {
      polling = false;
    }
    scheduleNext();
  }

  function settle(waiter: Waiter, outcome: ConfirmationOutcome): void {
    if (!waiters.delete(waiter)) return;
    if (!waiter.looked) fresh -= 1;
    waiter.resolve(outcome);
  }

  /** A pushed notice for a waiting signature. */
  function pushed(waiter: Waiter, notice: SignatureNotice): void {
    if (!notice.failed) return settle(waiter, { kind: "confirmed", slot: notice.slot });
    if (!waiter.looked) return; // its first look is on its way
    waiter.looked = false;
    fresh += 1;
    if (!polling) scheduleNext();
  }

  function expect(signature: Signature): () => void {
    if (!watch || watched.has(signature)) return () => {};
    const entry: Watched = { notice: null, waiter: null };
    watched.set(signature, entry);
    const stop = watch.watch(signature, (notice) => {
      entry.notice = notice;
      if (entry.waiter) pushed(entry.waiter, notice);
    });
    return () => {
      stop();
      if (watched.get(signature) === entry) watched.delete(signature);
    };
  }

  /** The outcome a status decides, or null while it is only `processed`. */
  function decided(status: SignatureStatus): ConfirmationOutcome | null {
    if (status.err !== null) return { kind: "failed", error: status.err, slot: status.slot };
    return status.confirmationStatus === "processed" ? null : { kind: "confirmed", slot: status.slot };
  }

  async function pollOnce(batch: readonly Waiter[], full: boolean): Promise<void> {
    // Looked at even when the ledger fails: the retry waits for the full poll, not the short gap.
    for (const waiter of batch) {
      if (!waiter.looked) fresh -= 1;
      waiter.looked = true;
    }
    try {
      const statuses = await ledger.getSignatureStatuses(batch.map((w) => w.signature));
      const missing: Waiter[] = [];
      batch.forEach((waiter, index) => {
        const status = statuses[index] ?? null;
        if (!status) missing.push(waiter);
        else {
          const outcome = decided(status);
          if (outcome) settle(waiter, outcome);
        }
      });
      // Expiry waits for the full poll: a signature unseen right after its send is the common case.
      if (full && missing.length > 0) await expireLapsed(missing);
    } catch (error) {
      if (!isLedgerError(error)) {
        for (const waiter of batch) if (waiters.delete(waiter)) waiter.reject(error);
        return;
      }
      for (const waiter of batch) waiter.lastProblem = error.message;
    }
    const time = now();
    for (const waiter of batch) if (time >= waiter.deadline) settle(waiter, { kind: "unknown", reason: waiter.lastProblem });
  }

  /** Signatures still unknown once their blockhash has passed get one last look, then expire. */
  async function expireLapsed(missing: readonly Waiter[]): Promise<void> {
    const height = await ledger.getBlockHeight();
    const lapsed = missing.filter((w) => height > w.lastValidBlockHeight);
    if (lapsed.length === 0) return;
    // One last look: it may have landed in the final valid block.
    const late = await ledger.getSignatureStatuses(lapsed.map((w) => w.signature));
    lapsed.forEach((waiter, index) => {
      const status = late[index] ?? null;
      const outcome = status ? decided(status) : { kind: "expired" as const };
      if (outcome) settle(waiter, outcome);
    });
  }

  function lookWithSend(signature: Signature): Promise<SignatureStatus | null> | undefined {
    if (!ledger.lookAfterSends) return undefined;
    if (sendLookMisses >= SEND_LOOK_PATIENCE && ++sendsSinceProbe < SEND_LOOK_PATIENCE) return undefined;
    sendsSinceProbe = 0;
    return ledger.lookAfterSends(signature);
  }

  /** The outcome the look with the send decided, or null (not decided, or the look failed: the polls go on). */
  async function decidedWithSend(firstLook: Promise<SignatureStatus | null>): Promise<ConfirmationOutcome | null> {
    let status: SignatureStatus | null;
    try {
      status = await firstLook;
    } catch {
      // The look shares its sends' HTTP request: a node that fails it (a rate limit on status
      // reads, say) may have failed those sends' answers too, which then go again. So one failure
      // is enough to stop asking, until a probe finds the ledger confirming at once again.
      sendLookMisses = SEND_LOOK_PATIENCE;
      sendsSinceProbe = 0;
      return null;
    }
    const outcome = status ? decided(status) : null;
    sendLookMisses = outcome ? 0 : sendLookMisses + 1;
    return outcome;
  }

  const confirm: Confirmer = async (signature, lastValidBlockHeight, firstLook) => {
    if (firstLook) {
      const outcome = await decidedWithSend(firstLook);
      if (outcome) return outcome;
    }
    return waitFor(signature, lastValidBlockHeight);
  };

  function waitFor(signature: Signature, lastValidBlockHeight: bigint): Promise<ConfirmationOutcome> {
    const entry = watched.get(signature);
    // Pushed before the send returned: no status call at all.
    if (entry?.notice && !entry.notice.failed) return Promise.resolve({ kind: "confirmed", slot: entry.notice.slot });
    return new Promise<ConfirmationOutcome>((resolve, reject) => {
      const time = now();
      if (waiters.size === 0) nextFullPollAt = time + policy.pollIntervalMs;
      const waiter: Waiter = { signature, lastValidBlockHeight, deadline: time + policy.maxWaitMs, resolve, reject, lastProblem: "no answer from the ledger", looked: false };
      waiters.add(waiter);
      fresh += 1;
      if (entry) entry.waiter = waiter;
      if (!polling) scheduleNext();
    });
  }
  return Object.assign(confirm, { expect, lookWithSend });
}
