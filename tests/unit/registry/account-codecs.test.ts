import { describe, expect, test } from "bun:test";
import { getAddressDecoder, getAddressEncoder, getU64Codec, isAddress } from "@solana/kit";
import { getSharedU64Codec } from "../../../src/domain/registry/borsh-codecs.ts";
import { getFastAddressDecoder, isBase58Address } from "../../../src/domain/registry/fast-address-codec.ts";
import {
  AGENT_IDENTITY_DISCRIMINATOR,
  AGENT_OWNER_OFFSET,
  decodeAgentIdentity,
  encodeAgentIdentity,
} from "../../../src/domain/registry/agent-identity.ts";
import { AGENT_SERVICE_DISCRIMINATOR, decodeAgentService, encodeAgentService } from "../../../src/domain/registry/agent-service.ts";
import { FEEDBACK_ENTRY_DISCRIMINATOR, decodeFeedbackEntry, encodeFeedbackEntry } from "../../../src/domain/registry/feedback-entry.ts";
import { PROTOCOL_CONFIG_DISCRIMINATOR, decodeProtocolConfig, encodeProtocolConfig, type ProtocolConfig } from "../../../src/domain/registry/protocol-config.ts";
import { anchorDiscriminator, BorshBytes } from "../../support/borsh-bytes.ts";
import { agentIdentity, agentService, feedbackEntry, hashBytes, padded, testAddress } from "../../registry/support/registry-fixtures.ts";

/** An address whose 32 bytes are all `byte`, so its place in hand-written bytes is plain to see. */
const filled = (byte: number) => getAddressDecoder().decode(new Uint8Array(32).fill(byte));

