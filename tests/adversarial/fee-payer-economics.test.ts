/**
 * The fee-payer drain and what stops it, through the whole service (buildService: embedded litesvm
 * ledger with real SPL Token, PGlite, app.handle). The fee payer is an AWS KMS key behind the real
 * AWS SDK talking to a local KMS stand-in (AWS itself cannot run here), so every co-signature is
 * counted as the paid call it is in production.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type AccountSignerMeta, type Address, AccountRole, type Instruction, generateKeyPairSigner } from "@solana/kit";
import { AccountState, TOKEN_PROGRAM_ADDRESS, getTokenEncoder } from "@solana-program/token";
import type { LocalLedger } from "../../src/infrastructure/ledger/local-ledger.ts";
import { encodeAgentIdentity } from "../../src/domain/registry/agent-identity.ts";
import { findAgentPda } from "../../src/domain/registry/pdas.ts";
import { kmsSignerEnv, useFakeKms } from "../support/kms-rig.ts";
import { TEST_REDIS_URL, redisGate } from "../support/redis.ts";
import { DEFAULT_AMOUNT, type Payment, fundedPayment, usdcOf } from "../../fixtures/payments.ts";
import { postJson } from "../settlement/support/service-harness.ts";
import { agentIdentity, PROGRAM_ID, padded } from "../registry/support/registry-fixtures.ts";
import { USDC, type Actors, computeLimit, computePrice, memoInstruction, transferInstruction } from "../../fixtures/payment-builder.ts";
import { type EmbeddedService, startEmbeddedService } from "./support/embedded-service.ts";
import { expectRefusedOnBoth, paymentOn } from "./support/payments.ts";

// The whole service is built here, so the SDK finds the stand-in's credentials in the process environment.
const kms = useFakeKms({ processCredentials: true });
const kmsEnv = () => kmsSignerEnv(kms());

const signRequests = () => kms().requests.filter((r) => r.target === "TrentService.Sign").length;

const rig = (env: Readonly<Record<string, string>> = {}): Promise<EmbeddedService> => startEmbeddedService({ ...kmsEnv(), ...env });

async function lamportsOf(ledger: LocalLedger, address: Address): Promise<bigint> {
  return (await ledger.getAccount(address))?.lamports ?? 0n;
}

/** A payment with the given instructions, signed by `actors.payer`, on a real blockhash, fee payer ours. */
async function paymentWith(r: EmbeddedService, actors: Actors, instructions: Instruction[], requirementsAmount: bigint, payTo: Address = actors.payTo.address) {
  return (await paymentOn(r, actors, instructions, { amount: requirementsAmount, payTo })).body;
}

/** /verify and /settle both refuse with `reason`; no KMS signature, no lamport of ours spent. */
async function expectRefusedForFree(r: EmbeddedService, body: Readonly<Record<string, unknown>>, reason: string): Promise<void> {
  const [signsBefore, lamportsBefore] = [signRequests(), await lamportsOf(r.ledger, r.feePayer)];
  await expectRefusedOnBoth(r.service.facilitatorApp, body, reason);
  expect(signRequests()).toBe(signsBefore);
  expect(await lamportsOf(r.ledger, r.feePayer)).toBe(lamportsBefore);
}

