import { afterAll, describe, expect, test } from "bun:test";
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, relative, resolve } from "node:path";
import type { Address } from "@solana/kit";
import { DEVNET_USDC_MINT } from "../../src/domain/networks.ts";
import { DEFAULT_REGISTRY_PROGRAM_ID } from "../../src/domain/registry/pdas.ts";
import { buildSampleRegistry } from "../../src/infrastructure/registry/sample-agents/sample-agent-accounts.ts";
import { SAMPLE_REGISTRY_SOURCES, type SampleSeed, loadSampleSeed, sampleRegistryKey } from "../../src/infrastructure/registry/sample-agents/sample-registry-cache.ts";
import { ROOT } from "../walkthrough/support/spawn-service.ts";

/**
 * The sample registry kept in DATA_DIR between starts (sample-registry-cache.ts): a kept copy is
 * seeded only when its key matches, and the key covers everything the accounts are built from.
 */
const PROGRAM_ID = DEFAULT_REGISTRY_PROGRAM_ID;
const USDC = DEVNET_USDC_MINT as Address;
/** Another valid mint: its sample accounts (feedback's payment token) differ from USDC's. */
const OTHER_MINT = "So11111111111111111111111111111111111111112" as Address;

const scratch = mkdtempSync(join(tmpdir(), "sample-cache-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

function plain(seed: SampleSeed): unknown {
  return {
    agentCount: seed.agentCount,
    accounts: seed.accounts.map((a) => ({ address: a.address, data: Buffer.from(a.data).toString("hex") })),
    payable: { nftMint: seed.payable.nftMint, owner: seed.payable.owner, ownerUsdc: String(seed.payable.ownerUsdc) },
  };
}

async function built(usdcMint: Address): Promise<unknown> {
  const registry = await buildSampleRegistry(PROGRAM_ID, usdcMint);
  return plain({ agentCount: registry.agents.length, accounts: registry.accounts, payable: registry.payable });
}

describe("sample registry kept in DATA_DIR", () => {
  test("a restart reads back exactly what a build makes, from the file", async () => {
    const file = join(scratch, "roundtrip", "sample-agents.json");
    const first = await loadSampleSeed(PROGRAM_ID, USDC, file);
    expect(existsSync(file)).toBe(true);
    const second = await loadSampleSeed(PROGRAM_ID, USDC, file);
    expect(plain(first)).toEqual(await built(USDC));
    expect(plain(second)).toEqual(await built(USDC));
    // The second came from the file: what is in the file is what it returned.
    const kept = JSON.parse(readFileSync(file, "utf8")) as { accounts: { address: string }[] };
    expect(kept.accounts.map((a) => a.address)).toEqual(second.accounts.map((a) => a.address));
  });

  test("a copy kept for another mint is not seeded: the accounts are built again and the copy replaced", async () => {
    const file = join(scratch, "other-mint", "sample-agents.json");
    await loadSampleSeed(PROGRAM_ID, OTHER_MINT, file);
    const keptForOther = readFileSync(file, "utf8");
    const seed = await loadSampleSeed(PROGRAM_ID, USDC, file);
    expect(plain(seed)).toEqual(await built(USDC));
    expect(plain(seed)).not.toEqual(await built(OTHER_MINT));
    expect(readFileSync(file, "utf8")).not.toBe(keptForOther);
  });

  test("a copy with a key that does not match is not seeded, even with the right shape", async () => {
    const file = join(scratch, "stale", "sample-agents.json");
    await loadSampleSeed(PROGRAM_ID, USDC, file);
    const kept = JSON.parse(readFileSync(file, "utf8")) as { key: string; accounts: { address: string; data: string }[] };
    // What a copy from an older catalog looks like: other bytes under an older key.
    kept.key = "0".repeat(64);
    kept.accounts[0]!.data = Buffer.from("stale").toString("base64");
    writeFileSync(file, JSON.stringify(kept));
    expect(plain(await loadSampleSeed(PROGRAM_ID, USDC, file))).toEqual(await built(USDC));
  });

  test("a truncated or malformed file is built over, not trusted and not a crash", async () => {
    const file = join(scratch, "broken", "sample-agents.json");
    mkdirSync(dirname(file), { recursive: true });
    for (const text of ["{\"key\":", "null", JSON.stringify({ key: sampleRegistryKey(PROGRAM_ID, USDC), agentCount: 1, accounts: [{ address: 1 }], payable: {} })]) {
      writeFileSync(file, text);
      expect(plain(await loadSampleSeed(PROGRAM_ID, USDC, file))).toEqual(await built(USDC));
    }
  });

  test("the key changes with the program id, the mint and the content of every source", () => {
    const root = join(scratch, "sources");
    for (const source of SAMPLE_REGISTRY_SOURCES) cpSync(join(ROOT, source), join(root, source), { recursive: true });
    const before = sampleRegistryKey(PROGRAM_ID, USDC, root);
    expect(before).not.toBeNull();
    expect(sampleRegistryKey(PROGRAM_ID, OTHER_MINT, root)).not.toBe(before);
    expect(sampleRegistryKey(OTHER_MINT, USDC, root)).not.toBe(before);
    for (const file of ["src/infrastructure/registry/sample-agents/sample-agent-catalog.ts", "src/domain/registry/pdas.ts", "packages/solana-wire/src/wire-format.ts", "package-lock.json"]) {
      const path = join(root, file);
      const original = readFileSync(path, "utf8");
      writeFileSync(path, `${original}\n`);
      expect(sampleRegistryKey(PROGRAM_ID, USDC, root)).not.toBe(before);
      writeFileSync(path, original);
    }
    expect(sampleRegistryKey(PROGRAM_ID, USDC, root)).toBe(before);
  });

  test("the key's sources cover every project file the sample accounts are built from", () => {
    const transpiler = new Bun.Transpiler({ loader: "ts" });
    const covered = (file: string) =>
      SAMPLE_REGISTRY_SOURCES.some((source) => {
        const from = relative(join(ROOT, source), file);
        return from === "" || (!from.startsWith("..") && !from.includes("/"));
      });
    const seen = new Set<string>();
    const walk = (file: string): void => {
      if (seen.has(file)) return;
      seen.add(file);
      for (const { path } of transpiler.scanImports(readFileSync(file, "utf8"))) {
        if (path.startsWith(".")) walk(resolve(dirname(file), path));
        // The workspace's own packages are sources too; npm packages are pinned by the lockfile.
        else if (path === "@x84/solana-wire") walk(join(ROOT, "packages/solana-wire/src/index.ts"));
        else expect(path.startsWith("@x84/")).toBe(false);
      }
    };
    walk(join(ROOT, "src/infrastructure/registry/sample-agents/sample-agent-accounts.ts"));
    expect(seen.size).toBeGreaterThan(5);
    expect([...seen].filter((file) => !covered(file))).toEqual([]);
  });
});
