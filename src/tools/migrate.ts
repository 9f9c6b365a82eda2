/**
 * `npm run migrate` (in the container: `bun src/tools/migrate.ts`, the migration Job's command):
 * brings the database to this release's schema, then, when MIGRATE_GRANT_TO names the service's
 * own role, grants it exactly the statements the service runs (service-role-grants.ts). The
 * services then run with MIGRATE_ON_BOOT=false and a role that cannot change the schema.
 *
 * Reads DATABASE_URL (the schema owner's: this is the only process that needs that role) or, on a
 * laptop, DATA_DIR's embedded database. One connection, one transaction under the advisory lock the
 * service's own boot migration takes, so it is safe beside replicas that still migrate at boot.
 * Prints one line per step and exits 0 when the schema is current (also when nothing was pending).
 */
import { parseAppConfig } from "../infrastructure/config/app-config.ts";
import { applyMigrations, LATEST_SCHEMA_VERSION } from "../infrastructure/store/index.ts";
import { messageOf, openToolDatabase } from "./tool-database.ts";
import { grantServiceRole } from "../infrastructure/store/service-role-grants.ts";

type Env = Readonly<Record<string, string | undefined>>;
type Print = (line: string) => void;

export async function runMigrate(env: Env, print: Print): Promise<number> {
  const parsed = parseAppConfig(env);
  if (!parsed.ok) {
    for (const error of parsed.errors) print(`FAIL settings: ${error}`);
    return 1;
  }
  const config = parsed.config;
  const grantTo = env["MIGRATE_GRANT_TO"]?.trim() || null;
  // SECURITY: in a container without DATABASE_URL this would migrate a throwaway embedded database and report success.
  if (!config.DATABASE_URL && config.NODE_ENV === "production") {
    print("FAIL DATABASE_URL: required when NODE_ENV=production (the schema owner's URL)");
    return 1;
  }
  if (grantTo !== null && !config.DATABASE_URL) {
    print("FAIL MIGRATE_GRANT_TO: grants need PostgreSQL (DATABASE_URL); the embedded database has one user");
    return 1;
  }
  const opened = await openToolDatabase(config, print);
  if (opened === null) return 1;
  const { executor, target } = opened;
  try {
    const report = await applyMigrations(executor);
    print(report.applied.length > 0
      ? `ok   migrated ${target}: applied ${report.applied.join(", ")}; schema version ${report.version}`
      : `ok   ${target} is current: schema version ${report.version}, nothing to apply`);
    if (report.unknown.length > 0) print(`note the database has migrations from a newer release: ${report.unknown.join(", ")}`);
    if (report.version < LATEST_SCHEMA_VERSION) throw new Error(`schema version ${report.version} is below this release's ${LATEST_SCHEMA_VERSION}`);
    if (grantTo !== null) {
      const granted = await grantServiceRole(executor, grantTo);
      print(`ok   granted ${granted.role} SELECT, INSERT, UPDATE, DELETE on ${granted.tables} table(s) of schema ${granted.schema} (SELECT only on schema_migrations) and USAGE on ${granted.sequences} sequence(s)`);
    }
    return 0;
  } catch (error) {
    print(`FAIL migrate ${target}: ${messageOf(error)}`);
    return 1;
  } finally {
    await executor.close().catch(() => undefined);
  }
}


if (import.meta.main) {
  process.exit(await runMigrate(process.env, (line) => console.log(line)));
}
