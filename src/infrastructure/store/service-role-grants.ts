import type { SqlQueryable } from "./sql-executor.ts";

/** A PostgreSQL role name as `MIGRATE_GRANT_TO` may give it: a plain identifier, quoted when used. */
const ROLE_NAME = /^[A-Za-z_][A-Za-z0-9_$-]{0,62}$/;

export type GrantReport = Readonly<{ role: string; schema: string; tables: number; sequences: number }>;

/**
 * SECURITY: the service's own role gets exactly the statements the service runs, so a stolen
 * service credential cannot change or drop the schema: SELECT, INSERT, UPDATE and DELETE on every
 * table of the schema the migrations created (SELECT only on schema_migrations, which the service
 * reads at boot to check the version) and USAGE on its sequences (identity columns). No CREATE,
 * ALTER, DROP, TRUNCATE, REFERENCES or TRIGGER. Run by the migrator after every migration, so a
 * table a later migration adds is granted in the same run. Idempotent.
 */
export async function grantServiceRole(db: SqlQueryable, role: string): Promise<GrantReport> {
  if (!ROLE_NAME.test(role)) throw new Error("MIGRATE_GRANT_TO: not a plain PostgreSQL role name (letters, digits, _ $ -; at most 63)");
  const exists = await db.query("SELECT 1 FROM pg_roles WHERE rolname = $1", [role]);
  if (exists.length === 0) throw new Error(`MIGRATE_GRANT_TO: the role ${role} does not exist (create it first: docs/deploy.md, "Database roles")`);
  const schema = String((await db.query("SELECT current_schema() AS schema"))[0]?.["schema"] ?? "");
  if (schema === "") throw new Error("no current schema: the migrator's search_path names none");
  const quotedRole = `"${role}"`;
  const quotedSchema = `"${schema.replaceAll('"', '""')}"`;
  // Privileges from an earlier grant that this list no longer includes are taken back first.
  await db.exec(`
    REVOKE ALL ON ALL TABLES IN SCHEMA ${quotedSchema} FROM ${quotedRole};
    REVOKE ALL ON ALL SEQUENCES IN SCHEMA ${quotedSchema} FROM ${quotedRole};
    GRANT USAGE ON SCHEMA ${quotedSchema} TO ${quotedRole};
    GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA ${quotedSchema} TO ${quotedRole};
    REVOKE INSERT, UPDATE, DELETE ON ${quotedSchema}.schema_migrations FROM ${quotedRole};
    GRANT USAGE ON ALL SEQUENCES IN SCHEMA ${quotedSchema} TO ${quotedRole};
  `);
  const counts = await db.query(
    `SELECT (SELECT count(*) FROM pg_tables WHERE schemaname = $1)::integer AS tables,
            (SELECT count(*) FROM pg_sequences WHERE schemaname = $1)::integer AS sequences`,
    [schema],
  );
  return Object.freeze({ role, schema, tables: Number(counts[0]?.["tables"] ?? 0), sequences: Number(counts[0]?.["sequences"] ?? 0) });
}
