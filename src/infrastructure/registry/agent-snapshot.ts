import type { Address } from "@solana/kit";
import type { Logger } from "../../application/ports/logger.ts";
import type { RegistryAccountStore } from "../../application/ports/registry-account-store.ts";
import type { IndexPersister } from "../../application/registry/index-persister.ts";
import { agentCatalogChanges, catalogGramsWork, sortedAgentCatalogWork, type AgentCatalog } from "../../domain/registry/agent-catalog.ts";
import type { AgentKey } from "../../domain/registry/agent-order.ts";
import type { AgentRecord } from "../../domain/registry/agent-record.ts";
import type { SlicedWork } from "../../domain/registry/sliced-work.ts";
import type { AccountBaseline } from "./account-baseline.ts";
import { decodeSnapshotChunk, emptySnapshotColumns, encodeSnapshotChunk, type SnapshotAgent, type SnapshotColumns } from "./agent-snapshot-codec.ts";
import type { LiveKind } from "./live-account-kind.ts";

/** Agents per snapshot chunk: ~0.6 MB, a few hundred chunks at 1,000,000 agents. */
export const SNAPSHOT_CHUNK_AGENTS = 4_096;

const CLOSED = new Uint8Array(0);

type InSlices = <T>(work: SlicedWork<T>) => Promise<T>;

export type AgentSnapshotDeps = Readonly<{
  agents: LiveKind<AgentCatalog>;
  baseline: AccountBaseline<AgentRecord>;
  programId: Address;
  /** Runs sliced work between requests (the index's runner). */
  inSlices: InSlices;
  log: Logger;
}>;

/**
 * Serves the agents from the store's snapshot of the built index, if it has one: its chunks are
 * decoded (no account decode), the catalog is made from them in list order (no sort, the `q` lists
 * built afterwards, `q` scanning until then) and the baseline takes their fingerprints, so the
 * catch-up full read costs a fingerprint an account. The accounts saved after the snapshot was
 * taken (a higher slot) are then applied as pushed writes. Whether the agents are served; on any
 * failure nothing is taken (the caller loads the stored accounts, or the ledger).
 */
export async function restoreAgentSnapshot(store: RegistryAccountStore, deps: AgentSnapshotDeps): Promise<boolean> {
  const { agents, baseline, log } = deps;
  if (!store.loadSnapshot) return false;
  let catalog: AgentCatalog | null = null;
  const restored = await agents.restoreBuilt(async (inSlices) => {
    const columns = emptySnapshotColumns();
    const head = await store.loadSnapshot!("agents", async (chunks) => {
      for (const chunk of chunks) await inSlices(decodeSnapshotChunk(chunk, columns));
    });
    if (!head) return null;
    catalog = await inSlices(sortedAgentCatalogWork(columns.records));
    if (!catalog) {
      log.warn("the stored registry snapshot is not in list order; loading the stored accounts");
      return null;
    }
    await inSlices(adoptAll(baseline, columns));
    catalog = await applySavedSince(store, head.takenAt, catalog, deps, inSlices);
    return { model: catalog, accounts: baseline.size() };
  });
  if (!restored || !catalog) return false;
  // The `q` lists, between requests; a `q` scans the base until they are in.
  void deps.inSlices(catalogGramsWork(catalog)).catch((error: unknown) => log.warn("building the restored catalog's q lists failed", { error: String(error) }));
  return true;
}

/**
 * The accounts whose bytes the store saved after the snapshot was taken, applied as pushed writes
 * are (an older slot than the snapshot's changes nothing), and those closed since (the store's
 * closure notes) are dropped. If the store fails here, the snapshot is served as it is and the
 * first full read catches up.
 */
async function applySavedSince(store: RegistryAccountStore, takenAt: string, catalog: AgentCatalog, deps: AgentSnapshotDeps, inSlices: InSlices): Promise<AgentCatalog> {
  if (!store.loadSince) return catalog;
  let current = catalog;
  try {
    await store.loadSince("agents", takenAt, async (rows) => {
      // A closure is applied as a write without lamports (slot-checked like any write).
      const changes = await inSlices(deps.baseline.apply(rows.map((row) => ({ address: row.address, slot: row.slot, data: row.data ?? CLOSED, owner: deps.programId, lamports: row.data ? 1n : 0n }))));
      if (changes.added.length + changes.removed.length > 0) current = await inSlices(agentCatalogChanges(current, changes.added, changes.removed));
    });
  } catch (error) {
    deps.log.warn("the accounts saved after the registry snapshot could not be read; the first full read finds them", { error: error instanceof Error ? error.message : String(error) });
  }
  return current;
}

