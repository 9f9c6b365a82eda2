import { afterAll, describe, expect, test } from "bun:test";
import { ExactSvmScheme } from "@x402/svm/exact/client";
import { ExactSvmSchemeV1 } from "@x402/svm/exact/v1/client";
import { generateKeyPairSigner, type Address } from "@solana/kit";
import { Elysia } from "elysia";
import { silentLogger } from "../../src/application/ports/logger.ts";
import { verifyPayment } from "../../src/application/payment/verify.ts";
import { DEVNET_USDC_MINT, SOLANA_DEVNET, USDC_DECIMALS } from "../../src/domain/networks.ts";
import { systemClock } from "../../src/application/ports/clock.ts";
import { DEFAULT_REGISTRY_PROGRAM_ID } from "../../src/domain/registry/pdas.ts";
import type { PaymentRequest } from "../../src/domain/payment/payment-request.ts";
import { DEFAULT_VERIFICATION_POLICY } from "../../src/domain/verification/verification-policy.ts";
import { errorLayer } from "../../src/http/error-layer.ts";
import { facilitatorVerifyRoutes } from "../../src/http/facilitator/verify-routes.ts";
import { createLocalLedger } from "../../src/infrastructure/ledger/local-ledger.ts";
import { serveLocalLedgerRpc } from "../../src/infrastructure/ledger/local-ledger.ts";
import { createVerificationCaches } from "../../src/application/payment/verification-caches.ts";

/**
 * The official x402 client (@x402/svm ExactSvmScheme, v2 and v1) builds payments against the
 * embedded ledger's JSON-RPC (real SPL Token execution in litesvm); our facilitator verifies them
 * with simulation on against the same ledger.
 */
describe("interop: @x402/svm client payments verified against the embedded ledger (litesvm)", async () => {
  const ledger = createLocalLedger();
  const rpc = serveLocalLedgerRpc(ledger, { port: 0 });
  afterAll(() => rpc.stop());

  const [feePayer, payer, payTo, broke] = await Promise.all([
    generateKeyPairSigner(),
    generateKeyPairSigner(),
    generateKeyPairSigner(),
    generateKeyPairSigner(),
  ]);
  const usdc = DEVNET_USDC_MINT as Address;
  await ledger.airdrop(feePayer.address, 1_000_000_000n);
  await ledger.setTokenAccount(payer.address, usdc, { amount: 5_000_000n });
  await ledger.setTokenAccount(payTo.address, usdc, { amount: 0n });

  const deps = {
    ledger,
    feePayers: () => [feePayer.address],
    policy: DEFAULT_VERIFICATION_POLICY,
    network: SOLANA_DEVNET,
    assets: [usdc],
    assetDecimals: USDC_DECIMALS,
    protocolFee: null,
    clock: systemClock,
    programId: DEFAULT_REGISTRY_PROGRAM_ID as Address,
    simulate: true,
    ...createVerificationCaches(ledger),
  };
  const requirements = {
    scheme: "exact",
    network: SOLANA_DEVNET,
    asset: usdc,
    amount: "10000",
    payTo: payTo.address,
    maxTimeoutSeconds: 60,
    extra: { feePayer: feePayer.address },
  } as const;
  const app = new Elysia().use(errorLayer(silentLogger)).use(facilitatorVerifyRoutes({ ...deps, verify: (request) => verifyPayment(request, deps) }));
  const postVerify = async (body: unknown) =>
    (await app.handle(
      new Request("http://facilitator/verify", { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) }),
    ).then((r) => r.json())) as Record<string, unknown>;

  async function officialV2Body(signer = payer): Promise<Record<string, unknown>> {
    const client = new ExactSvmScheme(signer, { rpcUrl: rpc.url });
    const created = await client.createPaymentPayload(2, { ...requirements });
    // What @x402/core's HTTP facilitator client sends: top-level x402Version, resource as an object.
    return {
      x402Version: 2,
      paymentPayload: {
        ...created,
        accepted: requirements,
        resource: { url: "https://api.example/weather", description: "weather", mimeType: "application/json" },
      },
      paymentRequirements: requirements,
    };
  }

  test("a v2 payment built by the official client is valid over HTTP, simulation on", async () => {
    expect(await postVerify(await officialV2Body())).toEqual({ isValid: true, payer: payer.address });
  });

  test("a v1 payment built by the official v1 client (base64 string form) is valid", async () => {
    const client = new ExactSvmSchemeV1(payer, { rpcUrl: rpc.url });
    const v1Requirements = {
      scheme: "exact",
      network: "solana-devnet",
      asset: usdc,
      maxAmountRequired: "10000",
      payTo: payTo.address,
      resource: "https://api.example/weather",
      description: "weather",
      mimeType: "application/json",
      maxTimeoutSeconds: 60,
      extra: { feePayer: feePayer.address },
    };
    // The v1 client is typed with v2 requirements but reads the v1 fields (maxAmountRequired).
    type ClientRequirements = Parameters<ExactSvmSchemeV1["createPaymentPayload"]>[1];
    const created = await client.createPaymentPayload(1, v1Requirements as unknown as ClientRequirements);
    const body = { x402Version: 1, paymentPayload: btoa(JSON.stringify(created)), paymentRequirements: v1Requirements };
    expect(await postVerify(body)).toEqual({ isValid: true, payer: payer.address });
  });

  test("simulation against the embedded ledger: a payer without funds is rejected", async () => {
    const result = await postVerify(await officialV2Body(broke));
    expect(result["isValid"]).toBe(false);
    // The funds check reads the payer's token account before simulating: its own reason code.
    expect(result["invalidReason"]).toBe("INSUFFICIENT_FUNDS");
    expect(result["payer"]).toBe(broke.address);
    expect(String(result["invalidMessage"])).toContain("is not an SPL token account");
  });

  test("the same unfunded payment passes with simulation off (so the ledger is what caught it)", async () => {
    const body = await officialV2Body(broke);
    const payload = body["paymentPayload"] as { payload: { transaction: string } };
    const request: PaymentRequest = {
      paymentPayload: {
        x402Version: 2,
        accepted: { ...requirements, amount: 10_000n },
        transaction: payload.payload.transaction,
        extensions: null,
      },
      paymentRequirements: { ...requirements, amount: 10_000n },
      sourceVersion: 2,
    };
    expect((await verifyPayment(request, { ...deps, simulate: false })).ok).toBe(true);
    expect(await verifyPayment(request, deps)).toMatchObject({ ok: false, reason: "INSUFFICIENT_FUNDS" });
  });
});
