/**
 * POST /agents/register through the whole service (buildService: embedded litesvm ledger, PGlite,
 * app.handle). The metadata document comes from a hand-written fetcher standing in for the public
 * network, except in the tests of inward URIs, which run the real fetcher. The returned transaction
 * is decoded with kit and checked against the registry IDL: every account, PDA, argument, signature.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createHash } from "node:crypto";
import {
  AccountRole,
  type Address,
  generateKeyPairSigner,
  getAddressEncoder,
  getBase64Encoder,
  getCompiledTransactionMessageDecoder,
  getTransactionDecoder,
  signBytes,
  verifySignature,
  type SignatureBytes,
} from "@solana/kit";
import type { MetadataFetcher } from "../../src/application/ports/metadata-fetcher.ts";
import { categoryHash } from "../../src/domain/registry/categories.ts";
import { findAgentPda, findConfigPda } from "../../src/domain/registry/pdas.ts";
import { decodeProtocolConfig, encodeProtocolConfig } from "../../src/domain/registry/protocol-config.ts";
import {
  MPL_CORE_PROGRAM,
  REGISTER_AGENT_DISCRIMINATOR,
  SYSTEM_PROGRAM,
  decodeRegisterAgentData,
} from "../../src/domain/registry/register-agent.ts";
import type { LocalLedger } from "../../src/infrastructure/ledger/local-ledger.ts";
import { type TestService, startService } from "../settlement/support/service-harness.ts";

const PROGRAM_ID = "X84XXXZsWXpanM5UzshMKZH4wUbeFNcxPWnFyTBgRP5" as Address;
const DOCUMENT = new TextEncoder().encode(JSON.stringify({ name: "Weather agent", description: "forecasts", version: "1" }));

/** Stands in for the public network: serves one document for any URI and records what was asked. */
function documentFetcher(asked: string[] = []): MetadataFetcher {
  return {
    fetchMetadata: async (uri: string) => {
      asked.push(uri);
      return { bytes: DOCUMENT, sha256: new Uint8Array(createHash("sha256").update(DOCUMENT).digest()), json: {} };
    },
  };
}

type Reply = Readonly<{ status: number; body: Record<string, unknown> }>;

