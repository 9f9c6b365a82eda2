import { describe, expect, test } from "bun:test";
import { createHash } from "node:crypto";
import { getAddressEncoder, type Address } from "@solana/kit";
import { createCategoryCatalog, categoryHash, DEFAULT_CATEGORY_NAMES } from "../../src/domain/registry/categories.ts";
import { findAgentPda, findConfigPda, findFeedbackPda, findServicePda } from "../../src/domain/registry/pdas.ts";
import { PROGRAM_ID, testAddress } from "./support/registry-fixtures.ts";

/** Solana's PDA rule recomputed with node:crypto: sha256(seeds..., bump, program, "ProgramDerivedAddress"). */
function pdaHash(seeds: readonly Uint8Array[], bump: number, program: Address): number[] {
  const h = createHash("sha256");
  for (const seed of seeds) h.update(seed);
  h.update(Uint8Array.of(bump)).update(new Uint8Array(getAddressEncoder().encode(program))).update("ProgramDerivedAddress");
  return [...h.digest()];
}

const bytesOf = (a: Address) => new Uint8Array(getAddressEncoder().encode(a));
const text = (s: string) => new TextEncoder().encode(s);

describe("registry PDAs (seeds from the IDL, checked against node:crypto)", () => {
  test("config, agent, service and feedback addresses hash from their IDL seeds", async () => {
    const mint = testAddress(1, 42);
    const reviewer = testAddress(4, 1);
    const nonce = Buffer.alloc(8);
    nonce.writeBigInt64LE(1_700_000_123n);
    const cases: [Promise<readonly [Address, number]>, Uint8Array[]][] = [
      [findConfigPda(PROGRAM_ID), [text("config")]],
      [findAgentPda(PROGRAM_ID, mint), [text("agent"), bytesOf(mint)]],
      [findServicePda(PROGRAM_ID, mint, "a2a"), [text("service"), bytesOf(mint), Uint8Array.of(1)]],
      [findFeedbackPda(PROGRAM_ID, mint, reviewer, 1_700_000_123n), [text("feedback"), bytesOf(mint), bytesOf(reviewer), new Uint8Array(nonce)]],
    ];
    for (const [pending, seeds] of cases) {
      const [address, bump] = await pending;
      expect([...bytesOf(address)]).toEqual(pdaHash(seeds, bump, PROGRAM_ID));
    }
  });
});

describe("categories (SHA-256 of the UTF-8 name)", () => {
  test("hash is lowercase hex SHA-256 of the name", () => {
    expect(categoryHash("defi")).toBe(createHash("sha256").update("defi", "utf8").digest("hex"));
    expect(categoryHash("défi")).toBe(createHash("sha256").update("défi", "utf8").digest("hex"));
  });

  test("catalog resolves names case-insensitively, passes hashes through, hashes unknown names", () => {
    const catalog = createCategoryCatalog(DEFAULT_CATEGORY_NAMES);
    expect(catalog.list.length).toBe(DEFAULT_CATEGORY_NAMES.length);
    expect(catalog.resolve("DeFi")).toBe(categoryHash("defi"));
    expect(catalog.resolve(categoryHash("whatever"))).toBe(categoryHash("whatever"));
    expect(catalog.resolve("custom-tag")).toBe(categoryHash("custom-tag"));
    expect(catalog.nameOf(categoryHash("trading"))).toBe("trading");
    expect(catalog.nameOf(categoryHash("custom-tag"))).toBeUndefined();
  });
});
