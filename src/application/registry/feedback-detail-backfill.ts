import type { Address, Signature } from "@solana/kit";
import type { Clock } from "../ports/clock.ts";
import type { FeedbackDetailUriStore } from "../ports/feedback-detail-uri-store.ts";
import type { Logger } from "../ports/logger.ts";
import { MAX_SIGNATURES_PER_PAGE, type AddressSignature, type TransactionHistory } from "../ports/transaction-history.ts";
import { CodedError, isCoded } from "../../domain/coded-error.ts";
import { feedbackCreationIn, type FeedbackEntryRef } from "../../domain/registry/give-feedback.ts";
import type { FeedbackRecord } from "../../domain/registry/feedback-selection.ts";
import { createCallPacer } from "./call-pacer.ts";

/** What the agent index needs of the detail-URI reader. */
export type FeedbackDetails = Readonly<{
  /** The entry's detail URI when known; answered from memory, never from the RPC. */
  detailUriOf(address: Address): string | undefined;
  /**
   * The PaymentReceipt the entry's give_feedback consumed (null: it named none); undefined until the
   * transaction was read. Answered from memory, never from the RPC.
   */
  paymentReceiptOf(address: Address): Address | null | undefined;
  /** Called after each successful feedback refresh with every indexed entry; returns at once. */
  indexed(records: readonly FeedbackRecord[]): void;
}>;

export type FeedbackDetailBackfill = FeedbackDetails &
  Readonly<{
    /** Resolves once nothing is queued or running. */
    idle(): Promise<void>;
    /** Takes no more work and waits for the pass in flight to end (its next RPC call is not made). */
    stop(): Promise<void>;
  }>;

export type FeedbackDetailBackfillOptions = Readonly<{
  history: TransactionHistory;
  store: FeedbackDetailUriStore;
  programId: Address;
  clock: Clock;
  logger: Logger;
  /** Entries resolved at the same time (default 2). */
  concurrency?: number;
  /** RPC calls started per second, all entries together (default 5; each entry costs at least 2). */
  callsPerSecond?: number;
  /** getSignaturesForAddress pages of 1,000 read per entry before giving up on finding its oldest (default 3). */
  maxSignaturePages?: number;
  /** Successful transactions fetched per entry, oldest first, looking for its give_feedback (default 3). */
  maxTransactionsPerEntry?: number;
  /** First wait before an entry whose URI was not found is tried again; doubles up to `maxRetryMs` (defaults 60 s, 1 h). */
  retryMs?: number;
  maxRetryMs?: number;
  sleep?: (ms: number) => Promise<void>;
}>;

type Backoff = Readonly<{ attempts: number; retryAt: number }>;
type Outcome = "resolved" | "not-found";

/** Raised inside a pass to abandon it once stop() was called. */
const stoppedError = () => new CodedError("BACKFILL_STOPPED", "the backfill was stopped");

/**
 * Reads each feedback entry's `detail_uri` (and the `payment_receipt` it consumed, if any) from the
 * give_feedback transaction that created it, off
 * the request path, and keeps it in the store (a URI never changes) and in memory.
 *
 * After every feedback refresh the entries without a URI are queued (newest first); one pass at a
 * time takes the queue: one store lookup per 500 entries (another replica, or this one before a
 * restart, may have read them), then for each entry still missing, getSignaturesForAddress (the
 * oldest signature is the creation) and getTransaction, with `concurrency` entries in parallel and
 * at most `callsPerSecond` RPC calls. An entry whose URI is not found waits with exponential backoff;
 * an RPC or store failure ends the pass (its remaining entries come back with the next refresh), so a
 * node that is down costs at most `concurrency` calls per refresh.
 */
