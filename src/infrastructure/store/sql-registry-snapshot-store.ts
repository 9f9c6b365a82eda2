import { Buffer } from "node:buffer";
import type { Address } from "@solana/kit";
import type { RegistrySnapshotHead, RegistrySnapshotWrite, StoredAccount } from "../../application/ports/registry-account-store.ts";
import { binaryCopyRows } from "./binary-copy.ts";
import type { SqlQueryable } from "./sql-executor.ts";

const HEAD = `
  SELECT generation::text AS generation, slot::text AS slot, chunks, taken_at::text AS taken_at
    FROM registry_snapshots WHERE program = $1 AND kind = $2`;

const CHUNKS = `
  SELECT chunk, data FROM registry_snapshot_chunks
   WHERE program = $1 AND kind = $2 AND generation = $3::bigint AND chunk >= $4 AND chunk < $5
   ORDER BY chunk`;

const INSERT_CHUNKS = `
  INSERT INTO registry_snapshot_chunks (program, kind, generation, chunk, data)
  SELECT $1, $2, $3::bigint, t.chunk, decode(t.data, 'base64')
    FROM unnest($4::int[], $5::text[]) AS t(chunk, data)`;

// The head moves to the new generation only if no snapshot from a later slot is there: a writer
// that lost its role mid-write (or lags) never replaces a newer snapshot with its older one.
const MOVE_HEAD = `
  INSERT INTO registry_snapshots (program, kind, generation, slot, chunks, taken_at)
  VALUES ($1, $2, $3::bigint, $4::bigint, $5, $6::timestamptz)
  ON CONFLICT (program, kind) DO UPDATE
     SET generation = excluded.generation, slot = excluded.slot, chunks = excluded.chunks, taken_at = excluded.taken_at
   WHERE registry_snapshots.slot <= excluded.slot
  RETURNING generation::text AS generation`;

/** Chunks of every generation but the head's (the replaced snapshot, or a write that lost). */
const DROP_OTHER_GENERATIONS = `
  DELETE FROM registry_snapshot_chunks c
   WHERE c.program = $1 AND c.kind = $2
     AND c.generation <> coalesce((SELECT generation FROM registry_snapshots s WHERE s.program = $1 AND s.kind = $2), -1)`;

// Paged by address. An account saved again while this reads may be missed: the feed (subscribed
// before the load) and the first full read carry that change.
const SINCE = `
  SELECT address, slot::text AS slot, data FROM registry_accounts
   WHERE program = $1 AND kind = $2 AND saved_at > $3::timestamptz AND address > $4
   ORDER BY address
   LIMIT $5`;

// The closures noted since (migration 16), but not of an account stored again since (it came back:
// its row, saved after it, is handed over by SINCE).
const CLOSED_SINCE = `
  SELECT c.address, c.slot::text AS slot FROM registry_account_closures c
   WHERE c.program = $1 AND c.kind = $2 AND c.closed_at > $3::timestamptz AND c.address > $4
     AND NOT EXISTS (SELECT 1 FROM registry_accounts r WHERE r.program = c.program AND r.kind = c.kind AND r.address = c.address)
   ORDER BY c.address
   LIMIT $5`;

// Closures older than their kind's snapshot are in it; for a kind without one, older than this
// snapshot: any snapshot of it written later is taken after now.
const DROP_OLD_CLOSURES = `
  DELETE FROM registry_account_closures c
   WHERE c.program = $1
     AND c.closed_at < coalesce((SELECT s.taken_at FROM registry_snapshots s WHERE s.program = c.program AND s.kind = c.kind), $2::timestamptz)`;

const CLOCK = `SELECT clock_timestamp()::text AS now`;

export type SnapshotStoreOptions = Readonly<{
  /** Chunks per statement, both ways. A chunk is ~1 MB; PGlite holds the thread for a statement. */
  chunksPerStatement: number;
  rowsPerPage: number;
}>;

