/**
 * Issue 19.3: /supported declares the policy, and the declaration is the truth. Payments are built
 * from what GET /supported says (never from the settings the test passed), at each cap and one
 * step past it, and run through the whole service (buildService: the embedded litesvm ledger with
 * real SPL Token, PGlite, app.handle) with simulation on.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Instruction } from "@solana/kit";
import { startEmbeddedService, type EmbeddedService } from "../adversarial/support/embedded-service.ts";
import { fundedActors, paymentOn } from "../adversarial/support/payments.ts";
import { postJson } from "../settlement/support/service-harness.ts";
import { USDC, computeLimit, computePrice, memoInstruction, transferInstruction } from "../../fixtures/payment-builder.ts";

type Policy = Readonly<{
  maxComputeUnitLimit: number;
  maxComputeUnitPriceMicroLamports: number;
  maxPriorityFeeLamports: number;
  maxInstructions: number;
  minimumAmounts: Readonly<Record<string, string>>;
  protocolFee: unknown;
  payToPolicy: string;
}>;

let r: EmbeddedService;
let policy: Policy;

beforeAll(async () => {
  // Caps chosen so that each one can be reached by a transfer that really executes.
  r = await startEmbeddedService({
    VERIFY_MAX_COMPUTE_UNIT_LIMIT: "250000",
    VERIFY_MAX_COMPUTE_UNIT_PRICE: "100000",
    PRIORITY_FEE_MAX_LAMPORTS: "20000",
    MIN_PAYMENT_AMOUNT: "1000",
  });
  const supported = await (await r.service.facilitatorApp.handle(new Request("http://f.test/supported"))).json();
  policy = supported.kinds[0].extra.policy;
  expect(supported.kinds[1].extra.policy).toEqual(policy);
}, 30_000);
afterAll(() => r.service.dispose());

const MICRO = 1_000_000;

/** A payment of `amount` with these compute settings and `memos` extra memo instructions. */
async function payment(units: number, microLamports: number, amount: bigint, memos = 1) {
  const actors = await fundedActors(r.ledger, amount);
  const instructions: Instruction[] = [computeLimit(units), computePrice(BigInt(microLamports)), await transferInstruction(actors, { amount })];
  for (let i = 0; i < memos; i++) instructions.push(memoInstruction(`${i}-${crypto.randomUUID().slice(0, 8)}`));
  return (await paymentOn(r, actors, instructions, { amount })).body;
}

const minimum = () => BigInt(policy.minimumAmounts[USDC] ?? "1");

describe("GET /supported declares the policy (issue 19.3)", () => {
  test("the declaration names every bound, the split and the payTo policy", () => {
    expect(policy).toEqual({
      maxComputeUnitLimit: 250_000,
      maxComputeUnitPriceMicroLamports: 100_000,
      maxPriorityFeeLamports: 20_000,
      maxInstructions: 8,
      // Devnet accepts x84's devnet USDC beside Circle's by default (issue 25 §3): each has its minimum.
      minimumAmounts: { [USDC]: "1000", Gh9ZwEmdLJ8DscKNTkTqPbNwLNNBjuSzaG9Vp2KGtKJr: "1000" },
      protocolFee: null,
      payToPolicy: "any",
    });
  });

  test("a payment at every declared cap at once passes /verify and settles", async () => {
    // The limit at its cap, the price as high as the priority-fee cap then allows, the smallest
    // amount and as many instructions as declared.
    const price = Math.floor((policy.maxPriorityFeeLamports * MICRO) / policy.maxComputeUnitLimit);
    const body = await payment(policy.maxComputeUnitLimit, price, minimum(), policy.maxInstructions - 3);
    expect((await postJson(r.service.facilitatorApp, "/verify", body)).body).toMatchObject({ isValid: true });
    expect((await postJson(r.service.facilitatorApp, "/settle", body)).body).toMatchObject({ success: true });
  });

  test("the price at its cap (with the limit the priority-fee cap then allows) passes", async () => {
    const units = Math.floor((policy.maxPriorityFeeLamports * MICRO) / policy.maxComputeUnitPriceMicroLamports);
    const body = await payment(units, policy.maxComputeUnitPriceMicroLamports, minimum());
    expect((await postJson(r.service.facilitatorApp, "/verify", body)).body).toMatchObject({ isValid: true });
  });

  const pastEachCap: readonly (readonly [string, () => Promise<Readonly<Record<string, unknown>>>])[] = [
    ["COMPUTE_UNIT_LIMIT_TOO_HIGH", () => payment(policy.maxComputeUnitLimit + 1, 0, minimum())],
    ["COMPUTE_UNIT_PRICE_TOO_HIGH", () => payment(20_000, policy.maxComputeUnitPriceMicroLamports + 1, minimum())],
    ["PRIORITY_FEE_TOO_HIGH", () => payment(policy.maxComputeUnitLimit, Math.floor((policy.maxPriorityFeeLamports * MICRO) / policy.maxComputeUnitLimit) + 1, minimum())],
    ["TOO_MANY_INSTRUCTIONS", () => payment(20_000, 0, minimum(), policy.maxInstructions - 2)],
    ["AMOUNT_TOO_SMALL", () => payment(20_000, 0, minimum() - 1n)],
  ];
  for (const [reason, build] of pastEachCap) {
    test(`one step past the declaration is ${reason} on /verify and /settle`, async () => {
      const body = await build();
      expect((await postJson(r.service.facilitatorApp, "/verify", body)).body).toMatchObject({ isValid: false, invalidReason: reason });
      expect((await postJson(r.service.facilitatorApp, "/settle", body)).body).toMatchObject({ success: false, errorReason: reason });
    });
  }
});
