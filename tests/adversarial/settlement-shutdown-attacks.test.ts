/**
 * Issue 19: nobody can shut settlement down or bleed the fee payer. Through the whole service
 * (buildService: the embedded litesvm ledger with the real SPL Token and Memo programs, PGlite for
 * records and fee-budget counters, app.handle). The fee payer is an AWS KMS key behind the real AWS
 * SDK talking to a local KMS stand-in (AWS itself cannot run here), so every co-signature is
 * counted as the paid call it is in production.
 */
import { feeBudgetSpent } from "../settlement/support/fee-budget-spent.ts";
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type Address, type Instruction, generateKeyPairSigner } from "@solana/kit";
import { AccountState, TOKEN_PROGRAM_ADDRESS, getTokenEncoder } from "@solana-program/token";
import { kmsSignerEnv, useFakeKms } from "../support/kms-rig.ts";
import { DEFAULT_AMOUNT, fundedPayment, usdcOf } from "../../fixtures/payments.ts";
import { postJson } from "../settlement/support/service-harness.ts";
import { MEMO, USDC, type Actors, ataOf, computeLimit, computePrice, memoInstruction, transferInstruction } from "../../fixtures/payment-builder.ts";
import { type EmbeddedService, startEmbeddedService } from "./support/embedded-service.ts";
import { fundedActors, paymentOn } from "./support/payments.ts";

const kms = useFakeKms({ processCredentials: true });
const signRequests = () => kms().requests.filter((r) => r.target === "TrentService.Sign").length;
const rig = (env: Readonly<Record<string, string>> = {}): Promise<EmbeddedService> => startEmbeddedService({ ...kmsSignerEnv(kms()), ...env });

/** What the service's counters hold for a fee-budget scope (PGlite). */
const spent = (r: EmbeddedService, scope: string): Promise<bigint> => feeBudgetSpent(r.service.store.executor, scope);

/** A memo the Memo program refuses at run time: not UTF-8. Static checks cannot see it. */
const invalidUtf8Memo = (): Instruction => ({ programAddress: MEMO, data: new Uint8Array([0xff, 0xfe, 0xfd, crypto.getRandomValues(new Uint8Array(1))[0] ?? 0]) });

/**
 * Shapes that pass every static rule and the funds check (the payer holds the amount, payTo's
 * account exists) and fail only on the ledger. Each is distinct per try (limit, memo bytes).
 */
async function hostileInstructions(actors: Actors, shape: number, n: number): Promise<Instruction[]> {
  const transfer = await transferInstruction(actors, { amount: 1n });
  switch (shape % 3) {
    case 0: // compute limit 10-49: the transfer runs out of compute units (about 10,250 lamports of budget per try before the fix)
      return [computeLimit(10 + (n % 40)), computePrice(250_000n), transfer];
    case 1: // invalid UTF-8 memo at the highest priority under the 25,000-lamport cap (35,000 lamports per try before the fix)
      return [computeLimit(200_000), computePrice(125_000n), transfer, invalidUtf8Memo()];
    default: // a memo naming a non-signer account: the Memo program refuses it (MissingRequiredSignature)
      return [computeLimit(200_000 - n), computePrice(125_000n), transfer, memoInstruction(`n${n}`, [actors.payTo.address])];
  }
}

describe("SECURITY: payments that fail only on the ledger cannot close settlement (issue 19.1)", () => {
  let r: EmbeddedService;
  beforeAll(async () => {
    // The measurement: 29 such tries exhausted a 300,000-lamport fee-payer budget.
    r = await rig({ FEE_BUDGET_PER_FEE_PAYER_LAMPORTS: "300000" });
  }, 30_000);
  afterAll(() => r.service.dispose());

  test("2,000 tries from 100 payers: none signed, the fee payer's budget untouched, then an honest payment settles", async () => {
    const payers = await Promise.all(Array.from({ length: 100 }, () => fundedActors(r.ledger, 1_000n)));
    const signsBefore = signRequests();
    const lamportsBefore = r.ledger.getBalance(r.feePayer);
    const reasons = new Map<string, number>();
    const BATCH = 50;
    for (let start = 0; start < 2_000; start += BATCH) {
      const replies = await Promise.all(
        Array.from({ length: BATCH }, async (_, i) => {
          const n = start + i;
          const actors = payers[n % payers.length] as Actors;
          const { body } = await paymentOn(r, actors, await hostileInstructions(actors, Math.floor(n / payers.length), n), { amount: 1n });
          return postJson(r.service.facilitatorApp, "/settle", body);
        }),
      );
      for (const reply of replies) {
        expect(reply.status).toBe(200);
        const reason = String(reply.body["errorReason"]);
        reasons.set(reason, (reasons.get(reason) ?? 0) + 1);
      }
    }
    // Every try was refused by the simulation before signing; none reached the KMS.
    expect(Object.fromEntries(reasons)).toEqual({ SIMULATION_FAILED: 2_000 });
    expect(signRequests()).toBe(signsBefore);
    expect(await spent(r, `fee-payer:${r.feePayer}`)).toBe(0n);
    expect(r.ledger.getBalance(r.feePayer)).toBe(lamportsBefore);
    expect(await r.service.store.executor.query("SELECT count(*)::int AS n FROM settlements")).toEqual([{ n: 0 }]);
    // Each payer's own budget carries its refused attempts: that bounds how often one payer may try.
    expect(await spent(r, `payer:${(payers[0] as Actors).payer.address}`)).toBeGreaterThan(0n);

    const honest = await fundedPayment(r.ledger, r.feePayer);
    expect((await postJson(r.service.facilitatorApp, "/settle", honest.body)).body).toMatchObject({ success: true });
    expect(signRequests()).toBe(signsBefore + 1);
    expect(await usdcOf(r.ledger, honest.actors.payTo.address)).toBe(DEFAULT_AMOUNT);
  }, 240_000);
});