/** The snapshot half of the registry account store (tables of migrations 15 and 16). */
export function sqlRegistrySnapshotStore(db: SqlQueryable, program: Address, options: SnapshotStoreOptions) {
  const { chunksPerStatement, rowsPerPage } = options;
  return {
    async beginSnapshot(kind: string): Promise<RegistrySnapshotWrite> {
      // Unique per write: the time in µs, so a later write of the same writer never reuses one.
      const generation = (BigInt(Date.now()) * 1000n + BigInt(Math.floor(Math.random() * 1000))).toString();
      // The database's clock before the caller walks its index: every account saved after this is
      // one a restart applies over the snapshot (saving follows applying).
      const [clock] = await db.query(CLOCK);
      const takenAt = String(clock?.["now"]);
      let next = 0;
      return Object.freeze({
        async put(chunks: readonly Uint8Array[]): Promise<void> {
          for (let from = 0; from < chunks.length; from += chunksPerStatement) {
            const part = chunks.slice(from, from + chunksPerStatement);
            const numbers = part.map(() => next++);
            await db.query(INSERT_CHUNKS, [program, kind, generation, `{${numbers.join(",")}}`, `{${part.map((c) => `"${Buffer.from(c.buffer, c.byteOffset, c.byteLength).toString("base64")}"`).join(",")}}`]);
          }
        },
        async commit(slot: bigint): Promise<boolean> {
          const moved = await db.query(MOVE_HEAD, [program, kind, generation, slot.toString(), next, takenAt]);
          await db.query(DROP_OTHER_GENERATIONS, [program, kind]);
          await db.query(DROP_OLD_CLOSURES, [program, takenAt]);
          return moved.length > 0;
        },
        async abort(): Promise<void> {
          await db.query(DROP_OTHER_GENERATIONS, [program, kind]);
        },
      });
    },
    async loadSnapshot(kind: string, onChunks: (chunks: readonly Uint8Array[]) => Promise<void>): Promise<RegistrySnapshotHead | null> {
      const [head] = await db.query(HEAD, [program, kind]);
      if (!head) return null;
      const generation = String(head["generation"]);
      const count = Number(head["chunks"]);
      const read = { slot: BigInt(String(head["slot"])), takenAt: String(head["taken_at"]), chunks: count };
      if (db.copyOut) {
        await copyChunks(db.copyOut.bind(db), program, kind, generation, count, onChunks);
        return read;
      }
      const fetch = (from: number) => {
        const rows = db.query(CHUNKS, [program, kind, generation, from, Math.min(count, from + chunksPerStatement)]);
        // Awaited below, unless the decoding of the page before failed: then nobody will.
        rows.catch(() => {});
        return rows;
      };
      let next = count > 0 ? fetch(0) : null;
      for (let from = 0; next; from += chunksPerStatement) {
        const rows = await next;
        const expected = Math.min(count, from + chunksPerStatement) - from;
        // Replaced under the read (a new snapshot's write dropped this one's chunks): not whole.
        if (rows.length !== expected || rows.some((row, i) => Number(row["chunk"]) !== from + i)) throw new Error("the registry snapshot changed while it was read");
        // The next page is on its way while this one is decoded.
        next = from + chunksPerStatement < count ? fetch(from + chunksPerStatement) : null;
        await onChunks(rows.map((row) => bytesOf(row["data"])));
      }
      return read;
    },
    async loadSince(kind: string, takenAt: string, onPage: (rows: readonly StoredAccount[]) => Promise<void>): Promise<void> {
      await pages(SINCE, (row) => ({ address: String(row["address"]) as Address, slot: BigInt(String(row["slot"])), data: bytesOf(row["data"]) }));
      await pages(CLOSED_SINCE, (row) => ({ address: String(row["address"]) as Address, slot: BigInt(String(row["slot"])), data: null }));

      async function pages(statement: string, accountOf: (row: Readonly<Record<string, unknown>>) => StoredAccount): Promise<void> {
        let after = "";
        for (;;) {
          const rows = await db.query(statement, [program, kind, takenAt, after, rowsPerPage]);
          if (rows.length === 0) return;
          await onPage(rows.map(accountOf));
          if (rows.length < rowsPerPage) return;
          after = String(rows[rows.length - 1]?.["address"]);
        }
      }
    },
  };
}

/**
 * The chunks of one generation in one COPY (PostgreSQL): one statement, so one consistent view of
 * the table; each chunk is handed over as it arrives while the next ones stream in.
 */
async function copyChunks(copyOut: (statement: string) => AsyncIterable<Uint8Array>, program: Address, kind: string, generation: string, count: number, onChunks: (chunks: readonly Uint8Array[]) => Promise<void>): Promise<void> {
  // SECURITY: COPY takes no parameters; every value put in the statement is checked to be what it
  // must be (an address, a kind's name, a number), so none can end the literal it stands in.
  if (!/^[1-9A-HJ-NP-Za-km-z]{32,44}$/.test(program) || !/^[a-z]{1,32}$/.test(kind) || !/^[0-9]{1,20}$/.test(generation)) {
    throw new Error("registry snapshot: unexpected program, kind or generation");
  }
  const statement = `COPY (SELECT chunk, data FROM registry_snapshot_chunks WHERE program = '${program}' AND kind = '${kind}' AND generation = ${generation} ORDER BY chunk) TO STDOUT (FORMAT binary)`;
  let next = 0;
  for await (const fields of binaryCopyRows(copyOut(statement))) {
    const [chunk, data] = fields;
    // Replaced under the read (a new snapshot's write dropped this one's chunks): not whole.
    if (!chunk || chunk.length !== 4 || !data || new DataView(chunk.buffer, chunk.byteOffset, 4).getInt32(0) !== next) throw new Error("the registry snapshot changed while it was read");
    next++;
    await onChunks([data]);
  }
  if (next !== count) throw new Error("the registry snapshot changed while it was read");
}

function bytesOf(data: unknown): Uint8Array {
  if (!(data instanceof Uint8Array)) throw new Error("registry store: bytea column is not bytes");
  // postgres.js hands bytea over as a Buffer over a shared pool: copied out.
  return new Uint8Array(data);
}