describe("the observed drain: 0-amount self-transfers at 400,000 CU x 5,000,000 µlamports (KMS stand-in, embedded ledger)", () => {
  let r: EmbeddedService;
  let actors: Actors;
  beforeAll(async () => {
    r = await rig();
    actors = { ...(await fundedPayment(r.ledger, r.feePayer)).actors };
  }, 30_000);
  afterAll(() => r.service.dispose());

  test("the exact attack (payTo = payer, amount 0, 2,000,000-lamport priority fee) is refused and costs nothing", async () => {
    const self = { ...actors, payTo: actors.payer };
    const body = await paymentWith(r, self, [computeLimit(400_000), computePrice(5_000_000n), await transferInstruction(self, { amount: 0n }), memoInstruction()], 0n);
    await expectRefusedForFree(r, body, "ZERO_AMOUNT");
  });

  test("amount 0 to a stranger is ZERO_AMOUNT", async () => {
    const body = await paymentWith(r, actors, [computeLimit(20_000), computePrice(0n), await transferInstruction(actors, { amount: 0n })], 0n);
    await expectRefusedForFree(r, body, "ZERO_AMOUNT");
  });

  test("a paying self-transfer (payTo = payer, source = destination) is SELF_PAYMENT", async () => {
    const self = { ...actors, payTo: actors.payer };
    const body = await paymentWith(r, self, [computeLimit(20_000), computePrice(0n), await transferInstruction(self, { amount: 1n })], 1n);
    await expectRefusedForFree(r, body, "SELF_PAYMENT");
  });

  test("payTo's second token account moved to payTo's ATA by a delegate (source owner = payTo) is SELF_PAYMENT", async () => {
    const delegate = await generateKeyPairSigner();
    const second = (await generateKeyPairSigner()).address;
    await r.ledger.setTokenAccount(actors.payTo.address, USDC, { amount: 0n });
    r.ledger.setAccount(second, {
      lamports: 2_039_280n,
      owner: TOKEN_PROGRAM_ADDRESS,
      data: new Uint8Array(
        getTokenEncoder().encode({
          mint: USDC, owner: actors.payTo.address, amount: 5_000_000n, delegate: delegate.address, state: AccountState.Initialized,
          isNative: null, delegatedAmount: 5_000_000n, closeAuthority: null,
        }),
      ),
    });
    const viaDelegate = { ...actors, payer: delegate };
    const transfer = await transferInstruction(viaDelegate, { amount: 1_000n, source: second });
    const body = await paymentWith(r, viaDelegate, [computeLimit(20_000), computePrice(0n), transfer], 1_000n);
    await expectRefusedForFree(r, body, "SELF_PAYMENT");
  });

  test("a real payment priced at 400,000 CU x 5,000,000 µlamports is PRIORITY_FEE_TOO_HIGH", async () => {
    const body = await paymentWith(r, actors, [computeLimit(400_000), computePrice(5_000_000n), await transferInstruction(actors, { amount: 1n })], 1n);
    await expectRefusedForFree(r, body, "PRIORITY_FEE_TOO_HIGH");
  });

  test("an extra memo signer (5,000 lamports more of ours) is TOO_MANY_SIGNATURES", async () => {
    const cosigner = await generateKeyPairSigner();
    const cosignerMeta: AccountSignerMeta = { address: cosigner.address, role: AccountRole.READONLY_SIGNER, signer: cosigner };
    const memo: Instruction = { ...memoInstruction("x"), accounts: [cosignerMeta] };
    const body = await paymentWith(r, actors, [computeLimit(20_000), computePrice(0n), await transferInstruction(actors, { amount: 1n }), memo], 1n);
    await expectRefusedForFree(r, body, "TOO_MANY_SIGNATURES");
  });

  test("an unfunded payment gets INSUFFICIENT_FUNDS on /settle without a single KMS signature; funded, it takes exactly one", async () => {
    const payment = await fundedPayment(r.ledger, r.feePayer, { fund: 0n });
    await expectRefusedForFree(r, payment.body, "INSUFFICIENT_FUNDS");
    await r.ledger.setTokenAccount(payment.actors.payer.address, USDC, { amount: DEFAULT_AMOUNT });
    const before = signRequests();
    expect((await postJson(r.service.facilitatorApp, "/settle", payment.body)).body).toMatchObject({ success: true });
    expect(signRequests()).toBe(before + 1);
  });

  test("a payTo without a token account for the asset is RECIPIENT_MISMATCH before signing (it would fail in preflight after a KMS call)", async () => {
    const payer = (await fundedPayment(r.ledger, r.feePayer)).actors;
    const actors = { ...payer, payTo: await generateKeyPairSigner() };
    const body = await paymentWith(r, actors, [computeLimit(20_000), computePrice(0n), await transferInstruction(actors, { amount: 1n })], 1n);
    await expectRefusedForFree(r, body, "RECIPIENT_MISMATCH");
  });

  test("an honest payment costs the fee payer exactly its fee, counted in x402_fee_payer_lamports_spent_total", async () => {
    const payment = await fundedPayment(r.ledger, r.feePayer);
    const before = await lamportsOf(r.ledger, r.feePayer);
    expect((await postJson(r.service.facilitatorApp, "/settle", payment.body)).body).toMatchObject({ success: true });
    expect(before - (await lamportsOf(r.ledger, r.feePayer))).toBe(10_000n);
    const metrics = await (await r.service.facilitatorApp.handle(new Request("http://f.test/metrics"))).text();
    expect(metrics).toMatch(new RegExp(`x402_fee_payer_lamports_spent_total\\{outcome="settled",fee_payer="${r.feePayer}"\\} [1-9][0-9]*0000\\b`));
  });
});

