/**
 * `npm run build:pglite-template`: builds the migrated PGlite data directory that a fresh DATA_DIR
 * is copied from (src/infrastructure/store/pglite-template.ts), under node_modules/.cache. npm's
 * postinstall runs it with `--postinstall`: then it skips a template that is already current and
 * never fails the install (the service runs initdb without a template, only slower).
 *
 *   bun src/tools/build-pglite-template.ts [--postinstall] [--force] [--out <directory>]
 */
import { existsSync, mkdirSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { applyMigrations } from "../infrastructure/store/migrate.ts";
import type { Migration } from "../infrastructure/store/migrations.ts";
import { MIGRATIONS } from "../infrastructure/store/migrations.ts";
import { createPgliteExecutor } from "../infrastructure/store/pglite-executor.ts";
import { DEFAULT_PGLITE_TEMPLATE, checkPgliteTemplate, pgliteTemplateManifest } from "../infrastructure/store/pglite-template.ts";

/**
 * Runs initdb and `migrations` in a new directory, exactly as openStore does for a new DATA_DIR,
 * shuts PGlite down cleanly, writes the manifest, and swaps the result in place of `target`.
 */
export async function buildPgliteTemplate(target: string, migrations: readonly Migration[] = MIGRATIONS): Promise<void> {
  const staging = `${target}.building-${process.pid}`;
  rmSync(staging, { recursive: true, force: true });
  mkdirSync(dirname(target), { recursive: true });
  try {
    const executor = await createPgliteExecutor({ directory: join(staging, "pglite") });
    try {
      await applyMigrations(executor, migrations);
      // Everything in the data files, so the copy starts without WAL to replay.
      await executor.exec("CHECKPOINT");
    } finally {
      await executor.close();
    }
    writeFileSync(join(staging, "manifest.json"), `${JSON.stringify(pgliteTemplateManifest(migrations), null, 2)}\n`);
    replaceDirectory(staging, target);
  } finally {
    rmSync(staging, { recursive: true, force: true });
  }
}

/** A copy running from the old template fails and falls back to initdb; it never sees a half-built one. */
function replaceDirectory(built: string, target: string): void {
  const old = `${target}.old-${process.pid}`;
  if (existsSync(target)) renameSync(target, old);
  renameSync(built, target);
  rmSync(old, { recursive: true, force: true });
}

async function main(argv: readonly string[]): Promise<number> {
  const postinstall = argv.includes("--postinstall");
  const outIndex = argv.indexOf("--out");
  const target = outIndex >= 0 ? (argv[outIndex + 1] ?? "") : DEFAULT_PGLITE_TEMPLATE;
  if (target === "") {
    console.error("--out needs a directory");
    return 2;
  }
  const current = checkPgliteTemplate(target);
  if (current.usable && current.missing.length === 0 && !argv.includes("--force")) {
    console.log(`PGlite template is current (migrations 1..${current.manifest.migrations.at(-1)?.version ?? 0}): ${target}`);
    return 0;
  }
  const started = performance.now();
  try {
    await buildPgliteTemplate(target);
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    if (!postinstall) throw error;
    console.warn(`PGlite template not built (${message}); a fresh DATA_DIR will run initdb instead, a few seconds slower`);
    return 0;
  }
  console.log(`PGlite template built in ${((performance.now() - started) / 1000).toFixed(1)} s (migrations 1..${MIGRATIONS.at(-1)?.version ?? 0}): ${target}`);
  return 0;
}

if (import.meta.main) process.exit(await main(process.argv.slice(2)));
