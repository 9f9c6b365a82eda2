import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { PGlite } from "@electric-sql/pglite";
import { mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { LogFields, Logger } from "../../src/application/ports/logger.ts";
import { LATEST_SCHEMA_VERSION, MIGRATIONS, type OpenedStore, openStore, pgliteDirectory } from "../../src/infrastructure/store/index.ts";
import {
  DEFAULT_PGLITE_TEMPLATE,
  checkPgliteTemplate,
  installedPgliteVersion,
  pgliteTemplateManifest,
} from "../../src/infrastructure/store/pglite-template.ts";
import { buildPgliteTemplate } from "../../src/tools/build-pglite-template.ts";
import { draft, draftPart } from "../../fixtures/settlement-drafts.ts";
import { dumpSchema } from "./schema-dump.ts";

// Real PGlite in temporary directories; the template under test is the one `npm ci` built.
const tempDirs: string[] = [];
function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), "pglite-template-"));
  tempDirs.push(dir);
  return dir;
}

function recordingLogger(lines: string[]): Logger {
  const write = (message: string, fields?: LogFields) => void lines.push(`${message} ${JSON.stringify(fields ?? {})}`);
  const logger: Logger = { debug: write, info: write, warn: write, error: write, child: () => logger };
  return logger;
}

/** Every file of a directory with its size and modification time, to show a copy left it alone. */
function listing(directory: string): string[] {
  return readdirSync(directory, { recursive: true, encoding: "utf8" })
    .map((name) => {
      const stat = statSync(join(directory, name));
      return `${name} ${stat.size} ${stat.mtimeMs}`;
    })
    .sort();
}

/** The old path and the reference: initdb in a new directory, then applyMigrations. */
let initdb: OpenedStore;
let initdbSchema: Awaited<ReturnType<typeof dumpSchema>>;
beforeAll(async () => {
  initdb = await openStore({ dataDir: tempDir(), pgliteTemplate: null });
  initdbSchema = await dumpSchema(initdb.executor);
});
afterAll(async () => {
  await initdb.close();
  for (const dir of tempDirs) rmSync(dir, { recursive: true, force: true });
});

describe("PGlite template (real PGlite, the template under node_modules/.cache)", () => {
  test("the installed template holds every migration (after appending one: npm run build:pglite-template)", () => {
    const check = checkPgliteTemplate(DEFAULT_PGLITE_TEMPLATE);
    if (!check.usable) throw new Error(`${check.reason}. Build it: npm run build:pglite-template`);
    if (check.missing.length > 0) {
      throw new Error(`the template lacks migrations ${check.missing.join(", ")}. Rebuild it: npm run build:pglite-template`);
    }
    expect(check.manifest).toEqual(pgliteTemplateManifest(MIGRATIONS));
  });

  test("a new store copied from it has the schema and schema_migrations of initdb + applyMigrations", async () => {
    const lines: string[] = [];
    const store = await openStore({ dataDir: tempDir(), logger: recordingLogger(lines) });
    try {
      expect(lines.some((line) => line.startsWith("store created from template"))).toBe(true);
      expect(lines.some((line) => line.startsWith("store migrated"))).toBe(false);
      expect(await dumpSchema(store.executor)).toEqual(initdbSchema);
      expect(initdbSchema["migrations"]).toEqual(MIGRATIONS.map((m) => ({ version: m.version, name: m.name })));
    } finally {
      await store.close();
    }
  });

  test("the copy is a normal PGlite directory: data persists, plain PGlite opens it, the template is untouched", async () => {
    const before = listing(DEFAULT_PGLITE_TEMPLATE);
    const dataDir = tempDir();
    const d = draft({ amount: 18_446_744_073_709_551_615n });
    const first = await openStore({ dataDir });
    await first.settlements.claim(d);
    await first.close();

    const plain = await PGlite.create({ dataDir: pgliteDirectory(dataDir) });
    try {
      expect((await plain.query<{ amount: string }>("SELECT amount::text AS amount FROM settlements")).rows).toEqual([{ amount: d.amount.toString() }]);
    } finally {
      await plain.close();
    }
    const again = await openStore({ dataDir });
    try {
      const stored = await again.settlements.get(d.key);
      expect(stored === null ? null : draftPart(stored)).toEqual(d);
    } finally {
      await again.close();
    }
    expect(listing(DEFAULT_PGLITE_TEMPLATE)).toEqual(before);
  });

  test("a template built before the newest migration still seeds a store; openStore applies the rest on top", async () => {
    const older = join(tempDir(), "template");
    await buildPgliteTemplate(older, MIGRATIONS.slice(0, -1));
    const check = checkPgliteTemplate(older);
    expect(check.usable && check.missing).toEqual([LATEST_SCHEMA_VERSION]);

    const lines: string[] = [];
    const store = await openStore({ dataDir: tempDir(), pgliteTemplate: older, logger: recordingLogger(lines) });
    try {
      expect(lines.some((line) => line.startsWith("store created from template"))).toBe(true);
      expect(lines.some((line) => line.startsWith("store migrated") && line.includes(`"applied":[${LATEST_SCHEMA_VERSION}]`))).toBe(true);
      expect(await store.schemaVersion()).toBe(LATEST_SCHEMA_VERSION);
      expect(await dumpSchema(store.executor)).toEqual(initdbSchema);
    } finally {
      await store.close();
    }
  });

  test("a template that does not fit is not used and initdb runs, with the reason logged", async () => {
    const lines: string[] = [];
    const store = await openStore({ dataDir: tempDir(), pgliteTemplate: join(tempDir(), "absent"), logger: recordingLogger(lines) });
    try {
      expect(lines.some((line) => line.startsWith("no usable store template") && line.includes("manifest.json"))).toBe(true);
      expect(lines.some((line) => line.startsWith("store created from template"))).toBe(false);
      expect(await dumpSchema(store.executor)).toEqual(initdbSchema);
    } finally {
      await store.close();
    }
  });
});