describe("fee budgets (KMS stand-in, embedded ledger, PGlite counters)", () => {
  test("per payer: the third 10,000-lamport settlement of one payer in the window is FEE_BUDGET_EXCEEDED, unsigned", async () => {
    const r = await rig({ FEE_BUDGET_PER_PAYER_LAMPORTS: "20000" });
    try {
      const first = await fundedPayment(r.ledger, r.feePayer);
      const answers = [];
      for (let i = 0; i < 3; i++) {
        const payment = i === 0 ? first : await fundedPayment(r.ledger, r.feePayer, { actors: first.actors });
        const signs = signRequests();
        const reply = await postJson(r.service.facilitatorApp, "/settle", payment.body);
        answers.push({ reason: reply.body["errorReason"] ?? "OK", signed: signRequests() - signs });
      }
      expect(answers).toEqual([{ reason: "OK", signed: 1 }, { reason: "OK", signed: 1 }, { reason: "FEE_BUDGET_EXCEEDED", signed: 0 }]);
      // Another payer is unaffected.
      expect((await postJson(r.service.facilitatorApp, "/settle", (await fundedPayment(r.ledger, r.feePayer)).body)).body).toMatchObject({ success: true });
    } finally {
      await r.service.dispose();
    }
  });

  test("per fee payer: fresh payers cannot get past the fee payer's own budget", async () => {
    const r = await rig({ FEE_BUDGET_PER_FEE_PAYER_LAMPORTS: "30000" });
    try {
      const reasons = [];
      for (let i = 0; i < 5; i++) {
        const reply = await postJson(r.service.facilitatorApp, "/settle", (await fundedPayment(r.ledger, r.feePayer)).body);
        reasons.push(reply.body["errorReason"] ?? "OK");
      }
      expect(reasons).toEqual(["OK", "OK", "OK", "FEE_BUDGET_EXCEEDED", "FEE_BUDGET_EXCEEDED"]);
    } finally {
      await r.service.dispose();
    }
  });

  test("50 concurrent settlements by one payer against a 5-payment budget: exactly 5 are signed and land", async () => {
    const r = await rig({ FEE_BUDGET_PER_PAYER_LAMPORTS: "50000" });
    try {
      const first = await fundedPayment(r.ledger, r.feePayer, { amount: 1n });
      const payments: Payment[] = [first];
      for (let i = 1; i < 50; i++) payments.push(await fundedPayment(r.ledger, r.feePayer, { actors: first.actors, amount: 1n, fund: 50n }));
      const signs = signRequests();
      const replies = await Promise.all(payments.map((p) => postJson(r.service.facilitatorApp, "/settle", p.body)));
      expect(replies.filter((reply) => reply.body["success"] === true)).toHaveLength(5);
      expect(replies.filter((reply) => reply.body["errorReason"] === "FEE_BUDGET_EXCEEDED")).toHaveLength(45);
      expect(signRequests() - signs).toBe(5);
      expect(await usdcOf(r.ledger, first.actors.payTo.address)).toBe(5n);
    } finally {
      await r.service.dispose();
    }
  });
});

