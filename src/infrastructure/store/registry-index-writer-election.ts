import type { Address } from "@solana/kit";
import type { Logger } from "../../application/ports/logger.ts";
import type { RegistryAccountStore, RegistryIndexWriterElection } from "../../application/ports/registry-account-store.ts";
import type { SqlExecutor, SqlSession } from "./sql-executor.ts";
import { createSqlRegistryAccountStore, type SqlRegistryAccountStoreOptions } from "./sql-registry-account-store.ts";

/**
 * The advisory-lock class of the registry index writer (the first of the two-int4 key form, which
 * PostgreSQL keeps apart from the one-bigint form the migrations lock with); the second int is
 * hashtext(program), one writer per program.
 */
export const REGISTRY_WRITER_LOCK_CLASS = 0x78_38_34_69; // "x84i"

const TRY_LOCK = `SELECT pg_try_advisory_lock($1::int, hashtext($2)) AS held`;
// The lock lives as long as the session that took it: a session that was cut and reconnected
// under the same handle no longer holds it, which this sees.
const STILL_HELD = `
  SELECT count(*)::int AS held FROM pg_locks
   WHERE locktype = 'advisory' AND pid = pg_backend_pid() AND granted
     AND classid = ($1::int)::oid AND objid = (hashtext($2))::oid AND objsubid = 2`;
const UNLOCK = `SELECT pg_advisory_unlock($1::int, hashtext($2)) AS released`;

/**
 * The elected writer on PostgreSQL: the replica whose own session holds a session-level advisory
 * lock on (REGISTRY_WRITER_LOCK_CLASS, hashtext(program)) writes the index, through that session.
 * The others try again whenever they have something to write. When the holder dies or its
 * connection drops, PostgreSQL ends the session and the lock with it, and the next replica to try
 * takes over. One extra connection on the writer, none on the others between tries.
 */
export function createAdvisoryLockWriterElection(executor: SqlExecutor, program: Address, options: SqlRegistryAccountStoreOptions & Readonly<{ logger: Logger }>): RegistryIndexWriterElection {
  const log = options.logger.child({ component: "registry-writer" });
  const openSession = executor.session;
  if (!openSession) return createSoleWriter(createSqlRegistryAccountStore(executor, program, options));
  let held: { session: SqlSession; store: RegistryAccountStore } | null = null;
  let trying: Promise<Readonly<{ store: RegistryAccountStore; elected: boolean }> | null> | null = null;

  function drop(): void {
    // Ends the session, and with it the lock if an unlock failed.
    held?.session.release();
    held = null;
  }

  async function attempt(): Promise<Readonly<{ store: RegistryAccountStore; elected: boolean }> | null> {
    if (held) {
      try {
        const [row] = await held.session.query(STILL_HELD, [REGISTRY_WRITER_LOCK_CLASS, program]);
        if (Number(row?.["held"]) > 0) return { store: held.store, elected: false };
        log.warn("lost the registry index writer role (its session was cut)");
      } catch (error) {
        log.warn("lost the registry index writer role", { error: error instanceof Error ? error.message : String(error) });
      }
      drop();
    }
    const session = await openSession!.call(executor);
    try {
      const [row] = await session.query(TRY_LOCK, [REGISTRY_WRITER_LOCK_CLASS, program]);
      if (row?.["held"] !== true) {
        session.release();
        return null;
      }
    } catch (error) {
      session.release();
      throw error;
    }
    held = { session, store: createSqlRegistryAccountStore(session, program, options) };
    log.info("this replica now writes the registry index to the store");
    return { store: held.store, elected: true };
  }

  return Object.freeze({
    acquire() {
      trying ??= attempt().finally(() => {
        trying = null;
      });
      return trying;
    },
    async release() {
      await trying?.catch(() => null);
      if (!held) return;
      await held.session.query(UNLOCK, [REGISTRY_WRITER_LOCK_CLASS, program]).catch(() => undefined);
      drop();
    },
  });
}

/**
 * One process owns the store (PGlite: its directory lock keeps every other process out): it is
 * always the writer, and no other writer ever left anything to make whole.
 */
export function createSoleWriter(store: RegistryAccountStore): RegistryIndexWriterElection {
  const held = Object.freeze({ store, elected: false });
  return Object.freeze({ acquire: async () => held, release: async () => {} });
}
