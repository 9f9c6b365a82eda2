import type { Address } from "@solana/kit";
import type { Logger } from "../ports/logger.ts";
import type { RegistryAccountStore, RegistryIndexWriterElection, StoredAccount } from "../ports/registry-account-store.ts";
import type { Schedule } from "./refreshing-snapshot.ts";

/**
 * After a full read written whole (every account it returned, not only what changed): the stored
 * accounts the index does not know (`keep` refuses) are deleted, unless stored from after `slot`.
 */
export type IndexSweep = Readonly<{ keep: (address: Address) => boolean; slot: bigint }>;

export type IndexPersister = Readonly<{
  /**
   * Queues what changed; `completeAt`: these end a full read started then (marked once all is
   * saved); `sweep`: they are that read whole, and what the store holds beyond them goes.
   */
  persist(kind: string, accounts: readonly StoredAccount[], completeAt: number | null, sweep?: IndexSweep): void;
  /** Writes everything queued now (tests, shutdown). */
  flush(): Promise<void>;
  /**
   * Runs `task` with the store while this replica is the writer (a snapshot of the index); null
   * without running it when another replica is, or once stopped. Its failure is the caller's.
   */
  whileWriter<T>(task: (store: RegistryAccountStore) => Promise<T>): Promise<T | null>;
  stop(): Promise<void>;
}>;

export type IndexPersisterOptions = Readonly<{
  store: RegistryAccountStore;
  /**
   * Whether this replica writes (one writer per program among the replicas sharing the store);
   * default: always, through `store`. A replica that is not the writer drops what it queued.
   */
  election?: RegistryIndexWriterElection;
  /**
   * This replica just became the writer: what the store holds may lag the ledger (the previous
   * writer's last changes, deletions it never wrote), so the index writes its next full reads whole.
   */
  onElected?: () => void;
  logger: Logger;
  schedule: Schedule;
  /** Writes wait this long, so a burst of changes is one batch. Default 1 s. */
  delayMs?: number;
  /** Accounts per statement: small, so one write holds an in-process database (PGlite) briefly. Default 250. */
  batchSize?: number;
}>;

type Queue = { accounts: Map<Address, StoredAccount>; completeAt: number | null; sweep: IndexSweep | null };

/**
 * Saves the index's changes in the background, in batches, one write at a time: requests never
 * wait for the store. The latest state of an account wins while it waits. A failed write is kept
 * (unless a newer state of the account came meanwhile) and tried again with the next batch; the
 * store's slot check makes writing a state twice harmless.
 */
export function createIndexPersister(options: IndexPersisterOptions): IndexPersister {
  const { store, schedule } = options;
  const election: RegistryIndexWriterElection = options.election ?? { acquire: async () => ({ store, elected: false }), release: async () => {} };
  const log = options.logger.child({ component: "registry-store" });
  const delayMs = options.delayMs ?? 1_000;
  const batchSize = options.batchSize ?? 250;
  const queues = new Map<string, Queue>();
  let cancel: (() => void) | null = null;
  let writing: Promise<void> | null = null;
  let stopped = false;
  let failures = 0;

  function queueOf(kind: string): Queue {
    let queue = queues.get(kind);
    if (!queue) queues.set(kind, (queue = { accounts: new Map(), completeAt: null, sweep: null }));
    return queue;
  }

  function later(): void {
    if (cancel || stopped) return;
    // Back off while the store fails, up to a minute.
    cancel = schedule(() => {
      cancel = null;
      void flush();
    }, Math.min(60_000, delayMs * 2 ** Math.min(failures, 6)));
  }

  async function writeAll(): Promise<void> {
    const writer = await election.acquire();
    if (!writer) {
      // Another replica writes the same changes (it follows the same ledger).
      queues.clear();
      return;
    }
    if (writer.elected) options.onElected?.();
    const { store } = writer;
    for (const [kind, queue] of queues) {
      while (queue.accounts.size > 0) {
        const batch: StoredAccount[] = [];
        for (const account of queue.accounts.values()) {
          batch.push(account);
          if (batch.length === batchSize) break;
        }
        for (const account of batch) queue.accounts.delete(account.address);
        try {
          await store.save(kind, batch);
        } catch (error) {
          for (const account of batch) if (!queue.accounts.has(account.address)) queue.accounts.set(account.address, account);
          throw error;
        }
      }
      if (queue.sweep !== null) {
        const sweep = queue.sweep;
        const swept = await store.sweep(kind, sweep.keep, sweep.slot);
        if (swept > 0) log.info("deleted stored registry accounts the ledger no longer has", { kind, swept });
        if (queue.sweep === sweep) queue.sweep = null;
      }
      if (queue.completeAt !== null) {
        const at = queue.completeAt;
        await store.markComplete(kind, at);
        if (queue.completeAt === at) queue.completeAt = null;
      }
    }
  }

  function flush(): Promise<void> {
    if (writing) return writing.then(() => (pendingCount() > 0 ? flush() : undefined));
    writing = writeAll()
      .then(
        () => {
          failures = 0;
        },
        (error: unknown) => {
          failures += 1;
          log.warn("saving the registry index failed; retrying", { error: error instanceof Error ? error.message : String(error), failures });
        },
      )
      .finally(() => {
        writing = null;
        if (pendingCount() > 0) later();
      });
    return writing;
  }

  function pendingCount(): number {
    let count = 0;
    for (const queue of queues.values()) count += queue.accounts.size + (queue.completeAt === null ? 0 : 1) + (queue.sweep === null ? 0 : 1);
    return count;
  }

  return Object.freeze({
    persist(kind: string, accounts: readonly StoredAccount[], completeAt: number | null, sweep?: IndexSweep) {
      if (stopped) return;
      const queue = queueOf(kind);
      for (const account of accounts) queue.accounts.set(account.address, account);
      if (completeAt !== null) queue.completeAt = completeAt;
      if (sweep) queue.sweep = sweep;
      if (accounts.length > 0 || completeAt !== null) later();
    },
    flush,
    async whileWriter<T>(task: (store: RegistryAccountStore) => Promise<T>): Promise<T | null> {
      if (stopped) return null;
      const writer = await election.acquire();
      if (!writer) return null;
      if (writer.elected) options.onElected?.();
      return task(writer.store);
    },
    async stop() {
      cancel?.();
      cancel = null;
      await flush();
      stopped = true;
      await election.release().catch((error: unknown) => log.warn("releasing the registry index writer role failed", { error: error instanceof Error ? error.message : String(error) }));
    },
  });
}