const redis = await redisGate("tests/adversarial");
describe("fee budget shared through Redis (REDIS_URL: real Redis, two service instances as two replicas)", () => {
  test.skipIf(!redis.run && redis.failInCi === null)("a payer's budget spent on one replica is spent on the other", async () => {
    if (redis.failInCi) throw new Error(redis.failInCi);
    // A fresh window id per run keeps earlier runs' counters out of the way.
    const env = { REDIS_URL: TEST_REDIS_URL, FEE_BUDGET_PER_PAYER_LAMPORTS: "20000", FEE_BUDGET_WINDOW_SECONDS: String(7_000 + Math.floor(Math.random() * 1_000)) };
    const [a, b] = [await rig(env), await rig(env)];
    try {
      const first = await fundedPayment(a.ledger, a.feePayer);
      expect((await postJson(a.service.facilitatorApp, "/settle", first.body)).body).toMatchObject({ success: true });
      // Replica b has its own embedded ledger; the same payer pays there, against the same Redis counters.
      const onB = [];
      for (let i = 0; i < 2; i++) {
        const payment = await fundedPayment(b.ledger, b.feePayer, { actors: first.actors, fund: DEFAULT_AMOUNT });
        await b.ledger.setTokenAccount(first.actors.payTo.address, USDC, { amount: 0n });
        onB.push((await postJson(b.service.facilitatorApp, "/settle", payment.body)).body["errorReason"] ?? "OK");
      }
      expect(onB).toEqual(["OK", "FEE_BUDGET_EXCEEDED"]);
    } finally {
      await a.service.dispose();
      await b.service.dispose();
    }
  });
});

describe("PAYTO_POLICY: a stranger cannot make the fee payer spend anything (KMS stand-in, embedded ledger)", () => {
  test("allowlist: a payTo outside the file is PAYTO_NOT_ALLOWED, unsigned; a listed one settles", async () => {
    const dir = mkdtempSync(join(tmpdir(), "payto-"));
    const merchant = await generateKeyPairSigner();
    writeFileSync(join(dir, "allow.txt"), `# merchants\n${merchant.address}\n`);
    const r = await rig({ PAYTO_POLICY: "allowlist", PAYTO_ALLOWLIST_FILE: join(dir, "allow.txt") });
    try {
      const stranger = await fundedPayment(r.ledger, r.feePayer);
      await expectRefusedForFree(r, stranger.body, "PAYTO_NOT_ALLOWED");
      const listed = await fundedPayment(r.ledger, r.feePayer);
      const actors = { ...listed.actors, payTo: merchant };
      await r.ledger.setTokenAccount(merchant.address, USDC, { amount: 0n });
      const body = await paymentWith(r, actors, [computeLimit(20_000), computePrice(0n), await transferInstruction(actors, { amount: DEFAULT_AMOUNT })], DEFAULT_AMOUNT);
      expect((await postJson(r.service.facilitatorApp, "/settle", body)).body).toMatchObject({ success: true });
      expect(await usdcOf(r.ledger, merchant.address)).toBe(DEFAULT_AMOUNT);
    } finally {
      await r.service.dispose();
    }
  });

  test("registered-agents: payTo must own an active agent in the registry index", async () => {
    const r = await rig({ PAYTO_POLICY: "registered-agents" });
    try {
      const agentOwner = await generateKeyPairSigner();
      const retired = await generateKeyPairSigner();
      for (const [n, owner, active] of [[1, agentOwner.address, true], [2, retired.address, false]] as const) {
        const identity = agentIdentity(n, { owner, active });
        const [pda] = await findAgentPda(PROGRAM_ID, identity.nftMint);
        r.ledger.setAccount(pda, { lamports: 5_000_000n, owner: PROGRAM_ID, data: padded(encodeAgentIdentity(identity), 700) });
      }
      // The index follows the program's writes (pushed, in batches): wait until it has these.
      await r.service.registryIndex.caughtUp();
      const payer = (await fundedPayment(r.ledger, r.feePayer)).actors;
      for (const [payTo, expected] of [[agentOwner, "OK"], [retired, "PAYTO_NOT_ALLOWED"], [await generateKeyPairSigner(), "PAYTO_NOT_ALLOWED"]] as const) {
        const actors = { ...payer, payTo };
        await r.ledger.setTokenAccount(payTo.address, USDC, { amount: 0n });
        await r.ledger.setTokenAccount(payer.payer.address, USDC, { amount: 1n });
        const body = await paymentWith(r, actors, [computeLimit(20_000), computePrice(0n), await transferInstruction(actors, { amount: 1n }), memoInstruction(crypto.randomUUID())], 1n);
        if (expected === "OK") expect((await postJson(r.service.facilitatorApp, "/settle", body)).body).toMatchObject({ success: true });
        else await expectRefusedForFree(r, body, expected);
      }
    } finally {
      await r.service.dispose();
    }
  });
});

