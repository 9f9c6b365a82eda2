import { describe, expect, test } from "bun:test";
import { createHash } from "node:crypto";
import { getAddressEncoder, getProgramDerivedAddress, type Address } from "@solana/kit";
import { SERVICE_TYPES } from "../../../src/domain/registry/agent-service.ts";
import { createCategoryCatalog, categoryHash, DEFAULT_CATEGORY_NAMES } from "../../../src/domain/registry/categories.ts";
import { findAgentPda, findConfigPda, findFeedbackPda, findPaymentRequirementPda, findServicePda } from "../../../src/domain/registry/pdas.ts";
import { PROGRAM_ID, testAddress } from "../../registry/support/registry-fixtures.ts";

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
      [findServicePda(PROGRAM_ID, mint, "a2a"), [text("service"), bytesOf(mint), text("a2a")]],
      [findPaymentRequirementPda(PROGRAM_ID, mint, "web"), [text("payment_req"), bytesOf(mint), text("web")]],
      [findFeedbackPda(PROGRAM_ID, mint, reviewer, 1_700_000_123n), [text("feedback"), bytesOf(mint), bytesOf(reviewer), new Uint8Array(nonce)]],
    ];
    for (const [pending, seeds] of cases) {
      const [address, bump] = await pending;
      expect([...bytesOf(address)]).toEqual(pdaHash(seeds, bump, PROGRAM_ID));
    }
  });
});

/**
 * The x84 SDK (x84protocol/sdk `src/pda.ts` and `src/constants.ts`, commit 70291ddb) derives
 * AgentService as `[Buffer.from("service"), nftMint.toBuffer(), Buffer.from(serviceTypeSeed)]` and
 * PaymentRequirement as `[Buffer.from("payment_req"), nftMint.toBuffer(), Buffer.from(serviceTypeSeed)]`
 * with `SERVICE_TYPE_SEEDS = {MCP: "mcp", A2A: "a2a", API: "api", Web: "web"}`. The same seed bytes
 * through kit's getProgramDerivedAddress (what PublicKey.findProgramAddressSync computes) are the
 * expected addresses here, and literal addresses pin the result so the test cannot pass by construction.
 */
describe("service and payment-requirement PDAs as the x84 SDK derives them", () => {
  const SDK_SEEDS = { SERVICE: "service", PAYMENT_REQ: "payment_req" } as const;
  const sdkFind = (prefix: string, mint: Address, serviceTypeSeed: string) =>
    getProgramDerivedAddress({ programAddress: PROGRAM_ID, seeds: [Buffer.from(prefix), Buffer.from(bytesOf(mint)), Buffer.from(serviceTypeSeed)] });

  test("every service type, for several mints, gives the SDK's service and payment-requirement addresses", async () => {
    for (const mint of [testAddress(1, 42), testAddress(1, 7), "DFrYCE6FKdEtXfA7MQrSq4VM4ivxyHZwUCuK7osApgxC" as Address]) {
      for (const type of SERVICE_TYPES) {
        expect(await findServicePda(PROGRAM_ID, mint, type)).toEqual(await sdkFind(SDK_SEEDS.SERVICE, mint, type));
        expect(await findPaymentRequirementPda(PROGRAM_ID, mint, type)).toEqual(await sdkFind(SDK_SEEDS.PAYMENT_REQ, mint, type));
      }
    }
  });

  test("pinned addresses (computed once with an independent findProgramAddress: node:crypto SHA-256 and an ed25519 curve check)", async () => {
    const mint = "DFrYCE6FKdEtXfA7MQrSq4VM4ivxyHZwUCuK7osApgxC" as Address;
    const plain = async (pending: Promise<readonly [Address, number]>) => {
      const [address, bump] = await pending;
      return [address as string, bump];
    };
    expect(await plain(findServicePda(PROGRAM_ID, mint, "a2a"))).toEqual(["2sfKmuehBnCWnju5TZaFihGjP3uLhQYE3MPMBMmntqPu", 253]);
    expect(await plain(findServicePda(PROGRAM_ID, mint, "mcp"))).toEqual(["6YLD1jmEr4jJER2c6HLHa7WdKQ8NB5k4ajvpn64d7NBM", 254]);
    expect(await plain(findPaymentRequirementPda(PROGRAM_ID, mint, "a2a"))).toEqual(["Co4rv8wsM2fuw4MDXuJThTWKRyAgdMaZgj8gvcE7bNSG", 255]);
    expect(await plain(findPaymentRequirementPda(PROGRAM_ID, mint, "api"))).toEqual(["fEbdVnqJkYgTLwBQDVhScYhSRquogDboCm3qu5GTUMZ", 250]);
    // The one-byte seed the service used before (the Borsh index of A2A) names another account.
    const [byIndex] = await getProgramDerivedAddress({ programAddress: PROGRAM_ID, seeds: [text("service"), bytesOf(mint), Uint8Array.of(1)] });
    expect(byIndex).not.toBe("2sfKmuehBnCWnju5TZaFihGjP3uLhQYE3MPMBMmntqPu" as Address);
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