describe("SECURITY: a payer's refused attempts are bounded by the payer's own budget (issue 19.1)", () => {
  test("past its budget a payer's next (honest) payment is FEE_BUDGET_EXCEEDED, unsigned; other payers settle", async () => {
    const r = await rig({ FEE_BUDGET_PER_PAYER_LAMPORTS: "100000" });
    try {
      const actors = await fundedActors(r.ledger, DEFAULT_AMOUNT);
      // Three 35,000-lamport refused attempts: 105,000 charged to this payer, nothing to the fee payer.
      for (let n = 0; n < 3; n++) {
        const { body } = await paymentOn(r, actors, await hostileInstructions(actors, 1, n), { amount: 1n });
        expect((await postJson(r.service.facilitatorApp, "/settle", body)).body["errorReason"]).toBe("SIMULATION_FAILED");
      }
      const signs = signRequests();
      const honest = await fundedPayment(r.ledger, r.feePayer, { actors, fund: DEFAULT_AMOUNT });
      expect((await postJson(r.service.facilitatorApp, "/settle", honest.body)).body["errorReason"]).toBe("FEE_BUDGET_EXCEEDED");
      expect(signRequests()).toBe(signs);
      expect(await spent(r, `fee-payer:${r.feePayer}`)).toBe(0n);
      expect((await postJson(r.service.facilitatorApp, "/settle", (await fundedPayment(r.ledger, r.feePayer)).body)).body).toMatchObject({ success: true });
    } finally {
      await r.service.dispose();
    }
  });
});

describe("SECURITY: nobody can spend a stranger's budget with refused attempts (issue 19.1)", () => {
  test("attempts naming a victim's token account as source are charged to their signer; the victim still settles", async () => {
    // Room for two 10,000-lamport settlements per payer: five refused attempts charged to the victim would shut it out.
    const r = await rig({ FEE_BUDGET_PER_PAYER_LAMPORTS: "20000" });
    try {
      const victim = await fundedActors(r.ledger, DEFAULT_AMOUNT);
      const attacker = await generateKeyPairSigner();
      const victimAccount = await ataOf(victim.payer.address);
      const forged: Actors = { payer: attacker, payTo: victim.payTo, feePayer: attacker };
      for (let n = 0; n < 5; n++) {
        const instructions = [computeLimit(20_000 + n), computePrice(0n), await transferInstruction(forged, { amount: 1n, source: victimAccount })];
        const reply = await postJson(r.service.facilitatorApp, "/settle", (await paymentOn(r, forged, instructions, { amount: 1n })).body);
        expect(reply.body["errorReason"]).toBe("INSUFFICIENT_FUNDS");
      }
      expect(await spent(r, `payer:${victim.payer.address}`)).toBe(0n);
      expect(await spent(r, `payer:${attacker.address}`)).toBe(50_000n);
      const honest = await fundedPayment(r.ledger, r.feePayer, { actors: victim, fund: DEFAULT_AMOUNT });
      expect((await postJson(r.service.facilitatorApp, "/settle", honest.body)).body).toMatchObject({ success: true });
    } finally {
      await r.service.dispose();
    }
  });
});

/** A second token account of `owner` holding `amount`, with `delegate` allowed to move all of it. */
function delegatedAccount(r: EmbeddedService, owner: Address, delegate: Address, amount: bigint): Promise<Address> {
  return generateKeyPairSigner().then(({ address }) => {
    r.ledger.setAccount(address, {
      lamports: 2_039_280n,
      owner: TOKEN_PROGRAM_ADDRESS,
      data: new Uint8Array(
        getTokenEncoder().encode({ mint: USDC, owner, amount, delegate, state: AccountState.Initialized, isNative: null, delegatedAmount: amount, closeAuthority: null }),
      ),
    });
    return address;
  });
}

