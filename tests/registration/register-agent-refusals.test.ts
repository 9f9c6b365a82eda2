/**
 * SECURITY: registrations our config authority must never sign, each a 400 in the error shape before
 * any signature (the rig's config authority records every request to sign) and before the metadata
 * fetch: text over the program's byte limits or the packet limit, hidden characters that would be
 * written on chain, and owners that can never pay or sign (programs, PDAs, program-owned accounts).
 * Real embedded ledger (litesvm), the registry's error layer and register route through app.handle.
 */
import { beforeAll, describe, expect, test } from "bun:test";
import { type Address, generateKeyPairSigner, getBase64Encoder } from "@solana/kit";
import { registerAgent } from "../../src/application/registry/register-agent.ts";
import { findConfigPda } from "../../src/domain/registry/pdas.ts";
import { SOLANA_PACKET_BYTES } from "../../src/domain/verification/verification-policy.ts";
import { RIG_PROGRAM_ID, type RegistrationRig, type Reply, createRegistrationRig } from "./support/registration-rig.ts";

const URI = "https://agents.example.com/a.json";
const TOKEN = "TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA" as Address;

let rig: RegistrationRig;
let owner: Address;
beforeAll(async () => {
  rig = await createRegistrationRig();
  owner = (await generateKeyPairSigner()).address;
});

/** The reply is a 400 in the error shape whose message says `expected`, and nothing was signed or fetched. */
async function expectRefusedUnsigned(body: unknown, expected: string): Promise<Reply> {
  const [signedBefore, fetchedBefore] = [rig.signatureRequests(), rig.fetches()];
  const reply = await rig.register(body);
  expect(reply).toMatchObject({ status: 400, body: { statusCode: 400, error: "Bad Request" } });
  expect([reply.body["message"]].flat().join("\n")).toContain(expected);
  expect(rig.signatureRequests()).toBe(signedBefore);
  expect(rig.fetches()).toBe(fetchedBefore);
  return reply;
}

describe("size: lengths are UTF-8 bytes and the transaction fits the packet", () => {
  test("an emoji name with a 200-character non-ASCII URI is a 400 naming the bytes (it was signed at over 1,300 bytes)", async () => {
    const uri = `https://agents.example.com/${"é".repeat(173)}`;
    expect([...uri].length).toBe(200);
    const reply = await expectRefusedUnsigned({ name: "😀".repeat(32), ownerAddress: owner, metadataUri: uri, tags: ["a", "b", "c", "d", "e"] }, "name is 128 bytes in UTF-8");
    expect(reply.body["message"]).toEqual([expect.stringContaining("name is 128 bytes"), expect.stringContaining("metadataUri is 373 bytes")]);
  });

  test("the largest request the rules admit is signed and fits: 64-byte emoji name, 200-byte URI, 5 free 32-character tags", async () => {
    const feedbackAuthority = (await generateKeyPairSigner()).address;
    const signedBefore = rig.signatureRequests();
    const reply = await rig.register({
      name: "😀".repeat(16),
      ownerAddress: owner,
      metadataUri: `https://agents.example.com/${"a".repeat(173)}`,
      tags: Array.from({ length: 5 }, (_, i) => `${i}`.repeat(32)),
      feedbackAuthority,
    });
    expect(reply.status).toBe(201);
    const wire = getBase64Encoder().encode(String(reply.body["transaction"]));
    expect(wire.length).toBeLessThanOrEqual(SOLANA_PACKET_BYTES);
    expect(rig.signatureRequests()).toBe(signedBefore + 1);
  });

  test("past the HTTP rules, the use case itself refuses a transaction over 1,232 bytes before signing (any caller)", async () => {
    const signedBefore = rig.signatureRequests();
    const result = await registerAgent({ name: "n".repeat(700), ownerAddress: owner, metadataUri: URI, tags: [] }, rig.deps);
    if (result.ok) throw new Error("a 700-byte name was signed");
    expect(result.refusal).toBe("invalid");
    expect(result.message).toContain("over Solana's 1232-byte packet limit");
    expect(result.message).toContain("shorten name (700 bytes)");
    expect(rig.signatureRequests()).toBe(signedBefore);
  });
});