describe("opt-in API keys (FACILITATOR_API_KEYS_FILE, hashed at rest)", () => {
  test("/verify and /settle need the bearer key; /supported and /health do not; errors are 401 in the error shape", async () => {
    const dir = mkdtempSync(join(tmpdir(), "keys-"));
    const key = "x402_test-key-0123456789";
    const sha256 = new Bun.CryptoHasher("sha256").update(key).digest("hex");
    writeFileSync(join(dir, "keys.json"), JSON.stringify([{ name: "shop", sha256 }]));
    const r = await rig({ FACILITATOR_API_KEYS_FILE: join(dir, "keys.json") });
    try {
      const payment = await fundedPayment(r.ledger, r.feePayer);
      const post = (path: string, authorization?: string) =>
        r.service.facilitatorApp.handle(
          new Request(`http://f.test${path}`, {
            method: "POST",
            headers: { "content-type": "application/json", ...(authorization ? { authorization } : {}) },
            body: JSON.stringify(payment.body),
          }),
        );
      for (const auth of [undefined, "Bearer wrong", `Basic ${key}`, `Bearer ${sha256}`]) {
        const reply = await post("/settle", auth);
        expect(reply.status).toBe(401);
        expect(await reply.json()).toMatchObject({ statusCode: 401, error: "Unauthorized" });
      }
      expect((await post("/verify")).status).toBe(401);
      // The same handlers under other spellings of their paths are guarded too.
      for (const path of ["/settle/", "/verify/", "/./settle", "/settle?x=1"]) expect((await post(path)).status).toBe(401);
      expect((await r.service.facilitatorApp.handle(new Request("http://f.test/supported"))).status).toBe(200);
      expect((await post("/verify", `Bearer ${key}`)).status).toBe(200);
      expect(await (await post("/settle", `Bearer ${key}`)).json()).toMatchObject({ success: true });
    } finally {
      await r.service.dispose();
    }
  });
});

describe("fee-payer balance (KMS stand-in, embedded ledger)", () => {
  test("/health is degraded under FEE_PAYER_MIN_BALANCE_LAMPORTS and the balance is a gauge", async () => {
    const r = await rig({ FEE_PAYER_MIN_BALANCE_LAMPORTS: "1000000000000" });
    try {
      const health = await (await r.service.facilitatorApp.handle(new Request("http://f.test/health"))).json();
      expect(health).toMatchObject({ status: "degraded", checks: { signer: { status: "degraded" } } });
      expect(String(health.checks.signer.detail)).toContain(r.feePayer);
      const metrics = await (await r.service.facilitatorApp.handle(new Request("http://f.test/metrics"))).text();
      const balance = await lamportsOf(r.ledger, r.feePayer);
      expect(metrics).toContain(`x402_fee_payer_balance_lamports{fee_payer="${r.feePayer}"} ${balance}`);
    } finally {
      await r.service.dispose();
    }
  });
});

