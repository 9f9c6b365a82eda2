/**
 * USDC_MINT as a list, and the x84 / extension-id spellings of the settlement modes, through the
 * whole service (buildService: embedded litesvm ledger with real SPL Token, PGlite, app.handle).
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Address } from "@solana/kit";
import { DEVNET_USDC_MINT, SOLANA_DEVNET, X84_DEVNET_USDC_MINT } from "../../src/domain/networks.ts";
import { normalisePaymentRequest } from "../../src/http/facilitator/payment-request.ts";
import type { LocalLedger } from "../../src/infrastructure/ledger/local-ledger.ts";
import { fundedPayment, settleBody, usdcOf } from "../../fixtures/payments.ts";
import { type TestService, postJson, startService } from "../settlement/support/service-harness.ts";
import { ataOf, buildTransaction, requirementsFor, standardInstructions } from "../../fixtures/payment-builder.ts";
import type { Blockhash } from "@solana/kit";

/** The devnet USDC the x84 docs name, beside the x402 packages' one. */
const X84_DEVNET_USDC = X84_DEVNET_USDC_MINT as Address;

describe("USDC_MINT lists the accepted assets (whole service, embedded ledger)", () => {
  let service: TestService;
  let ledger: LocalLedger;
  let feePayer: Address;
  beforeAll(async () => {
    service = await startService({ USDC_MINT: `${DEVNET_USDC_MINT}, ${X84_DEVNET_USDC}` });
    ledger = service.embeddedLedger as LocalLedger;
    feePayer = service.feePayers.addresses[0] as Address;
  }, 30_000);
  afterAll(() => service.dispose());

  test("/supported names every accepted asset", async () => {
    const supported = (await (await service.facilitatorApp.handle(new Request("http://facilitator.test/supported"))).json()) as {
      kinds: { extra: { assets: string[] } }[];
    };
    expect(supported.kinds.map((k) => k.extra.assets)).toEqual([
      [DEVNET_USDC_MINT, X84_DEVNET_USDC],
      [DEVNET_USDC_MINT, X84_DEVNET_USDC],
    ]);
  });

  test("a payment in the second asset settles (its mint exists on the embedded ledger); an unlisted one is UNSUPPORTED_ASSET", async () => {
    const base = await fundedPayment(ledger, feePayer, { fund: 0n });
    const { payer, payTo } = base.actors;
    await ledger.setTokenAccount(payer.address, X84_DEVNET_USDC, { amount: 1_000n });
    await ledger.setTokenAccount(payTo.address, X84_DEVNET_USDC, { amount: 0n });
    const { blockhash } = await ledger.getLatestBlockhash();
    const transaction = await buildTransaction(base.actors, {
      feePayerAddress: feePayer,
      blockhash: blockhash as Blockhash,
      instructions: await standardInstructions(base.actors, { mint: X84_DEVNET_USDC, amount: 1_000n }),
    });
    const body = settleBody(transaction, requirementsFor(base.actors, { asset: X84_DEVNET_USDC, amount: 1_000n, extra: { feePayer } }));
    expect((await postJson(service.facilitatorApp, "/settle", body)).body).toMatchObject({ success: true });
    expect(await balanceOf(ledger, payTo.address, X84_DEVNET_USDC)).toBe(1_000n);

    const unlisted = settleBody(transaction, requirementsFor(base.actors, { asset: "So11111111111111111111111111111111111111112", amount: 1_000n, extra: { feePayer } }));
    expect((await postJson(service.facilitatorApp, "/verify", unlisted)).body).toMatchObject({ isValid: false, invalidReason: "UNSUPPORTED_ASSET" });
    expect(await usdcOf(ledger, payTo.address)).toBe(0n);
  });
});