describe("hidden characters are refused, never written on chain", () => {
  for (const [what, character] of [
    ["NUL", "\u0000"],
    ["newline", "\n"],
    ["right-to-left override", "\u202E"],
    ["left-to-right mark", "\u200E"],
    ["first-strong isolate", "\u2068"],
    ["C1 control", "\u0085"],
    ["zero-width space", "\u200B"],
  ] as const) {
    test(`${what} in the name`, async () => {
      await expectRefusedUnsigned({ name: `pay${character}me`, ownerAddress: owner, metadataUri: URI }, "at character 4");
    });
  }

  test("a newline, or an override, in the metadata URI (the URL parser would drop or encode what goes on chain)", async () => {
    await expectRefusedUnsigned({ name: "A", ownerAddress: owner, metadataUri: "https://agents.example.com/a\n.json" }, "metadataUri holds U+000A");
    await expectRefusedUnsigned({ name: "A", ownerAddress: owner, metadataUri: "https://agents.example.com/\u202Egnp.json" }, "metadataUri holds U+202E");
  });

  test("names real people write are signed: accents, CJK, right-to-left scripts, ZWJ emoji", async () => {
    for (const name of ["Météo", "天气预报", "مرحبا", "👨‍👩‍👧 family"]) {
      expect({ name, status: (await rig.register({ name, ownerAddress: owner, metadataUri: URI })).status }).toEqual({ name, status: 201 });
    }
  });
});

describe("an ownerAddress that can never pay or sign is a 400 (it was a 500, or signed)", () => {
  test("well-known programs and the registry program itself", async () => {
    await expectRefusedUnsigned({ name: "A", ownerAddress: "11111111111111111111111111111111", metadataUri: URI }, "the System program");
    await expectRefusedUnsigned({ name: "A", ownerAddress: TOKEN, metadataUri: URI }, "the SPL Token program");
    await expectRefusedUnsigned({ name: "A", ownerAddress: "CoREENxT6tW1HoK8ypY1SxRMZTcVPm7R94rH4PZNhX7d", metadataUri: URI }, "Metaplex Core");
    await expectRefusedUnsigned({ name: "A", ownerAddress: RIG_PROGRAM_ID, metadataUri: URI }, "the registry program itself");
  });

  test("an executable account the ledger holds at an on-curve address no list names", async () => {
    const program = (await generateKeyPairSigner()).address;
    rig.ledger.setAccount(program, { lamports: 1_000_000n, owner: "NativeLoader1111111111111111111111111111111" as Address, executable: true, data: new Uint8Array(0) });
    expect((await rig.ledger.getAccount(program))?.executable).toBe(true);
    await expectRefusedUnsigned({ name: "A", ownerAddress: program, metadataUri: URI }, "executable account");
  });

  test("a program's account: a token account at a key's address, a sysvar (no fee can come from either)", async () => {
    const tokenAccount = (await generateKeyPairSigner()).address;
    rig.ledger.setAccount(tokenAccount, { lamports: 2_039_280n, owner: TOKEN, data: new Uint8Array(165) });
    await expectRefusedUnsigned({ name: "A", ownerAddress: tokenAccount, metadataUri: URI }, `account of program ${TOKEN}`);
    await expectRefusedUnsigned({ name: "A", ownerAddress: "SysvarRent111111111111111111111111111111111", metadataUri: URI }, "account of program Sysvar1111111111111111111111111111111111111");
  });

  test("a program-derived address (the config PDA): no key can sign for it", async () => {
    const [config] = await findConfigPda(RIG_PROGRAM_ID);
    await expectRefusedUnsigned({ name: "A", ownerAddress: config, metadataUri: URI }, "off the ed25519 curve");
  });

  test("the registry's collection or fee treasury (the owner would merge into that slot)", async () => {
    await expectRefusedUnsigned({ name: "A", ownerAddress: rig.collection, metadataUri: URI }, "collection account");
    await expectRefusedUnsigned({ name: "A", ownerAddress: rig.feeTreasury, metadataUri: URI }, "feeTreasury account");
  });

  test("a base58 string that is not 32 bytes, as owner or feedback authority", async () => {
    await expectRefusedUnsigned({ name: "A", ownerAddress: "1".repeat(40), metadataUri: URI }, "ownerAddress must be a base58 address (32 bytes)");
    await expectRefusedUnsigned({ name: "A", ownerAddress: owner, metadataUri: URI, feedbackAuthority: "z".repeat(44) }, "feedbackAuthority must be a base58 address");
  });

  test("a funded wallet (System-owned) is signed", async () => {
    const wallet = (await generateKeyPairSigner()).address;
    await rig.ledger.airdrop(wallet, 1_000_000_000n);
    expect((await rig.register({ name: "A", ownerAddress: wallet, metadataUri: URI })).status).toBe(201);
  });
});
