import { describe, expect, test } from "bun:test";
import { createHash } from "node:crypto";
import { getAddressDecoder, getAddressEncoder, getU64Codec, type Address } from "@solana/kit";
import { getSharedU64Codec } from "../../src/domain/registry/borsh-codecs.ts";
import { getFastAddressDecoder } from "../../src/domain/registry/fast-address-codec.ts";
import {
  AGENT_IDENTITY_DISCRIMINATOR,
  AGENT_OWNER_OFFSET,
  decodeAgentIdentity,
  encodeAgentIdentity,
} from "../../src/domain/registry/agent-identity.ts";
import { AGENT_SERVICE_DISCRIMINATOR, decodeAgentService, encodeAgentService } from "../../src/domain/registry/agent-service.ts";
import { FEEDBACK_ENTRY_DISCRIMINATOR, decodeFeedbackEntry, encodeFeedbackEntry } from "../../src/domain/registry/feedback-entry.ts";
import { PROTOCOL_CONFIG_DISCRIMINATOR, decodeProtocolConfig, encodeProtocolConfig, type ProtocolConfig } from "../../src/domain/registry/protocol-config.ts";
import { agentIdentity, agentService, feedbackEntry, hashBytes, padded, testAddress } from "./support/registry-fixtures.ts";

/**
 * Expected bytes are written by hand from the IDL (Borsh, little-endian), independently of the
 * kit codecs under test: discriminator, then fields in declaration order.
 */
class BorshWriter {
  private readonly bytes: number[] = [];
  raw(values: ArrayLike<number>) {
    for (let i = 0; i < values.length; i++) this.bytes.push(values[i] as number);
    return this;
  }
  u8(v: number) {
    return this.raw([v]);
  }
  bool(v: boolean) {
    return this.u8(v ? 1 : 0);
  }
  uint(v: bigint, size: number) {
    const out: number[] = [];
    let x = BigInt.asUintN(size * 8, v);
    for (let i = 0; i < size; i++) {
      out.push(Number(x & 0xffn));
      x >>= 8n;
    }
    return this.raw(out);
  }
  pubkey(a: Address) {
    return this.raw(getAddressEncoder().encode(a));
  }
  string(s: string) {
    const utf8 = Buffer.from(s, "utf8");
    return this.uint(BigInt(utf8.length), 4).raw(utf8);
  }
  get length() {
    return this.bytes.length;
  }
  done() {
    return Uint8Array.from(this.bytes);
  }
}

/** Anchor's discriminator rule, computed independently: sha256("account:<Name>")[0..8]. */
function anchorDiscriminator(name: string): Uint8Array {
  return Uint8Array.from(createHash("sha256").update(`account:${name}`).digest().subarray(0, 8));
}