async function register(service: TestService, body: unknown, headers: Record<string, string> = {}): Promise<Reply> {
  const response = await service.registryApp.handle(
    new Request("http://registry.test/agents/register", { method: "POST", headers: { "content-type": "application/json", ...headers }, body: JSON.stringify(body) }),
  );
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

async function configOf(ledger: LocalLedger) {
  const [address] = await findConfigPda(PROGRAM_ID);
  const decoded = decodeProtocolConfig((await ledger.getAccount(address))?.data ?? new Uint8Array());
  if (!decoded.ok) throw new Error("no ProtocolConfig");
  return { address, config: decoded.value };
}

describe("POST /agents/register (embedded ledger, development config authority, PGlite)", () => {
  let service: TestService;
  let ledger: LocalLedger;
  const asked: string[] = [];
  beforeAll(async () => {
    service = await startService({ REGISTER_RATE_LIMIT_PER_MINUTE: "1000" }, { metadataFetcher: documentFetcher(asked) });
    ledger = service.embeddedLedger as LocalLedger;
  }, 30_000);
  afterAll(() => service.dispose());

  test("201 with the x84 SDK's response; the transaction is exactly register_agent per the IDL, signed by the config authority and the asset", async () => {
    const owner = await generateKeyPairSigner();
    const reply = await register(service, { name: "Weather agent", ownerAddress: owner.address, metadataUri: "https://agents.example.com/weather.json", tags: ["DeFi", "my-own-tag"] });
    expect(reply.status).toBe(201);
    expect(Object.keys(reply.body).sort()).toEqual(["agentPda", "assetPublicKey", "blockhash", "lastValidBlockHeight", "transaction"]);
    expect(typeof reply.body["lastValidBlockHeight"]).toBe("number");

    const transaction = getTransactionDecoder().decode(getBase64Encoder().encode(String(reply.body["transaction"])));
    const message = getCompiledTransactionMessageDecoder().decode(transaction.messageBytes);
    if (message.version !== "legacy") throw new Error(`expected a legacy message, got ${message.version}`);
    expect(message.lifetimeToken).toBe(String(reply.body["blockhash"]));
    const { config } = await configOf(ledger);
    const asset = String(reply.body["assetPublicKey"]) as Address;
    const accounts = message.staticAccounts;

    // Fee payer and signers: the owner pays; the owner, the config authority and the asset sign.
    expect(accounts[0]).toBe(owner.address);
    expect(message.header.numSignerAccounts).toBe(3);
    expect(new Set(accounts.slice(0, 3))).toEqual(new Set([owner.address, config.authority, asset]));

    // One instruction, the registry program's register_agent, accounts in IDL order at the right PDAs.
    expect(message.instructions).toHaveLength(1);
    const [instruction] = message.instructions;
    expect(accounts[instruction!.programAddressIndex]).toBe(PROGRAM_ID);
    const [configPda] = await findConfigPda(PROGRAM_ID);
    const [agentPda] = await findAgentPda(PROGRAM_ID, asset);
    expect(reply.body["agentPda"]).toBe(agentPda);
    const named = (instruction!.accountIndices ?? []).map((i) => accounts[i]);
    expect(named).toEqual([configPda, config.authority, agentPda, owner.address, asset, config.collection, config.feeTreasury, MPL_CORE_PROGRAM, SYSTEM_PROGRAM]);

    // Writable and signer flags exactly as the IDL declares them.
    const roleOf = (address: Address | undefined) => {
      const index = accounts.indexOf(address as Address);
      const { numSignerAccounts: s, numReadonlySignerAccounts: rs, numReadonlyNonSignerAccounts: rn } = message.header;
      const signer = index < s;
      const writable = signer ? index < s - rs : index < accounts.length - rn;
      return signer ? (writable ? AccountRole.WRITABLE_SIGNER : AccountRole.READONLY_SIGNER) : writable ? AccountRole.WRITABLE : AccountRole.READONLY;
    };
    expect(named.map(roleOf)).toEqual([
      AccountRole.READONLY, AccountRole.READONLY_SIGNER, AccountRole.WRITABLE, AccountRole.WRITABLE_SIGNER, AccountRole.WRITABLE_SIGNER,
      AccountRole.WRITABLE, AccountRole.WRITABLE, AccountRole.READONLY, AccountRole.READONLY,
    ]);

    // Arguments: Borsh per the IDL after the discriminator.
    const data = instruction!.data ?? new Uint8Array();
    expect([...data.subarray(0, 8)]).toEqual([...REGISTER_AGENT_DISCRIMINATOR]);
    expect([...data.subarray(0, 8)]).toEqual([...createHash("sha256").update("global:register_agent").digest().subarray(0, 8)]);
    const args = decodeRegisterAgentData(data);
    expect(args?.name).toBe("Weather agent");
    expect(args?.metadataUri).toBe("https://agents.example.com/weather.json");
    expect(Buffer.from(args?.metadataHash ?? []).toString("hex")).toBe(createHash("sha256").update(DOCUMENT).digest("hex"));
    expect(args?.feedbackAuthority).toBe(owner.address);
    // A known category by its canonical name, whatever the case; a free tag verbatim.
    expect(args?.tags.map((t) => Buffer.from(t).toString("hex"))).toEqual([categoryHash("defi"), categoryHash("my-own-tag")]);
    // Hand-encoded Borsh of the name: u32 LE length, then UTF-8.
    expect([...data.subarray(8, 12)]).toEqual([13, 0, 0, 0]);
    expect(Buffer.from(data.subarray(12, 25)).toString()).toBe("Weather agent");
    expect(asked.at(-1)).toBe("https://agents.example.com/weather.json");

    // Signatures: the owner's slot is empty; the other two verify over the message bytes.
    const signatures = transaction.signatures;
    expect(signatures[owner.address]).toBeNull();
    for (const signer of [config.authority, asset]) {
      const key = await crypto.subtle.importKey("raw", new Uint8Array(getAddressEncoder().encode(signer)), "Ed25519", false, ["verify"]);
      expect(await verifySignature(key, signatures[signer] as SignatureBytes, transaction.messageBytes)).toBe(true);
    }

    // Once the owner signs, every signature of the transaction verifies.
    const ownerSignature = await signBytes(owner.keyPair.privateKey, transaction.messageBytes);
    const complete = { ...signatures, [owner.address]: ownerSignature };
    for (const [signer, signature] of Object.entries(complete)) {
      const key = await crypto.subtle.importKey("raw", new Uint8Array(getAddressEncoder().encode(signer as Address)), "Ed25519", false, ["verify"]);
      expect(await verifySignature(key, signature as SignatureBytes, transaction.messageBytes)).toBe(true);
    }
  });

  test("a browser may call it only from AUTH_ALLOWED_ORIGINS (default: AUTH_URI's origin); the preflight of any other origin gets no allow-origin", async () => {
    const preflight = (origin: string) =>
      service.registryApp.handle(
        new Request("http://registry.test/agents/register", {
          method: "OPTIONS",
          headers: { origin, "access-control-request-method": "POST", "access-control-request-headers": "content-type" },
        }),
      );
    const allowed = await preflight("http://localhost:3000");
    expect(allowed.status).toBe(204);
    expect(allowed.headers.get("access-control-allow-methods")).toContain("POST");
    expect(allowed.headers.get("access-control-allow-origin")).toBe("http://localhost:3000");
    const other = await preflight("https://wallet.example");
    expect(other.status).toBe(403);
    expect(other.headers.get("access-control-allow-origin")).toBeNull();
  });

  test("feedbackAuthority names someone else when the request says so; tags are optional", async () => {
    const [owner, reviewer] = await Promise.all([generateKeyPairSigner(), generateKeyPairSigner()]);
    const reply = await register(service, { name: "A", ownerAddress: owner.address, metadataUri: "ipfs://bafybeigdyrzt5sfp7udm7hu76uh7y26nf3efuylqabf3oclgtqy55fbzdi", feedbackAuthority: reviewer.address });
    expect(reply.status).toBe(201);
    const transaction = getTransactionDecoder().decode(getBase64Encoder().encode(String(reply.body["transaction"])));
    const message = getCompiledTransactionMessageDecoder().decode(transaction.messageBytes);
    if (message.version !== "legacy") throw new Error("legacy expected");
    const args = decodeRegisterAgentData(message.instructions[0]?.data ?? new Uint8Array());
    expect(args?.feedbackAuthority).toBe(reviewer.address);
    expect(args?.tags).toEqual([]);
  });

  test("every malformed field is a 400 in the error shape, never a 422", async () => {
    const owner = (await generateKeyPairSigner()).address;
    const base = { name: "A", ownerAddress: owner, metadataUri: "https://agents.example.com/a.json" };
    const cases: Array<[string, unknown]> = [
      ["name over 64", { ...base, name: "x".repeat(65) }],
      ["empty name", { ...base, name: "" }],
      ["metadataUri over 200", { ...base, metadataUri: `https://agents.example.com/${"a".repeat(180)}` }],
      ["http metadataUri", { ...base, metadataUri: "http://agents.example.com/a.json" }],
      ["file metadataUri", { ...base, metadataUri: "file:///etc/passwd" }],
      ["not a URI", { ...base, metadataUri: "agent.json" }],
      ["six tags", { ...base, tags: ["a", "b", "c", "d", "e", "f"] }],
      ["a free tag over 32 characters", { ...base, tags: ["t".repeat(33)] }],
      ["owner not base58", { ...base, ownerAddress: "0OIl-not-an-address" }],
      ["missing owner", { name: "A", metadataUri: base.metadataUri }],
      ["tags not an array", { ...base, tags: "defi" }],
      ["feedbackAuthority not base58", { ...base, feedbackAuthority: "nope" }],
      ["name of 17 emoji (68 bytes of UTF-8)", { ...base, name: "😀".repeat(17) }],
      ["name with a right-to-left override", { ...base, name: "evil\u202Egnp" }],
      ["name with NUL", { ...base, name: "a\u0000b" }],
      ["metadataUri of 200 characters, 373 bytes", { ...base, metadataUri: `https://agents.example.com/${"é".repeat(173)}` }],
      ["owner is the System program", { ...base, ownerAddress: "11111111111111111111111111111111" }],
      ["owner is the registry program", { ...base, ownerAddress: PROGRAM_ID }],
    ];
    for (const [what, body] of cases) {
      const reply = await register(service, body);
      expect({ what, status: reply.status, error: reply.body["error"] }).toEqual({ what, status: 400, error: "Bad Request" });
    }
    expect((await register(service, "not json")).status).toBe(400);
  });

  test("SECURITY: an owner equal to the config authority is refused (our key would pay the fees)", async () => {
    const { config } = await configOf(ledger);
    const reply = await register(service, { name: "A", ownerAddress: config.authority, metadataUri: "https://agents.example.com/a.json" });
    expect(reply.status).toBe(400);
    expect(String(reply.body["message"])).toContain("config authority");
  });

  test("a missing ProtocolConfig, a paused program or a config naming another authority is a clear 503", async () => {
    const owner = (await generateKeyPairSigner()).address;
    const body = { name: "A", ownerAddress: owner, metadataUri: "https://agents.example.com/a.json" };
    const { address, config } = await configOf(ledger);
    const other = await startService({ REGISTRY_CACHE_TTL_SECONDS: "0" }, { metadataFetcher: documentFetcher() });
    try {
      const otherLedger = other.embeddedLedger as LocalLedger;
      const { config: otherConfig } = await configOf(otherLedger);
      otherLedger.setAccount(address, { data: encodeProtocolConfig({ ...otherConfig, pauseIdentity: true }) });
      expect(await register(other, body)).toMatchObject({ status: 503, body: { message: expect.stringContaining("paused") } });
      otherLedger.setAccount(address, { data: encodeProtocolConfig({ ...otherConfig, authority: config.authority }) });
      expect(await register(other, body)).toMatchObject({ status: 503, body: { message: expect.stringContaining("config authority") } });
      otherLedger.setAccount(address, { lamports: 0n, data: new Uint8Array(), owner: SYSTEM_PROGRAM });
      expect(await register(other, body)).toMatchObject({ status: 503, body: { message: expect.stringContaining("ProtocolConfig") } });
    } finally {
      await other.dispose();
    }
  });
});

describe("SECURITY: metadata URIs that point inward (the real metadata fetcher; no request leaves the machine)", () => {
  test("loopback, private, link-local and metadata-service addresses are refused before any connection", async () => {
    const service = await startService();
    try {
      const owner = (await generateKeyPairSigner()).address;
      for (const uri of [
        "https://127.0.0.1/agent.json",
        "https://localhost/agent.json",
        "https://169.254.169.254/latest/meta-data/",
        "https://10.0.0.8/agent.json",
        "https://[::1]/agent.json",
        "https://2130706433/agent.json",
        "https://0x7f.1/agent.json",
      ]) {
        const reply = await register(service, { name: "A", ownerAddress: owner, metadataUri: uri });
        expect({ uri, status: reply.status }).toEqual({ uri, status: 400 });
        expect(String(reply.body["message"])).toContain("METADATA_ADDRESS_FORBIDDEN");
      }
    } finally {
      await service.dispose();
    }
  });
});

describe("rate limit per client address (REGISTER_RATE_LIMIT_PER_MINUTE, PGlite counters)", () => {
  test("the third registration in a minute from one address is 429; another address is unaffected", async () => {
    const service = await startService({ REGISTER_RATE_LIMIT_PER_MINUTE: "2", RATE_LIMIT_TRUST_FORWARDED_FOR: "true" }, { metadataFetcher: documentFetcher() });
    try {
      const owner = (await generateKeyPairSigner()).address;
      const body = { name: "A", ownerAddress: owner, metadataUri: "https://agents.example.com/a.json" };
      const from = (ip: string) => register(service, body, { "x-forwarded-for": `198.51.100.7, ${ip}` });
      expect((await from("203.0.113.1")).status).toBe(201);
      expect((await from("203.0.113.1")).status).toBe(201);
      const third = await from("203.0.113.1");
      expect(third).toMatchObject({ status: 429, body: { statusCode: 429, error: "Too Many Requests" } });
      expect((await from("203.0.113.2")).status).toBe(201);
    } finally {
      await service.dispose();
    }
  });
});