export function createFeedbackDetailBackfill(options: FeedbackDetailBackfillOptions): FeedbackDetailBackfill {
  const { history, store, programId, clock } = options;
  const log = options.logger.child({ component: "feedback-detail-uris" });
  const concurrency = options.concurrency ?? 2;
  const maxPages = options.maxSignaturePages ?? 3;
  const maxTransactions = options.maxTransactionsPerEntry ?? 3;
  const retryMs = options.retryMs ?? 60_000;
  const maxRetryMs = options.maxRetryMs ?? 3_600_000;
  const pace = createCallPacer({ callsPerSecond: options.callsPerSecond ?? 5, clock, ...(options.sleep ? { sleep: options.sleep } : {}) });

  const known = new Map<Address, string>();
  const receipts = new Map<Address, Address | null>();
  /** Both halves read: nothing left to ask the RPC for this entry. */
  const complete = (address: Address) => known.has(address) && receipts.has(address);
  const backoff = new Map<Address, Backoff>();
  /** Queued or in the pass running now: never queued twice. */
  const scheduled = new Set<Address>();
  type Queued = Readonly<{ ref: FeedbackEntryRef; createdAt: bigint; hasPaymentProof: boolean }>;
  let queue: Queued[] = [];
  let running: Promise<void> | null = null;
  let stopped = false;

  function indexed(records: readonly FeedbackRecord[]): void {
    if (stopped) return;
    const now = clock.now();
    for (const { address, entry } of records) {
      if (complete(address) || scheduled.has(address) || (backoff.get(address)?.retryAt ?? 0) > now) continue;
      scheduled.add(address);
      queue.push({ ref: { address, nftMint: entry.nftMint, reviewer: entry.reviewer }, createdAt: entry.createdAt, hasPaymentProof: entry.hasPaymentProof });
    }
    if (queue.length > 0 && !running) {
      running = drain().finally(() => {
        running = null;
      });
    }
  }

  async function drain(): Promise<void> {
    while (queue.length > 0 && !stopped) {
      const batch = queue.sort((a, b) => (a.createdAt === b.createdAt ? 0 : a.createdAt > b.createdAt ? -1 : 1));
      queue = [];
      try {
        await pass(batch);
      } catch (error) {
        if (!isCoded(error, "BACKFILL_STOPPED")) log.warn("feedback detail URI pass ended early; the rest waits for the next refresh", { error: messageOf(error) });
      } finally {
        for (const { ref } of batch) scheduled.delete(ref.address);
      }
    }
  }

  async function pass(batch: readonly Queued[]): Promise<void> {
    const stored = await store.find(batch.map(({ ref }) => ref.address));
    const creations = new Map<Address, Signature>();
    for (const { ref, hasPaymentProof } of batch) {
      const row = stored.get(ref.address);
      if (!row) continue;
      known.set(ref.address, row.detailUri);
      if (row.paymentReceipt !== undefined) receipts.set(ref.address, row.paymentReceipt);
      // A row saved before receipts were read (migration 13). An entry without payment proof
      // consumed no receipt: nothing to ask the node. Otherwise its creation is read directly.
      else if (!hasPaymentProof) await completeWithoutProof(ref.address, row.detailUri, row.signature);
      else creations.set(ref.address, row.signature);
    }
    const missing = batch.map(({ ref }) => ref).filter((ref) => !complete(ref.address));
    const counts = { fromStore: batch.length - missing.length, resolved: 0, notFound: 0 };
    let next = 0;
    let failure: unknown = null;
    const worker = async () => {
      while (failure === null && next < missing.length) {
        const ref = missing[next++] as FeedbackEntryRef;
        try {
          if ((await resolve(ref, creations.get(ref.address))) === "resolved") counts.resolved++;
          else counts.notFound++;
        } catch (error) {
          if (!isCoded(error, "BACKFILL_STOPPED")) defer(ref.address);
          failure ??= error;
        }
      }
    };
    // Every worker has returned before the pass ends, so a pass never overlaps the next one.
    await Promise.all(Array.from({ length: Math.min(concurrency, missing.length) }, worker));
    if (counts.resolved + counts.notFound > 0) log.info("feedback detail URIs read", counts);
    if (failure !== null) throw failure;
  }

  async function call<T>(send: () => Promise<T>): Promise<T> {
    await pace();
    if (stopped) throw stoppedError();
    return send();
  }

  async function completeWithoutProof(address: Address, detailUri: string, signature: Signature): Promise<void> {
    receipts.set(address, null);
    await store.save({ address, detailUri, signature, fetchedAtMs: clock.now(), paymentReceipt: null }).catch((error: unknown) => {
      log.warn("could not store a feedback payment receipt", { address, error: messageOf(error) });
    });
  }

  /**
   * Reads the entry's creation: from `knownCreation` (the signature a stored row was read from) with
   * one getTransaction, else (or when that does not answer it) from the address's history.
   */
  async function resolve(ref: FeedbackEntryRef, knownCreation?: Signature): Promise<Outcome> {
    if (knownCreation !== undefined && (await tryCreation(ref, knownCreation))) return "resolved";
    const candidates = await creationCandidates(ref.address);
    for (const { signature } of candidates.slice(0, maxTransactions)) {
      if (await tryCreation(ref, signature)) return "resolved";
    }
    // A URI read before (a stored row) is still served: only its receipt stays unknown, tried again later.
    log.debug("no give_feedback found for a feedback entry", { address: ref.address, candidates: candidates.length });
    defer(ref.address);
    return "not-found";
  }

  async function tryCreation(ref: FeedbackEntryRef, signature: Signature): Promise<boolean> {
    const transaction = await call(() => history.getTransaction(signature));
    const creation = transaction && feedbackCreationIn(transaction, programId, ref);
    if (!creation) return false;
    const detailUri = storable(creation.args.detailUri);
    known.set(ref.address, detailUri);
    receipts.set(ref.address, creation.paymentReceipt);
    backoff.delete(ref.address);
    // Served from memory already; a failed save only means another read after a restart.
    await store.save({ address: ref.address, detailUri, signature, fetchedAtMs: clock.now(), paymentReceipt: creation.paymentReceipt }).catch((error: unknown) => {
      log.warn("could not store a feedback detail URI", { address: ref.address, error: messageOf(error) });
    });
    return true;
  }

  /**
   * Successful transactions naming the entry, oldest first: the oldest is its creation. Pages are
   * read until a short one; when `maxPages` full pages do not reach the start of the history (someone
   * named the address in thousands of transactions), the creation is out of reach and none is tried.
   */
  async function creationCandidates(address: Address): Promise<AddressSignature[]> {
    const all: AddressSignature[] = [];
    for (let page = 0; page < maxPages; page++) {
      const before = all.at(-1)?.signature;
      const signatures = await call(() => history.getSignaturesForAddress(address, { limit: MAX_SIGNATURES_PER_PAGE, ...(before ? { before } : {}) }));
      all.push(...signatures);
      if (signatures.length < MAX_SIGNATURES_PER_PAGE) return all.filter((s) => s.err === null).reverse();
    }
    log.warn("feedback entry history too long to reach its creation", { address, signatures: all.length });
    return [];
  }

  function defer(address: Address): void {
    const attempts = (backoff.get(address)?.attempts ?? 0) + 1;
    backoff.set(address, { attempts, retryAt: clock.now() + Math.min(retryMs * 2 ** (attempts - 1), maxRetryMs) });
  }

  return Object.freeze({
    detailUriOf: (address: Address) => known.get(address),
    paymentReceiptOf: (address: Address) => receipts.get(address),
    indexed,
    idle: async () => {
      while (running) await running;
    },
    stop: async () => {
      stopped = true;
      queue = [];
      while (running) await running;
    },
  });
}

/**
 * PostgreSQL text cannot hold U+0000, and a URI has no use for it: a reviewer who put one in the
 * detail_uri gets U+FFFD instead, so the row can be stored and served like any other.
 */
function storable(uri: string): string {
  return uri.replaceAll("\u0000", "\uFFFD");
}

function messageOf(error: unknown): string {
  return error instanceof Error ? `${error.name}: ${error.message}` : String(error);
}