describe("registry account codecs (kit codecs vs hand-written IDL byte layouts)", () => {
  test("discriminators match Anchor's sha256('account:<Name>') rule", () => {
    expect([...AGENT_IDENTITY_DISCRIMINATOR]).toEqual([...anchorDiscriminator("AgentIdentity")]);
    expect([...FEEDBACK_ENTRY_DISCRIMINATOR]).toEqual([...anchorDiscriminator("FeedbackEntry")]);
    expect([...AGENT_SERVICE_DISCRIMINATOR]).toEqual([...anchorDiscriminator("AgentService")]);
    expect([...PROTOCOL_CONFIG_DISCRIMINATOR]).toEqual([...anchorDiscriminator("ProtocolConfig")]);
  });

  test("AgentIdentity: owner at offset 40, variable parts after the URI, round trip with padding", () => {
    const agent = agentIdentity(5, {
      metadataUri: "ipfs://bafy-agent-ü", // multi-byte UTF-8: the length prefix counts bytes
      tags: [hashBytes("defi"), hashBytes("data"), hashBytes("nft")],
      ownerVersion: 3n,
      active: false,
      createdAt: -5n,
      updatedAt: 1_750_000_123n,
      verifiedFeedbackCount: 4n,
      verifiedScoreSum: 370n,
      unverifiedFeedbackCount: 2n,
      unverifiedScoreSum: 90n,
      validationCount: 7n,
      delegationCount: 2n ** 64n - 1n,
      bump: 251,
    });
    const w = new BorshWriter().raw(anchorDiscriminator("AgentIdentity")).pubkey(agent.nftMint).pubkey(agent.owner);
    w.uint(agent.ownerVersion, 8).pubkey(agent.feedbackAuthority).string(agent.metadataUri);
    const hashOffset = w.length;
    w.raw(agent.metadataHash).uint(BigInt(agent.tags.length), 4);
    for (const tag of agent.tags) w.raw(tag);
    w.bool(agent.active).uint(agent.createdAt, 8).uint(agent.updatedAt, 8);
    w.uint(agent.verifiedFeedbackCount, 8).uint(agent.verifiedScoreSum, 8).uint(agent.unverifiedFeedbackCount, 8);
    w.uint(agent.unverifiedScoreSum, 8).uint(agent.validationCount, 8).uint(agent.delegationCount, 8).u8(agent.bump);
    const expected = w.done();

    const uriBytes = Buffer.byteLength(agent.metadataUri, "utf8");
    expect(hashOffset).toBe(8 + 32 + 32 + 8 + 32 + 4 + uriBytes);
    expect(expected.length).toBe(hashOffset + 32 + 4 + 3 * 32 + 1 + 8 * 8 + 1);

    const encoded = encodeAgentIdentity(agent);
    expect([...encoded]).toEqual([...expected]);
    expect([...encoded.subarray(AGENT_OWNER_OFFSET, AGENT_OWNER_OFFSET + 32)]).toEqual([...getAddressEncoder().encode(agent.owner)]);

    const decoded = decodeAgentIdentity(padded(expected, 1024));
    if (!decoded.ok) throw new Error(decoded.detail);
    expect(decoded.value.metadataUri).toBe(agent.metadataUri);
    expect(decoded.value.tags.map((t) => [...t])).toEqual(agent.tags.map((t) => [...t]));
    expect(decoded.value.createdAt).toBe(-5n);
    expect(decoded.value.delegationCount).toBe(2n ** 64n - 1n);
    expect(decoded.value.owner).toBe(agent.owner);
    expect(decoded.value.active).toBe(false);
    expect(decoded.value.bump).toBe(251);
  });

  test("FeedbackEntry: fixed layout round trip", () => {
    const entry = feedbackEntry(testAddress(1, 9), 2, { score: 100, revoked: true, tag2: hashBytes("speed") });
    const w = new BorshWriter().raw(anchorDiscriminator("FeedbackEntry")).pubkey(entry.nftMint).pubkey(entry.reviewer).u8(entry.score);
    w.raw(entry.tag1).raw(entry.tag2).bool(entry.authVerified).bool(entry.hasPaymentProof).uint(entry.paymentAmount, 8);
    w.pubkey(entry.paymentToken).bool(entry.revoked).uint(entry.createdAt, 8).u8(entry.bump);
    const expected = w.done();
    expect(expected.length).toBe(8 + 32 + 32 + 1 + 32 + 32 + 1 + 1 + 8 + 32 + 1 + 8 + 1);
    expect([...encodeFeedbackEntry(entry)]).toEqual([...expected]);
    const decoded = decodeFeedbackEntry(padded(expected, 256));
    if (!decoded.ok) throw new Error(decoded.detail);
    expect(decoded.value).toMatchObject({ reviewer: entry.reviewer, score: 100, revoked: true, paymentAmount: entry.paymentAmount });
  });

  test("AgentService: enum as u8 index, two strings, round trip", () => {
    const service = agentService(testAddress(1, 3), "api", { endpoint: "https://x.example/api", version: "2.1.0-beta" });
    const w = new BorshWriter().raw(anchorDiscriminator("AgentService")).pubkey(service.nftMint).u8(2);
    w.string(service.endpoint).string(service.version).bool(service.active).uint(service.createdAt, 8).uint(service.updatedAt, 8).u8(service.bump);
    const expected = w.done();
    expect([...encodeAgentService(service)]).toEqual([...expected]);
    const decoded = decodeAgentService(padded(expected, 300));
    if (!decoded.ok) throw new Error(decoded.detail);
    expect(decoded.value).toMatchObject({ serviceType: "api", endpoint: service.endpoint, version: "2.1.0-beta" });
  });

  test("ProtocolConfig: u16 fee bps and five pause flags round trip", () => {
    const config: ProtocolConfig = {
      authority: testAddress(5, 1),
      collection: testAddress(5, 2),
      registrationFee: 50_000_000n,
      settlementFeeBps: 300,
      feeTreasury: testAddress(5, 3),
      facilitator: testAddress(5, 4),
      pauseIdentity: false,
      pauseReputation: true,
      pauseValidation: false,
      pauseDelegation: true,
      pausePayments: false,
      bump: 250,
    };
    const w = new BorshWriter().raw(anchorDiscriminator("ProtocolConfig")).pubkey(config.authority).pubkey(config.collection);
    w.uint(config.registrationFee, 8).uint(300n, 2).pubkey(config.feeTreasury).pubkey(config.facilitator);
    w.bool(false).bool(true).bool(false).bool(true).bool(false).u8(250);
    const expected = w.done();
    expect([...encodeProtocolConfig(config)]).toEqual([...expected]);
    const decoded = decodeProtocolConfig(expected);
    if (!decoded.ok) throw new Error(decoded.detail);
    expect(decoded.value).toEqual(config);
  });

  test("short, truncated, foreign and invalid data are reported, never thrown", () => {
    const full = encodeAgentIdentity(agentIdentity(1));
    expect(decodeAgentIdentity(new Uint8Array(0))).toMatchObject({ ok: false, reason: "wrong-discriminator" });
    expect(decodeAgentIdentity(full.subarray(0, 60))).toMatchObject({ ok: false, reason: "malformed" });
    expect(decodeAgentIdentity(full.subarray(0, full.length - 1))).toMatchObject({ ok: false, reason: "malformed" });
    expect(decodeAgentIdentity(encodeFeedbackEntry(feedbackEntry(testAddress(1, 1), 1)))).toMatchObject({ ok: false, reason: "wrong-discriminator" });

    // A URI length prefix far beyond the data must not crash or allocate.
    const hugeLength = new Uint8Array(full);
    new DataView(hugeLength.buffer).setUint32(8 + 32 + 32 + 8 + 32, 0xffffffff, true);
    expect(decodeAgentIdentity(hugeLength)).toMatchObject({ ok: false, reason: "malformed" });

    const service = encodeAgentService(agentService(testAddress(1, 1), "web"));
    service[40] = 4; // ServiceType has four variants (0..3)
    expect(decodeAgentService(service)).toMatchObject({ ok: false, reason: "malformed" });
  });
});

