/**
 * x84's devnet USDC through the stock buyer (issue 25 §3): the whole service with no asset setting
 * (buildService: embedded litesvm ledger with real SPL Token, PGlite, app.handle) accepts
 * `Gh9ZwEmdLJ8DscKNTkTqPbNwLNNBjuSzaG9Vp2KGtKJr` on devnet, and @x402/core 2.27.0's x402Client
 * refuses to pay in it until the buyer lists it in `setSpendControls({ allowedAssets })`, as
 * docs/interop.md says. The x84 client (`X84SvmScheme`) is not published; the stock
 * @x402/svm ExactSvmScheme stands in as the scheme, since the spend controls are x402Client's.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { type Address, generateKeyPairSigner } from "@solana/kit";
import { x402Client } from "@x402/core/client";
import type { PaymentRequired } from "@x402/core/types";
import { ExactSvmScheme } from "@x402/svm/exact/client";
import { SOLANA_DEVNET, X84_DEVNET_USDC_MINT } from "../../src/domain/networks.ts";
import { type LedgerRpcServer } from "@x84/embedded-ledger";
import { serveLocalLedgerRpc, type LocalLedger } from "../../src/infrastructure/ledger/local-ledger.ts";
import { postJson, startService, type TestService } from "../settlement/support/service-harness.ts";
import { ataOf } from "../../fixtures/payment-builder.ts";

const X84_USDC = X84_DEVNET_USDC_MINT as Address;

describe("x84's devnet USDC, paid by the stock @x402/core 2.27.0 buyer, against the service's default assets", () => {
  let service: TestService;
  let rpc: LedgerRpcServer;
  beforeAll(async () => {
    service = await startService();
    rpc = serveLocalLedgerRpc(service.embeddedLedger as LocalLedger, { port: 0 });
  }, 30_000);
  afterAll(async () => {
    await rpc.stop();
    await service.dispose();
  });

  test("refused by the buyer's default spend controls; with allowedAssets it is paid and settles", async () => {
    const ledger = service.embeddedLedger as LocalLedger;
    const feePayer = service.feePayers.addresses[0] as Address;
    const [payer, payTo] = await Promise.all([generateKeyPairSigner(), generateKeyPairSigner()]);
    await ledger.setTokenAccount(payer.address, X84_USDC, { amount: 50_000n });
    await ledger.setTokenAccount(payTo.address, X84_USDC, { amount: 0n });
    const requirements = { scheme: "exact", network: SOLANA_DEVNET, asset: X84_USDC, amount: "10000", payTo: payTo.address, maxTimeoutSeconds: 60, extra: { feePayer } } as const;
    const required: PaymentRequired = { x402Version: 2, resource: { url: "https://agent.example/a2a", description: "x84 agent", mimeType: "application/json" }, accepts: [requirements] };
    const buyer = () => new x402Client().register(SOLANA_DEVNET, new ExactSvmScheme(payer, { rpcUrl: rpc.url }));

    // @x402/core 2.27 only pays in the assets it knows (its findDefaultAsset) unless told otherwise.
    await expect(buyer().createPaymentPayload(required)).rejects.toThrow("rejected by spendControls");

    const allowed = buyer().setSpendControls({ allowedAssets: [{ network: SOLANA_DEVNET, asset: X84_USDC }] });
    const payload = await allowed.createPaymentPayload(required);
    const body = { x402Version: 2, paymentPayload: payload, paymentRequirements: requirements };
    expect((await postJson(service.facilitatorApp, "/verify", body)).body).toEqual({ isValid: true, payer: payer.address });
    expect((await postJson(service.facilitatorApp, "/settle", body)).body).toMatchObject({ success: true, payer: payer.address, network: SOLANA_DEVNET });
    expect(ledger.getTokenAccountBalance(await ataOf(payTo.address, X84_USDC))?.amount).toBe(10_000n);
  }, 30_000);
});