describe("SECURITY: delegates spend their owner's budget (issue 19.2)", () => {
  test("one owner, three delegates, a two-settlement payer budget: two settle, every later one is FEE_BUDGET_EXCEEDED, unsigned", async () => {
    const r = await rig({ FEE_BUDGET_PER_PAYER_LAMPORTS: "20000" });
    try {
      const owner = await generateKeyPairSigner();
      const payTo = await generateKeyPairSigner();
      await r.ledger.setTokenAccount(payTo.address, USDC, { amount: 0n });
      const answers: string[] = [];
      for (let i = 0; i < 3; i++) {
        const delegate = await generateKeyPairSigner();
        const source = await delegatedAccount(r, owner.address, delegate.address, 10n);
        const actors: Actors = { payer: delegate, payTo, feePayer: delegate };
        for (let k = 0; k < 2; k++) {
          const instructions = [computeLimit(20_000), computePrice(0n), await transferInstruction(actors, { amount: 1n, source }), memoInstruction(crypto.randomUUID())];
          const signs = signRequests();
          const reply = await postJson(r.service.facilitatorApp, "/settle", (await paymentOn(r, actors, instructions, { amount: 1n })).body);
          const answer = reply.body["success"] === true ? "OK" : String(reply.body["errorReason"]);
          answers.push(answer);
          expect(signRequests() - signs).toBe(answer === "OK" ? 1 : 0);
        }
      }
      expect(answers).toEqual(["OK", "OK", "FEE_BUDGET_EXCEEDED", "FEE_BUDGET_EXCEEDED", "FEE_BUDGET_EXCEEDED", "FEE_BUDGET_EXCEEDED"]);
      expect(await spent(r, `payer:${owner.address}`)).toBe(20_000n);
    } finally {
      await r.service.dispose();
    }
  });
});

describe("MIN_PAYMENT_AMOUNT (issue 19.2)", () => {
  test("a payment under the asset's minimum is AMOUNT_TOO_SMALL on /verify and /settle, unsigned; at the minimum it settles", async () => {
    const r = await rig({ MIN_PAYMENT_AMOUNT: `${USDC}=10000` });
    try {
      const small = await fundedPayment(r.ledger, r.feePayer, { amount: 9_999n });
      const signs = signRequests();
      expect((await postJson(r.service.facilitatorApp, "/verify", small.body)).body).toMatchObject({ isValid: false, invalidReason: "AMOUNT_TOO_SMALL" });
      expect((await postJson(r.service.facilitatorApp, "/settle", small.body)).body).toMatchObject({ success: false, errorReason: "AMOUNT_TOO_SMALL" });
      expect(signRequests()).toBe(signs);
      const enough = await fundedPayment(r.ledger, r.feePayer, { amount: 10_000n });
      expect((await postJson(r.service.facilitatorApp, "/settle", enough.body)).body).toMatchObject({ success: true });
    } finally {
      await r.service.dispose();
    }
  });
});

describe("FEE_BUDGET_RESERVED_FOR_API_KEYS_PERCENT (issue 19.1)", () => {
  test("anonymous callers spend only the unreserved share; an API-key caller settles after they are refused", async () => {
    const dir = mkdtempSync(join(tmpdir(), "keys-"));
    const key = "x402_reserved-key-0123456789";
    writeFileSync(join(dir, "keys.json"), JSON.stringify([{ name: "shop", sha256: new Bun.CryptoHasher("sha256").update(key).digest("hex") }]));
    // 40,000 lamports per fee payer, half reserved: anonymous callers get two 10,000-lamport settlements.
    const r = await rig({
      FEE_BUDGET_PER_FEE_PAYER_LAMPORTS: "40000",
      FEE_BUDGET_RESERVED_FOR_API_KEYS_PERCENT: "50",
      FACILITATOR_API_KEYS_FILE: join(dir, "keys.json"),
      FACILITATOR_API_KEYS_REQUIRED: "false",
    });
    try {
      const settle = async (authorization?: string) => {
        const payment = await fundedPayment(r.ledger, r.feePayer);
        const reply = await r.service.facilitatorApp.handle(
          new Request("http://f.test/settle", {
            method: "POST",
            headers: { "content-type": "application/json", ...(authorization ? { authorization } : {}) },
            body: JSON.stringify(payment.body),
          }),
        );
        if (reply.status !== 200) return `HTTP ${reply.status}`;
        const body = (await reply.json()) as Record<string, unknown>;
        return body["success"] === true ? "OK" : String(body["errorReason"]);
      };
      const anonymous = [await settle(), await settle(), await settle()];
      expect(anonymous).toEqual(["OK", "OK", "FEE_BUDGET_EXCEEDED"]);
      expect(await settle("Bearer wrong-key")).toBe("HTTP 401");
      expect([await settle(`Bearer ${key}`), await settle(`Bearer ${key}`), await settle(`Bearer ${key}`)]).toEqual(["OK", "OK", "FEE_BUDGET_EXCEEDED"]);
    } finally {
      await r.service.dispose();
    }
  });
});

describe("sanity of the hostile shapes (they are valid wire, refused only by execution)", () => {
  test("each shape passes /verify with simulation off", async () => {
    const r = await rig({ VERIFY_SIMULATE: "false" });
    try {
      const actors = await fundedActors(r.ledger, 1_000n);
      for (let shape = 0; shape < 3; shape++) {
        const { body } = await paymentOn(r, actors, await hostileInstructions(actors, shape, shape), { amount: 1n });
        expect((await postJson(r.service.facilitatorApp, "/verify", body)).body).toMatchObject({ isValid: true });
      }
    } finally {
      await r.service.dispose();
    }
  });
});