describe("USDC_MINT unset on devnet: both devnet USDCs are accepted by default (issue 25; whole service, embedded ledger)", () => {
  let service: TestService;
  beforeAll(async () => {
    service = await startService();
  }, 30_000);
  afterAll(() => service.dispose());

  test("/supported lists the x402 packages' devnet USDC and x84's, in both kinds", async () => {
    expect(X84_DEVNET_USDC).toBe("Gh9ZwEmdLJ8DscKNTkTqPbNwLNNBjuSzaG9Vp2KGtKJr" as Address);
    const supported = (await (await service.facilitatorApp.handle(new Request("http://facilitator.test/supported"))).json()) as {
      kinds: { extra: { assets: string[] } }[];
    };
    expect(supported.kinds.map((k) => k.extra.assets)).toEqual([
      [DEVNET_USDC_MINT, X84_DEVNET_USDC],
      [DEVNET_USDC_MINT, X84_DEVNET_USDC],
    ]);
  });

  test("a payment in x84's devnet USDC settles without any asset setting", async () => {
    const ledger = service.embeddedLedger as LocalLedger;
    const feePayer = service.feePayers.addresses[0] as Address;
    const base = await fundedPayment(ledger, feePayer, { fund: 0n });
    const { payer, payTo } = base.actors;
    await ledger.setTokenAccount(payer.address, X84_DEVNET_USDC, { amount: 500n });
    await ledger.setTokenAccount(payTo.address, X84_DEVNET_USDC, { amount: 0n });
    const { blockhash } = await ledger.getLatestBlockhash();
    const transaction = await buildTransaction(base.actors, {
      feePayerAddress: feePayer,
      blockhash: blockhash as Blockhash,
      instructions: await standardInstructions(base.actors, { mint: X84_DEVNET_USDC, amount: 500n }),
    });
    const body = settleBody(transaction, requirementsFor(base.actors, { asset: X84_DEVNET_USDC, amount: 500n, extra: { feePayer } }));
    expect((await postJson(service.facilitatorApp, "/settle", body)).body).toMatchObject({ success: true });
    expect(await balanceOf(ledger, payTo.address, X84_DEVNET_USDC)).toBe(500n);
  });
});

async function balanceOf(ledger: LocalLedger, owner: Address, mint: Address): Promise<bigint> {
  return ledger.getTokenAccountBalance(await ataOf(owner, mint))?.amount ?? 0n;
}

describe("mode aliases (HTTP normalisation, pure)", () => {
  const requirements = { scheme: "exact", network: SOLANA_DEVNET, asset: DEVNET_USDC_MINT, amount: "1", payTo: "9xQeWvG816bUx9EPjHmaT23yvVM2ZWbrrpZb9PusVFin" };
  const modeOf = (mode: unknown) =>
    normalisePaymentRequest({ paymentPayload: { x402Version: 2, accepted: requirements, payload: {}, extensions: { mode } }, paymentRequirements: requirements })
      .paymentPayload.extensions?.["mode"];

  test("x84-* and svc-* ids become the spec's mode names before any check runs", () => {
    for (const [alias, name] of [
      ["x84-atomic", "atomic"], ["x84-attestation", "attestation"], ["x84-delegated", "delegated"],
      ["svc-atomic", "atomic"], ["svc-attestation", "attestation"], ["svc-delegated", "delegated"],
      ["atomic", "atomic"],
    ]) expect(modeOf(alias)).toBe(name);
    // Anything else is left for the mode checks to refuse (MODE_INVALID).
    expect(modeOf("x84-other")).toBe("x84-other");
    expect(modeOf("__proto__")).toBe("__proto__");
  });

  test("an aliased atomic payment is checked like an atomic one (no replay without the claim proof)", async () => {
    const service = await startService();
    try {
      const paymentId = "ab".repeat(32);
      const body = (mode: string) => ({
        paymentPayload: { x402Version: 2, accepted: requirements, payload: {}, extensions: { mode, paymentId, txSignature: "1".repeat(88) } },
        paymentRequirements: requirements,
      });
      const plain = (await postJson(service.facilitatorApp, "/verify", body("atomic"))).body;
      for (const alias of ["x84-atomic", "svc-atomic"]) {
        const aliased = (await postJson(service.facilitatorApp, "/verify", body(alias))).body;
        expect(aliased["invalidReason"]).toBe(plain["invalidReason"]);
        expect(aliased["isValid"]).toBe(false);
      }
    } finally {
      await service.dispose();
    }
  });
});