function* adoptAll(baseline: AccountBaseline<AgentRecord>, columns: SnapshotColumns): SlicedWork<void> {
  const { records, addresses, fieldBytes, h1, h2, slots } = columns;
  baseline.reserve(baseline.size() + records.length);
  for (let i = 0; i < records.length; i++) {
    const record = records[i] as AgentRecord;
    baseline.adopt(addresses[i] as Address, { record, fieldBytes: fieldBytes[i] as number, h1: h1[i] as number, h2: h2[i] as number, slot: slots[i] as number });
    if ((i & 1023) === 1023) yield;
  }
  // The texts are garbage from here on.
  addresses.length = 0;
}

export type AgentSnapshotWriter = Readonly<{
  /** A full read of the agents ended: a snapshot is written if the last one is `everyMs` old. */
  afterFullRead(): void;
  /** Waits for a snapshot being written to be written (a shutdown keeps what it was saving). */
  stop(): Promise<void>;
}>;

/**
 * Writes the snapshot restoreAgentSnapshot reads, through the persister's writer role (only the
 * elected replica writes): the catalog after a full read, walked page by page in list order, each
 * page a chunk put as soon as it is encoded. A record the baseline no longer holds (changed during
 * the walk) is stored with an empty fingerprint, so the first read after a restart decodes it again.
 */
export function createAgentSnapshotWriter(persister: IndexPersister, deps: AgentSnapshotDeps & Readonly<{ everyMs: number; now(): number }>): AgentSnapshotWriter {
  const { agents, baseline, inSlices, log } = deps;
  let lastAt = Number.NEGATIVE_INFINITY;
  let writing: Promise<void> | null = null;
  let stopped = false;

  async function write(): Promise<void> {
    const started = performance.now();
    // The accounts queued until now are saved before the store's clock is read: saved after it,
    // a restart would read and apply every one of them over the snapshot (at a first start, all of
    // them: at 1,000,000 agents the save outlasts the walk).
    await persister.flush();
    const written = await persister.whileWriter(async (store) => {
      if (!store.beginSnapshot) return null;
      const snapshot = await store.beginSnapshot("agents");
      // Taken after the store's clock was read: what changes after this is saved after it.
      const catalog = agents.peek();
      if (!catalog) return null;
      let slot = 0;
      let count = 0;
      try {
        let after: AgentKey | undefined;
        do {
          const page = catalog.page({ limit: SNAPSHOT_CHUNK_AGENTS, ...(after ? { after } : {}) });
          const chunkAgents: SnapshotAgent[] = page.items.map((record) => {
            const known = baseline.stateOf(record.address);
            if (known && known.record === record) {
              if (known.slot > slot) slot = known.slot;
              return { record, fieldBytes: known.fieldBytes, h1: known.h1, h2: known.h2, slot: known.slot };
            }
            return { record, fieldBytes: 0, h1: 0, h2: 0, slot: 0 };
          });
          count += chunkAgents.length;
          await snapshot.put([await inSlices(encodeSnapshotChunk(chunkAgents))]);
          after = page.nextKey ?? undefined;
        } while (after);
        return (await snapshot.commit(BigInt(slot))) ? count : -1;
      } catch (error) {
        await snapshot.abort().catch(() => {});
        throw error;
      }
    });
    if (written === null) return;
    if (written < 0) log.info("a newer registry snapshot is in the store; this one was dropped");
    else log.info("wrote the registry snapshot", { agents: written, ms: Math.round(performance.now() - started) });
  }

  return Object.freeze({
    afterFullRead() {
      const catalog = agents.peek();
      if (stopped || writing || !catalog || deps.now() - lastAt < deps.everyMs) return;
      lastAt = deps.now();
      writing = write()
        .catch((error: unknown) => {
          lastAt = Number.NEGATIVE_INFINITY;
          log.warn("writing the registry snapshot failed; the next full read tries again", { error: error instanceof Error ? error.message : String(error) });
        })
        .finally(() => {
          writing = null;
        });
    },
    async stop() {
      stopped = true;
      await writing;
    },
  });
}