describe("fast address decoder (checked against kit's getAddressDecoder)", () => {
  test("same base58 text for random, leading-zero, all-zero and all-0xff keys", () => {
    const kit = getAddressDecoder();
    const fast = getFastAddressDecoder();
    const samples: Uint8Array[] = [new Uint8Array(32), new Uint8Array(32).fill(255)];
    for (let i = 0; i < 500; i++) {
      const bytes = crypto.getRandomValues(new Uint8Array(32));
      bytes.fill(0, 0, i % 5); // 0..4 leading zero bytes
      samples.push(bytes);
    }
    for (const bytes of samples) expect(fast.decode(bytes)).toBe(kit.decode(bytes));
    expect(() => fast.decode(new Uint8Array(31))).toThrow();
  });
});

describe("u64 decoder that shares small values (AgentIdentity counters)", () => {
  test("decodes what kit's u64 codec encodes, at and around the shared range and at the extremes", () => {
    const codec = getSharedU64Codec();
    for (const value of [0n, 1n, 1023n, 1024n, 4_294_967_295n, 4_294_967_296n, 4_294_967_296n + 5n, 2n ** 53n + 1n, 2n ** 64n - 1n]) {
      const bytes = getU64Codec().encode(value);
      expect(codec.decode(bytes)).toBe(value);
      expect(new Uint8Array(codec.encode(value))).toEqual(new Uint8Array(bytes));
    }
    expect(() => codec.decode(new Uint8Array(7))).toThrow();
  });
});