describe("registry account codecs (kit codecs vs hand-written IDL byte layouts)", () => {
  test("discriminators match Anchor's sha256('account:<Name>') rule and the IDL's bytes", () => {
    expect([...AGENT_IDENTITY_DISCRIMINATOR]).toEqual([...anchorDiscriminator("account:AgentIdentity")]);
    expect([...FEEDBACK_ENTRY_DISCRIMINATOR]).toEqual([...anchorDiscriminator("account:FeedbackEntry")]);
    expect([...AGENT_SERVICE_DISCRIMINATOR]).toEqual([...anchorDiscriminator("account:AgentService")]);
    expect([...PROTOCOL_CONFIG_DISCRIMINATOR]).toEqual([...anchorDiscriminator("account:ProtocolConfig")]);
    expect([...AGENT_IDENTITY_DISCRIMINATOR]).toEqual([11, 149, 31, 27, 186, 76, 241, 72]);
    expect([...AGENT_SERVICE_DISCRIMINATOR]).toEqual([27, 120, 44, 60, 134, 122, 164, 136]);
    expect([...FEEDBACK_ENTRY_DISCRIMINATOR]).toEqual([203, 62, 143, 114, 243, 30, 218, 29]);
    expect([...PROTOCOL_CONFIG_DISCRIMINATOR]).toEqual([207, 91, 250, 28, 152, 179, 215, 209]);
  });

  test("ProtocolConfig against bytes written out literally (no codec involved)", () => {
    const config: ProtocolConfig = {
      authority: filled(1),
      collection: filled(2),
      registrationFee: 50_000_000n, // 0x02faf080
      settlementFeeBps: 300, // 0x012c
      feeTreasury: filled(3),
      facilitator: filled(4),
      pauseIdentity: false,
      pauseReputation: true,
      pauseValidation: false,
      pauseDelegation: true,
      pausePayments: false,
      bump: 250,
    };
    const expected = Uint8Array.from([
      ...[207, 91, 250, 28, 152, 179, 215, 209],
      ...new Array(32).fill(1),
      ...new Array(32).fill(2),
      ...[0x80, 0xf0, 0xfa, 0x02, 0, 0, 0, 0],
      ...[0x2c, 0x01],
      ...new Array(32).fill(3),
      ...new Array(32).fill(4),
      ...[0, 1, 0, 1, 0],
      250,
    ]);
    expect([...encodeProtocolConfig(config)]).toEqual([...expected]);
    const decoded = decodeProtocolConfig(expected);
    expect(decoded.ok && decoded.value).toEqual(config);
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
    const w = new BorshBytes().raw(anchorDiscriminator("account:AgentIdentity")).pubkey(agent.nftMint).pubkey(agent.owner);
    w.u64(agent.ownerVersion).pubkey(agent.feedbackAuthority).string(agent.metadataUri);
    const hashOffset = w.length;
    w.raw(agent.metadataHash).vec(agent.tags, (tag) => w.raw(tag));
    w.bool(agent.active).i64(agent.createdAt).i64(agent.updatedAt);
    w.u64(agent.verifiedFeedbackCount).u64(agent.verifiedScoreSum).u64(agent.unverifiedFeedbackCount);
    w.u64(agent.unverifiedScoreSum).u64(agent.validationCount).u64(agent.delegationCount).u8(agent.bump);
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
    const entry = feedbackEntry(testAddress(1, 9), 2, { score: 100, revoked: true, tag2: hashBytes("speed"), authVerified: true, hasPaymentProof: false });
    const w = new BorshBytes().raw(anchorDiscriminator("account:FeedbackEntry")).pubkey(entry.nftMint).pubkey(entry.reviewer).u8(entry.score);
    w.raw(entry.tag1).raw(entry.tag2).bool(entry.authVerified).bool(entry.hasPaymentProof).u64(entry.paymentAmount);
    w.pubkey(entry.paymentToken).bool(entry.revoked).i64(entry.createdAt).u8(entry.bump);
    const expected = w.done();
    expect(expected.length).toBe(8 + 32 + 32 + 1 + 32 + 32 + 1 + 1 + 8 + 32 + 1 + 8 + 1);
    expect([...encodeFeedbackEntry(entry)]).toEqual([...expected]);
    const decoded = decodeFeedbackEntry(padded(expected, 256));
    if (!decoded.ok) throw new Error(decoded.detail);
    expect(decoded.value).toMatchObject({ reviewer: entry.reviewer, score: 100, revoked: true, paymentAmount: entry.paymentAmount });
  });

  test("AgentService: enum as u8 index, two strings, round trip", () => {
    const service = agentService(testAddress(1, 3), "api", { endpoint: "https://x.example/api", version: "2.1.0-beta" });
    const w = new BorshBytes().raw(anchorDiscriminator("account:AgentService")).pubkey(service.nftMint).u8(2);
    w.string(service.endpoint).string(service.version).bool(service.active).i64(service.createdAt).i64(service.updatedAt).u8(service.bump);
    const expected = w.done();
    expect([...encodeAgentService(service)]).toEqual([...expected]);
    const decoded = decodeAgentService(padded(expected, 300));
    if (!decoded.ok) throw new Error(decoded.detail);
    expect(decoded.value).toMatchObject({ serviceType: "api", endpoint: service.endpoint, version: "2.1.0-beta" });
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

  test("isBase58Address answers as kit's isAddress: addresses, 31/33-byte numbers, wrong lengths, bad characters", () => {
    const kit = getAddressDecoder();
    const texts = ["", "1", "1".repeat(31), "1".repeat(32), "1".repeat(44), "1".repeat(45), "z".repeat(44), "z".repeat(43), "2".repeat(44)];
    for (let i = 0; i < 300; i++) {
      const bytes = crypto.getRandomValues(new Uint8Array(32));
      bytes.fill(0, 0, i % 5);
      const text = kit.decode(bytes);
      texts.push(text, `${text}1`, text.slice(1), text.replace(/.$/, "0"), text.replace(/^./, "l"), text.replace(/.$/, "é"), `1${text.slice(0, 43)}`);
      // 31 and 33 bytes: base58 texts of the right length range that are not 32 bytes.
      texts.push(getFastAddressDecoder().decode(new Uint8Array([1, ...bytes.slice(1)])).slice(0, 43));
      for (const size of [31, 33]) texts.push(kit.decode(new Uint8Array([...crypto.getRandomValues(new Uint8Array(size)), 0]).slice(0, 32)).padEnd(size === 31 ? 32 : 44, "z"));
    }
    let valid = 0;
    for (const text of texts) {
      expect([text, isBase58Address(text)]).toEqual([text, isAddress(text)]);
      if (isAddress(text)) valid++;
    }
    expect(valid).toBeGreaterThan(300); // both answers occur, often
    expect(texts.length - valid).toBeGreaterThan(300);
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