describe("checkPgliteTemplate (manifests only, no database)", () => {
  /** A directory that looks like a template (PG_VERSION present) with the given manifest. */
  function fakeTemplate(manifest: unknown): string {
    const dir = join(tempDir(), "template");
    mkdirSync(join(dir, "pglite"), { recursive: true });
    writeFileSync(join(dir, "pglite", "PG_VERSION"), "17\n");
    writeFileSync(join(dir, "manifest.json"), JSON.stringify(manifest));
    return dir;
  }
  const current = pgliteTemplateManifest(MIGRATIONS);

  test("the current manifest is usable with nothing missing; a prefix is usable with the rest missing", () => {
    expect(checkPgliteTemplate(fakeTemplate(current))).toMatchObject({ usable: true, missing: [] });
    const prefix = { ...current, migrations: current.migrations.slice(0, 2) };
    expect(checkPgliteTemplate(fakeTemplate(prefix))).toMatchObject({ usable: true, missing: MIGRATIONS.slice(2).map((m) => m.version) });
  });

  test.each([
    ["another PGlite version", { ...current, pglite: "0.0.1" }, /built by @electric-sql\/pglite 0\.0\.1/],
    ["a migration this code does not have", { ...current, migrations: [...current.migrations, { version: 999, name: "future", sha256: "0" }] }, /migration 999/],
    ["an edited migration", { ...current, migrations: current.migrations.map((m, i) => (i === 0 ? { ...m, sha256: "edited" } : m)) }, /migration 1 /],
    ["a malformed manifest", { pglite: 1 }, /manifest\.json/],
  ])("not usable: %s", (_name, manifest, reason) => {
    const check = checkPgliteTemplate(fakeTemplate(manifest));
    expect(check.usable).toBe(false);
    expect(check.usable ? "" : check.reason).toMatch(reason);
  });

  test("not usable without a database in it", () => {
    const dir = fakeTemplate(current);
    rmSync(join(dir, "pglite", "PG_VERSION"));
    expect(checkPgliteTemplate(dir)).toMatchObject({ usable: false, reason: expect.stringMatching(/holds no database/) });
  });

  test("the installed PGlite version is read from its package", () => {
    expect(installedPgliteVersion()).toMatch(/^\d+\.\d+\.\d+/);
  });
});
