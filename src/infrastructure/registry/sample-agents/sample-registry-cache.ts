/**
 * The sample registry's accounts kept in DATA_DIR between starts. Building them derives ~80 PDAs
 * and key pairs with kit's pure-JavaScript curve code, cold on every start (50-100 ms of the main
 * thread, most of a restart's seeding); reading them back is a 30 KB JSON file.
 *
 * A kept copy is used only when its key matches: a SHA-256 over the program id, the payment mint,
 * every source file the accounts are built from (SAMPLE_REGISTRY_SOURCES: the catalog, the
 * builder, the registry codecs and PDAs, the wire package) and the lockfile (kit's and noble's
 * versions). Anything else (a changed file, another mint, a newer kit, an unreadable or malformed
 * file) builds the accounts again and replaces the copy, so a stale copy is never seeded.
 * tests/demo/sample-registry-cache.test.ts checks that these sources cover every file the builder
 * imports, so a new import cannot escape the key.
 */
import { Buffer } from "node:buffer";
import { createHash } from "node:crypto";
import { mkdirSync, readFileSync, readdirSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import type { Address } from "@solana/kit";
import type { SampleAccount } from "./sample-agent-accounts.ts";

/** What seeding needs of the sample registry (seed-sample-agents.ts). */
export type SampleSeed = Readonly<{
  agentCount: number;
  accounts: readonly SampleAccount[];
  payable: Readonly<{ nftMint: Address; owner: Address; ownerUsdc: bigint | null }>;
}>;

/** Bumped when the file's layout changes. */
const FORMAT = "sample-registry-cache/1";

const REPOSITORY_ROOT = fileURLToPath(new URL("../../../../", import.meta.url));

/** Directories (every .ts file in them) and files, relative to the repository, the key covers. */
export const SAMPLE_REGISTRY_SOURCES: readonly string[] = Object.freeze([
  "src/infrastructure/registry/sample-agents",
  "src/domain/registry",
  "packages/solana-wire/src",
  "package-lock.json",
]);

/** The cache key for these inputs; null when a source cannot be read (then nothing is cached). */
export function sampleRegistryKey(programId: Address, usdcMint: Address, root: string = REPOSITORY_ROOT): string | null {
  const hash = createHash("sha256").update(`${FORMAT}\n${programId}\n${usdcMint}\n`);
  try {
    for (const source of SAMPLE_REGISTRY_SOURCES) {
      for (const file of sourceFiles(join(root, source))) hash.update(`${file.slice(root.length)}\n`).update(readFileSync(file)).update("\n");
    }
  } catch {
    return null;
  }
  return hash.digest("hex");
}

function sourceFiles(path: string): string[] {
  if (!path.endsWith(".json") && !path.endsWith(".ts")) {
    return readdirSync(path)
      .filter((name) => name.endsWith(".ts"))
      .sort()
      .map((name) => join(path, name));
  }
  return [path];
}

/**
 * The sample seed for a program and mint: the kept copy in `cacheFile` when its key matches,
 * otherwise built (sample-agent-accounts.ts) and written there for the next start. A write that
 * fails costs only the next start's build.
 */
export async function loadSampleSeed(programId: Address, usdcMint: Address, cacheFile: string | null): Promise<SampleSeed> {
  const key = cacheFile === null ? null : sampleRegistryKey(programId, usdcMint);
  if (cacheFile !== null && key !== null) {
    const kept = readKept(cacheFile, key);
    if (kept) return kept;
  }
  // Loaded only on a miss: the builder's modules and kit's key derivation stay out of a restart.
  const { buildSampleRegistry } = await import("./sample-agent-accounts.ts");
  const registry = await buildSampleRegistry(programId, usdcMint);
  const seed: SampleSeed = Object.freeze({
    agentCount: registry.agents.length,
    accounts: registry.accounts,
    payable: Object.freeze({ nftMint: registry.payable.nftMint, owner: registry.payable.owner, ownerUsdc: registry.payable.ownerUsdc }),
  });
  if (cacheFile !== null && key !== null) writeKept(cacheFile, key, seed);
  return seed;
}

type KeptFile = {
  key: string;
  agentCount: number;
  accounts: { address: string; data: string }[];
  payable: { nftMint: string; owner: string; ownerUsdc: string | null };
};

function readKept(cacheFile: string, key: string): SampleSeed | null {
  let kept: KeptFile;
  try {
    kept = JSON.parse(readFileSync(cacheFile, "utf8")) as KeptFile;
  } catch {
    return null;
  }
  if (!isKept(kept) || kept.key !== key) return null;
  return Object.freeze({
    agentCount: kept.agentCount,
    accounts: Object.freeze(kept.accounts.map((a) => Object.freeze({ address: a.address as Address, data: new Uint8Array(Buffer.from(a.data, "base64")) }))),
    payable: Object.freeze({
      nftMint: kept.payable.nftMint as Address,
      owner: kept.payable.owner as Address,
      ownerUsdc: kept.payable.ownerUsdc === null ? null : BigInt(kept.payable.ownerUsdc),
    }),
  });
}

function isKept(value: unknown): value is KeptFile {
  if (typeof value !== "object" || value === null) return false;
  const v = value as Partial<KeptFile>;
  const text = (x: unknown): x is string => typeof x === "string";
  return (
    text(v.key) &&
    Number.isSafeInteger(v.agentCount) &&
    Array.isArray(v.accounts) &&
    v.accounts.every((a) => typeof a === "object" && a !== null && text(a.address) && text(a.data)) &&
    typeof v.payable === "object" &&
    v.payable !== null &&
    text(v.payable.nftMint) &&
    text(v.payable.owner) &&
    (v.payable.ownerUsdc === null || (text(v.payable.ownerUsdc) && /^\d+$/.test(v.payable.ownerUsdc)))
  );
}

function writeKept(cacheFile: string, key: string, seed: SampleSeed): void {
  const kept: KeptFile = {
    key,
    agentCount: seed.agentCount,
    accounts: seed.accounts.map((a) => ({ address: a.address, data: Buffer.from(a.data).toString("base64") })),
    payable: { nftMint: seed.payable.nftMint, owner: seed.payable.owner, ownerUsdc: seed.payable.ownerUsdc === null ? null : String(seed.payable.ownerUsdc) },
  };
  // Written beside and renamed over: a start that reads it never sees half a file.
  const partial = `${cacheFile}.${process.pid}.tmp`;
  try {
    mkdirSync(dirname(cacheFile), { recursive: true, mode: 0o700 });
    writeFileSync(partial, JSON.stringify(kept), { mode: 0o600 });
    renameSync(partial, cacheFile);
  } catch {
    // Only the next start's time depends on it.
    rmSync(partial, { force: true });
  }
}
