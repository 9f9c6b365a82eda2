import { afterAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openStore, pgliteDirectory } from "../../src/infrastructure/store/index.ts";
import { draft, draftPart } from "../../fixtures/settlement-drafts.ts";
import { describeSettlementStoreContract } from "./settlement-store-contract.ts";

// Real embedded PostgreSQL (PGlite, WebAssembly) persisted in temporary directories.
const tempDirs: string[] = [];
function tempDataDir(): string {
  const dir = mkdtempSync(join(tmpdir(), "settle-store-"));
  tempDirs.push(dir);
  return dir;
}
afterAll(() => {
  for (const dir of tempDirs) rmSync(dir, { recursive: true, force: true });
});

const contractDir = tempDataDir();
describeSettlementStoreContract("PGlite (real, temp directory)", {
  open: () => openStore({ dataDir: contractDir }),
  replicas: false,
});

describe("PGlite specifics (real PGlite)", () => {
  test("in memory: claims round-trip and duplicates are `exists`", async () => {
    const opened = await openStore({ inMemory: true });
    try {
      expect(opened.kind).toBe("pglite");
      const d = draft({ amount: 2n ** 60n + 3n });
      expect((await opened.settlements.claim(d)).outcome).toBe("claimed");
      expect((await opened.settlements.claim(d)).outcome).toBe("exists");
    } finally {
      await opened.close();
    }
  });

  test("data persists across close and reopen of the same directory", async () => {
    const dataDir = tempDataDir();
    const d = draft({ amount: 18_446_744_073_709_551_615n });
    const first = await openStore({ dataDir });
    await first.settlements.claim(d);
    await first.close();

    const second = await openStore({ dataDir });
    try {
      const stored = await second.settlements.get(d.key);
      expect(stored === null ? null : draftPart(stored)).toEqual(d);
      expect(stored?.state).toBe("pending");
      expect((await second.settlements.listUnresolved(d.network, 10)).map((r) => r.key)).toEqual([d.key]);
    } finally {
      await second.close();
    }
  });

  test("a second store on an open directory is refused until the first closes", async () => {
    const dataDir = tempDataDir();
    const first = await openStore({ dataDir });
    await expect(openStore({ dataDir })).rejects.toThrow(/already open/);
    await first.close();
    const second = await openStore({ dataDir });
    await second.close();
  });

  test("a lock left by a dead process is taken over", async () => {
    const dataDir = tempDataDir();
    // A pid far above any Linux pid_max, so no live process can hold it.
    await Bun.write(`${pgliteDirectory(dataDir)}.lock`, "2147483646");
    const opened = await openStore({ dataDir });
    await opened.close();
  });

  test("a lock held by another live process is refused", async () => {
    const dataDir = tempDataDir();
    // The parent of this test process is alive for the whole test and is not us.
    await Bun.write(`${pgliteDirectory(dataDir)}.lock`, String(process.ppid));
    await expect(openStore({ dataDir })).rejects.toThrow(/in use by process/);
  });

  test("close is idempotent", async () => {
    const opened = await openStore({ inMemory: true });
    await opened.close();
    await opened.close();
    await expect(opened.ping()).rejects.toThrow();
  });
});
