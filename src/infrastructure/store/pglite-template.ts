import { createHash } from "node:crypto";
import { chmodSync, cpSync, existsSync, readFileSync, readdirSync, renameSync, rmSync, rmdirSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import type { Migration } from "./migrations.ts";
import { MIGRATIONS } from "./migrations.ts";

/**
 * A migrated PGlite data directory, built once per install so that a fresh DATA_DIR starts by
 * copying it instead of running initdb (seconds of CPU and a 1 GB resident peak in WebAssembly).
 * `src/tools/build-pglite-template.ts` builds it (npm's postinstall, or `npm run
 * build:pglite-template`) with the service's own openStore, so it holds exactly what initdb plus
 * applyMigrations produce. Layout, like a DATA_DIR:
 *
 *   <template>/pglite/         a cleanly shut down PGlite data directory
 *   <template>/manifest.json   the PGlite version and the migrations it holds
 *
 * It is a cache, not a source file: initdb stamps each cluster with a random system identifier
 * and times, so it is never byte-for-byte reproducible, and it is ~40 MB on disk.
 */
export const DEFAULT_PGLITE_TEMPLATE: string = fileURLToPath(
  new URL("../../../node_modules/.cache/agent-registry-facilitator/pglite-template", import.meta.url),
);

export type MigrationStamp = Readonly<{ version: number; name: string; sha256: string }>;

export type PgliteTemplateManifest = Readonly<{
  /** The @electric-sql/pglite version that wrote the files: another version may run another PostgreSQL major. */
  pglite: string;
  /** The migrations applied, in order, with a hash of their SQL. */
  migrations: readonly MigrationStamp[];
}>;

export type PgliteTemplateCheck =
  | Readonly<{ usable: true; dataDirectory: string; manifest: PgliteTemplateManifest; missing: readonly number[] }>
  | Readonly<{ usable: false; reason: string }>;

/** The manifest a template built now, with these migrations, carries. */
export function pgliteTemplateManifest(migrations: readonly Migration[] = MIGRATIONS): PgliteTemplateManifest {
  return Object.freeze({
    pglite: installedPgliteVersion(),
    migrations: Object.freeze(migrations.map(stampOf)),
  });
}

/**
 * Whether a template may seed a new database for code with `migrations`. Usable when it was
 * written by the installed PGlite and its migrations are a prefix of ours (same versions, names
 * and SQL): the `missing` ones are then applied on top by openStore, as on any older database.
 * A template with a migration we do not know (another branch, a newer release) is not used.
 */
export function checkPgliteTemplate(template: string, migrations: readonly Migration[] = MIGRATIONS): PgliteTemplateCheck {
  const dataDirectory = join(template, "pglite");
  let manifest: PgliteTemplateManifest;
  try {
    manifest = parseManifest(readFileSync(join(template, "manifest.json"), "utf8"));
  } catch (error) {
    return { usable: false, reason: `no readable manifest.json in ${template} (${messageOf(error)})` };
  }
  if (!existsSync(join(dataDirectory, "PG_VERSION"))) return { usable: false, reason: `${dataDirectory} holds no database` };
  const installed = installedPgliteVersion();
  if (manifest.pglite !== installed) {
    return { usable: false, reason: `built by @electric-sql/pglite ${manifest.pglite}, ${installed} is installed` };
  }
  const ours = migrations.map(stampOf);
  for (const [i, stamp] of manifest.migrations.entries()) {
    const expected = ours[i];
    if (expected === undefined || expected.version !== stamp.version || expected.name !== stamp.name || expected.sha256 !== stamp.sha256) {
      return { usable: false, reason: `its migration ${stamp.version} (${stamp.name}) is not this code's migration ${expected?.version ?? "(none)"}` };
    }
  }
  return { usable: true, dataDirectory, manifest, missing: ours.slice(manifest.migrations.length).map((m) => m.version) };
}

/** True when `directory` holds no PGlite database yet (absent or empty), so it may be seeded. */
export function isEmptyDirectory(directory: string): boolean {
  return !existsSync(directory) || readdirSync(directory).length === 0;
}

/**
 * Copies a template's data directory to `directory`, which must not hold anything yet. The copy
 * goes to a sibling first and is renamed into place, so a crash mid-copy leaves no half database
 * behind (a leftover sibling is removed by the next attempt). Caller holds the directory lock.
 */
export function copyPgliteTemplate(templateDataDirectory: string, directory: string): void {
  const staging = `${directory}.from-template`;
  rmSync(staging, { recursive: true, force: true });
  try {
    cpSync(templateDataDirectory, staging, { recursive: true, errorOnExist: true, force: false });
    // An empty directory (made by an earlier start) would make the rename fail.
    if (existsSync(directory)) rmdirSync(directory);
    renameSync(staging, directory);
    chmodSync(directory, 0o700);
  } catch (error) {
    rmSync(staging, { recursive: true, force: true });
    throw error;
  }
}

/** The version in @electric-sql/pglite's package.json, next to the module this process loads. */
export function installedPgliteVersion(): string {
  // import.meta.resolve gives .../@electric-sql/pglite/dist/index.js; its package.json is two levels up.
  const entry = fileURLToPath(import.meta.resolve("@electric-sql/pglite"));
  const pkg: unknown = JSON.parse(readFileSync(join(dirname(dirname(entry)), "package.json"), "utf8"));
  const version = typeof pkg === "object" && pkg !== null && "version" in pkg ? pkg.version : undefined;
  if (typeof version !== "string") throw new Error("@electric-sql/pglite's package.json has no version");
  return version;
}

function stampOf(migration: Migration): MigrationStamp {
  return Object.freeze({
    version: migration.version,
    name: migration.name,
    sha256: createHash("sha256").update(migration.sql).digest("hex"),
  });
}

function parseManifest(text: string): PgliteTemplateManifest {
  const value: unknown = JSON.parse(text);
  if (typeof value !== "object" || value === null) throw new Error("not an object");
  const { pglite, migrations } = value as Record<string, unknown>;
  if (typeof pglite !== "string" || !Array.isArray(migrations)) throw new Error("pglite or migrations missing");
  return Object.freeze({ pglite, migrations: Object.freeze(migrations.map(parseStamp)) });
}

function parseStamp(value: unknown): MigrationStamp {
  const { version, name, sha256 } = (typeof value === "object" && value !== null ? value : {}) as Record<string, unknown>;
  if (typeof version !== "number" || typeof name !== "string" || typeof sha256 !== "string") throw new Error("bad migration entry");
  return Object.freeze({ version, name, sha256 });
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
