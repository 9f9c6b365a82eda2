import { afterAll, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { silentLogger } from "../../src/application/ports/logger.ts";
import { buildService } from "../../src/composition/service.ts";
import { parseServiceConfig } from "../../src/infrastructure/config/service-config.ts";

const dataDir = mkdtempSync(join(tmpdir(), "failed-boot-"));

afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

function configOf(env: Record<string, string>) {
  const parsed = parseServiceConfig(env);
  if (!parsed.ok) throw new Error(`bad test config: ${parsed.errors.join("; ")}`);
  return parsed.config;
}

// buildService opens the store first (PGlite compiles while the rest is set up), so a boot that
// fails must close it: an open PGlite store keeps its directory locked in this process.
test("a boot refused after its store opened closes the store: the same process then boots on the same DATA_DIR (real PGlite)", async () => {
  const base = { DATA_DIR: dataDir, LOG_LEVEL: "silent", ROLE: "facilitator" };
  // The categories file is read after the store is open, so the store is held when this boot fails.
  const refused = { ...base, REGISTRY_CATEGORIES_FILE: join(dataDir, "no-such-categories.txt") };

  await expect(buildService(configOf(refused), refused, silentLogger)).rejects.toThrow("REGISTRY_CATEGORIES_FILE cannot be read");

  const service = await buildService(configOf(base), base, silentLogger);
  try {
    expect(await service.store.ping()).toBeUndefined();
  } finally {
    await service.close(5_000);
  }
}, 60_000);
