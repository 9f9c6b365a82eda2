import { afterAll, expect, test } from "bun:test";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openStore, pgliteDirectory } from "../../src/infrastructure/store/index.ts";

// Real PGlite: the buffer pool that decides most of its resident memory (docs/performance.md).
const dataDir = mkdtempSync(join(tmpdir(), "pglite-memory-"));
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

test("PGlite runs with a 16MB buffer pool, set at start-up and not written into the data directory", async () => {
  const store = await openStore({ dataDir });
  try {
    expect(await store.executor.query("SHOW shared_buffers")).toEqual([{ shared_buffers: "16MB" }]);
  } finally {
    await store.close();
  }
  // Still initdb's value on disk: plain PGlite (or a later release of this service) opens it as before.
  expect(readFileSync(join(pgliteDirectory(dataDir), "postgresql.conf"), "utf8")).toMatch(/^shared_buffers = 128MB/m);
});
