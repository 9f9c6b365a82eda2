import { describe, expect, test } from "bun:test";
import type { Address } from "@solana/kit";
import { base58Text } from "@x84/solana-wire";
import { decodeAgentIdentity, encodeAgentIdentity, type AgentIdentity } from "../../../src/domain/registry/agent-identity.ts";
import { IndexedAgent } from "../../../src/domain/registry/indexed-agent.ts";
import { decodeIndexedAgent } from "../../../src/domain/registry/indexed-agent-decoder.ts";
import { compareKeys, keyText, packKey } from "../../../src/domain/registry/packed-key.ts";
import { agentIdentity, hashBytes, padded, testAddress } from "../../registry/support/registry-fixtures.ts";

/** A deterministic generator, so a failure repeats. */
function random(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (Math.imul(s ^ (s >>> 15), 0x2c1b3c6d) + 0x6d2b79f5) >>> 0;
    return s / 4_294_967_296;
  };
}

function randomAddress(next: () => number): Address {
  const bytes = Uint8Array.from({ length: 32 }, () => Math.floor(next() * 256));
  // Leading zero bytes give the shorter texts ("1..."), which sort differently.
  const zeros = next() < 0.2 ? Math.floor(next() * 4) : 0;
  bytes.fill(0, 0, zeros);
  return base58Text(bytes) as Address;
}

function randomBig(next: () => number, signed: boolean): bigint {
  const pick = next();
  const small = BigInt(Math.floor(next() * 1_000_000));
  if (pick < 0.5) return signed && next() < 0.3 ? -small : small;
  const big = (BigInt(Math.floor(next() * 2 ** 32)) << 32n) | BigInt(Math.floor(next() * 2 ** 32));
  if (!signed) return big;
  return big - 2n ** 63n;
}

function randomIdentity(next: () => number): AgentIdentity {
  const uris = ["https://a.example/x", "HTTPS://Agents.Example/Ä/Card.json", "ipfs://bafy\u0000null", "\uFEFFbom-first", "https://ü.example/🚀", ""];
  return {
    ...agentIdentity(Math.floor(next() * 1000)),
    nftMint: randomAddress(next),
    owner: randomAddress(next),
    ownerVersion: randomBig(next, false),
    feedbackAuthority: next() < 0.3 ? testAddress(2, 1) : randomAddress(next),
    metadataUri: `${uris[Math.floor(next() * uris.length)]}${Math.floor(next() * 1e6)}`,
    metadataHash: Uint8Array.from({ length: 32 }, () => Math.floor(next() * 256)),
    tags: Array.from({ length: Math.floor(next() * 4) }, (_, i) => hashBytes(`tag${Math.floor(next() * 3)}${i}`)),
    active: next() < 0.5,
    createdAt: randomBig(next, true),
    updatedAt: randomBig(next, true),
    verifiedFeedbackCount: randomBig(next, false),
    verifiedScoreSum: randomBig(next, false),
    unverifiedFeedbackCount: randomBig(next, false),
    unverifiedScoreSum: randomBig(next, false),
    validationCount: randomBig(next, false),
    delegationCount: randomBig(next, false),
    bump: Math.floor(next() * 256),
  };
}

describe("decodeIndexedAgent (account bytes straight into the index's agent)", () => {
  test("gives exactly what the codec's identity gives, on random accounts", () => {
    const next = random(26);
    for (let n = 0; n < 2_000; n++) {
      const identity = randomIdentity(next);
      const data = padded(encodeAgentIdentity(identity), 700);
      const address = randomAddress(next);
      const viaCodec = decodeAgentIdentity(data);
      const direct = decodeIndexedAgent(address, data);
      if (!viaCodec.ok || !direct.ok) throw new Error("both decode");
      expect(direct.size).toBe(viaCodec.size);
      const expected = new IndexedAgent(address, viaCodec.value);
      expect(direct.value.identity).toEqual(expected.identity);
      expect(direct.value.identity).toEqual(viaCodec.value);
      expect(direct.value.address).toBe(address);
      expect(direct.value.uriLower).toBe(viaCodec.value.metadataUri.toLowerCase());
      expect(direct.value.updatedRank).toBe(Number(viaCodec.value.updatedAt));
    }
  });

  test("reads `active` as the codec does (only 1 is true) and fails wherever the codec fails", () => {
    const identity = agentIdentity(3, { tags: [hashBytes("defi"), hashBytes("data")] });
    const bytes = encodeAgentIdentity(identity);
    const activeAt = bytes.length - 66;
    for (const value of [0, 1, 2, 255]) {
      const data = bytes.slice();
      data[activeAt] = value;
      const direct = decodeIndexedAgent(testAddress(9, 1), data);
      const viaCodec = decodeAgentIdentity(data);
      expect(direct.ok && viaCodec.ok && direct.value.active === viaCodec.value.active).toBe(true);
    }
    for (let length = 0; length < bytes.length; length++) {
      const cut = bytes.slice(0, length);
      expect(decodeIndexedAgent(testAddress(9, 1), cut).ok).toBe(false);
      expect(decodeAgentIdentity(cut).ok).toBe(false);
    }
    const hugeTags = bytes.slice();
    new DataView(hugeTags.buffer).setUint32(8 + 32 + 32 + 8 + 32 + 4 + identity.metadataUri.length + 32, 0xffffffff, true);
    expect(decodeIndexedAgent(testAddress(9, 1), hugeTags).ok).toBe(false);
    expect(decodeAgentIdentity(hugeTags).ok).toBe(false);
    const wrong = bytes.slice();
    wrong[0] = (wrong[0] as number) ^ 1;
    expect(decodeIndexedAgent(testAddress(9, 1), wrong)).toMatchObject({ ok: false, reason: "wrong-discriminator" });
  });
});

describe("packed keys", () => {
  test("come back as the same text and compare as the strings do", () => {
    const next = random(7);
    const texts: string[] = Array.from({ length: 3_000 }, () => randomAddress(next));
    texts.push("1", "11111111111111111111111111111111", "z", "zz");
    for (const text of texts) expect(keyText(packKey(text))).toBe(text);
    const byString = [...texts].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
    const byKey = [...texts].sort((a, b) => compareKeys(packKey(a), packKey(b)));
    expect(byKey).toEqual(byString);
  });
});
