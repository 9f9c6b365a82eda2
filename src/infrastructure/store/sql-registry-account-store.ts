import { Buffer } from "node:buffer";
import type { Address } from "@solana/kit";
import type { RegistryAccountStore, StoredAccount, StoredAccountRow } from "../../application/ports/registry-account-store.ts";
import { arrayLiteral, retryDeadlock } from "./sql-batch.ts";
import { sqlRegistrySnapshotStore } from "./sql-registry-snapshot-store.ts";
import type { SqlQueryable } from "./sql-executor.ts";

const LOAD = `
  SELECT address, slot::text AS slot, data FROM registry_accounts
   WHERE program = $1 AND kind = $2 AND address > $3
   ORDER BY address
   LIMIT $4`;

// Each row only replaces a state from an earlier (or the same) slot: replicas writing the same
// accounts never move one back. `saved_at` moves only when the bytes change, so the accounts a
// restart applies over the snapshot (saved since it was taken) are the changed ones, not every
// account a new writer wrote whole again.
const UPSERT = `
  INSERT INTO registry_accounts (program, kind, address, slot, data, saved_at)
  SELECT $1, $2, t.address, t.slot, decode(t.data, 'base64'), clock_timestamp()
    FROM unnest($3::text[], $4::bigint[], $5::text[]) AS t(address, slot, data)
  ON CONFLICT (program, kind, address) DO UPDATE SET slot = excluded.slot, data = excluded.data,
         saved_at = CASE WHEN registry_accounts.data = excluded.data THEN registry_accounts.saved_at ELSE excluded.saved_at END
   WHERE registry_accounts.slot <= excluded.slot`;

// Each closure is also noted with its time (migration 16), unless the store holds the account from
// a later slot: a restart serving a snapshot taken before it drops the account at once.
const DELETE = `
  WITH gone AS (
    DELETE FROM registry_accounts r
     USING unnest($3::text[], $4::bigint[]) AS t(address, slot)
     WHERE r.program = $1 AND r.kind = $2 AND r.address = t.address AND r.slot <= t.slot
    RETURNING r.address
  ), noted AS (
    INSERT INTO registry_account_closures (program, kind, address, slot, closed_at)
    SELECT DISTINCT ON (t.address) $1, $2, t.address, t.slot, clock_timestamp()
      FROM unnest($3::text[], $4::bigint[]) AS t(address, slot)
     WHERE NOT EXISTS (SELECT 1 FROM registry_accounts r WHERE r.program = $1 AND r.kind = $2 AND r.address = t.address AND r.slot > t.slot)
     ORDER BY t.address, t.slot DESC
    ON CONFLICT (program, kind, address) DO UPDATE SET slot = excluded.slot, closed_at = excluded.closed_at
     WHERE registry_account_closures.slot <= excluded.slot
    RETURNING 1
  )
  SELECT address FROM gone`;

const ADDRESSES = `
  SELECT address FROM registry_accounts
   WHERE program = $1 AND kind = $2 AND address > $3
   ORDER BY address
   LIMIT $4`;

const COMPLETE_AT = `SELECT (extract(epoch FROM complete_at) * 1000)::float8 AS at FROM registry_index_state WHERE program = $1 AND kind = $2`;

const MARK_COMPLETE = `
  INSERT INTO registry_index_state (program, kind, complete_at) VALUES ($1, $2, to_timestamp($3::float8 / 1000))
  ON CONFLICT (program, kind) DO UPDATE SET complete_at = excluded.complete_at
   WHERE registry_index_state.complete_at < excluded.complete_at`;

export type SqlRegistryAccountStoreOptions = Readonly<{
  /**
   * Rows per page at start-up. PGlite runs in the service's thread: a page of 1,000 agents held it
   * for up to ~95 ms, one of 150 for a few ms. Default 2,000 (PostgreSQL), 150 on PGlite.
   */
  pageRows?: number;
  /** Snapshot chunks (~1 MB each) per statement; default 8, 1 on PGlite (it runs in the service's thread). */
  snapshotChunksPerStatement?: number;
}>;

/**
 * The registry_accounts and registry_index_state tables (migration 9) of one program, on PostgreSQL
 * or PGlite, and its snapshots (migration 15, sql-registry-snapshot-store.ts).
 */
export function createSqlRegistryAccountStore(db: SqlQueryable, program: Address, options: SqlRegistryAccountStoreOptions = {}): RegistryAccountStore {
  const pageRows = options.pageRows ?? 2_000;
  /** Deletes each account unless stored from a later slot; how many went. */
  async function remove(kind: string, gone: readonly StoredAccount[]): Promise<number> {
    const params = [program, kind, arrayLiteral(gone.map((a) => a.address)), arrayLiteral(gone.map((a) => a.slot.toString()))];
    return (await retryDeadlock(() => db.query(DELETE, params))).length;
  }
  const snapshots = sqlRegistrySnapshotStore(db, program, { chunksPerStatement: options.snapshotChunksPerStatement ?? 8, rowsPerPage: pageRows });
  return Object.freeze({
    ...snapshots,
    async load(kind: string, onPage: (rows: readonly StoredAccountRow[]) => Promise<void>): Promise<number | null> {
      const [state] = await db.query(COMPLETE_AT, [program, kind]);
      if (!state) return null;
      let after = "";
      for (;;) {
        const rows = await db.query(LOAD, [program, kind, after, pageRows]);
        if (rows.length === 0) break;
        await onPage(rows.map(rowOf));
        after = String(rows[rows.length - 1]?.["address"]);
        if (rows.length < pageRows) break;
      }
      return Number(state["at"]);
    },
    async save(kind: string, accounts: readonly StoredAccount[]): Promise<void> {
      const kept = accounts.filter((a) => a.data !== null);
      const gone = accounts.filter((a) => a.data === null);
      if (kept.length > 0) {
        const params = [program, kind, arrayLiteral(kept.map((a) => a.address)), arrayLiteral(kept.map((a) => a.slot.toString())), arrayLiteral(kept.map((a) => Buffer.from(a.data as Uint8Array).toString("base64")))];
        await retryDeadlock(() => db.query(UPSERT, params));
      }
      if (gone.length > 0) await remove(kind, gone);
    },
    async sweep(kind: string, keep: (address: Address) => boolean, slot: bigint): Promise<number> {
      // Addresses only (not the bytes), a page at a time: the deletions of a page go before the next is read.
      let after = "";
      let swept = 0;
      for (;;) {
        const rows = await db.query(ADDRESSES, [program, kind, after, pageRows * 4]);
        const gone = rows.map((row) => String(row["address"]) as Address).filter((address) => !keep(address));
        if (gone.length > 0) swept += await remove(kind, gone.map((address) => ({ address, slot, data: null })));
        if (rows.length < pageRows * 4) return swept;
        after = String(rows[rows.length - 1]?.["address"]);
      }
    },
    async markComplete(kind: string, atMs: number): Promise<void> {
      await db.query(MARK_COMPLETE, [program, kind, String(atMs)]);
    },
  });
}

function rowOf(row: Readonly<Record<string, unknown>>): StoredAccountRow {
  const data = row["data"];
  if (!(data instanceof Uint8Array)) throw new Error("registry_accounts.data is not bytes");
  // Both drivers hand bytea over as a Uint8Array (postgres.js: a Buffer over a shared pool): copied out.
  return { address: String(row["address"]) as Address, slot: BigInt(String(row["slot"])), data: new Uint8Array(data) };
}
