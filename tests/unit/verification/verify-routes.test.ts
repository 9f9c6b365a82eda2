import { describe, expect, test } from "bun:test";
import { Elysia } from "elysia";
import { silentLogger } from "../../../src/application/ports/logger.ts";
import { DEVNET_USDC_MINT, SOLANA_DEVNET } from "../../../src/domain/networks.ts";
import { errorLayer } from "../../../src/http/error-layer.ts";
import { facilitatorVerifyRoutes } from "../../../src/http/facilitator/verify-routes.ts";
import { buildTransaction, createActors, requirementsFor, requirementsJson } from "../../../fixtures/payment-builder.ts";
import { verifyDeps, withVerify } from "../../../fixtures/verify-deps.ts";

describe("POST /verify and GET /supported through app.handle (Elysia, hand-written fake ledger)", async () => {
  const actors = await createActors();
  const deps = verifyDeps(actors);
  const app = new Elysia()
    .use(errorLayer(silentLogger))
    .use(facilitatorVerifyRoutes(withVerify(deps)));
  const transaction = await buildTransaction(actors);
  const requirements = requirementsJson(requirementsFor(actors));
  const v2Payload = { x402Version: 2, accepted: requirements, payload: { transaction } };

  const post = (body: string, contentType = "application/json") =>
    app.handle(new Request("http://facilitator/verify", { method: "POST", headers: { "content-type": contentType }, body }));
  const postJson = (body: unknown) => post(JSON.stringify(body));

  async function expectBadRequest(response: Response): Promise<void> {
    expect(response.status).toBe(400);
    const body = (await response.json()) as Record<string, unknown>;
    expect(body["statusCode"]).toBe(400);
    expect(body["error"]).toBe("Bad Request");
    const message = body["message"];
    expect(typeof message === "string" || (Array.isArray(message) && message.every((m) => typeof m === "string"))).toBe(true);
  }

  test("a valid v2 payment answers isValid true with the payer", async () => {
    const response = await postJson({ x402Version: 2, paymentPayload: v2Payload, paymentRequirements: requirements });
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ isValid: true, payer: actors.payer.address });
  });

  test("resource as an object, unknown top-level and extra fields are accepted", async () => {
    const body = {
      x402Version: 2,
      somethingNew: true,
      paymentPayload: { ...v2Payload, resource: { url: "https://api.example/x", mimeType: "application/json" } },
      paymentRequirements: { ...requirements, extra: { ...(requirements["extra"] as object), name: "USDC", future: 1 } },
    };
    expect(await (await postJson(body)).json()).toMatchObject({ isValid: true });
  });

  test("a payment problem is 200 with isValid false, the reason code and a message", async () => {
    const response = await postJson({ paymentPayload: v2Payload, paymentRequirements: { ...requirements, amount: "5" } });
    expect(response.status).toBe(200);
    const body = (await response.json()) as Record<string, unknown>;
    expect(body["isValid"]).toBe(false);
    expect(body["invalidReason"]).toBe("ACCEPTED_REQUIREMENTS_MISMATCH");
    expect(typeof body["invalidMessage"]).toBe("string");
  });

  test("a settlement mode is echoed in extensions (the route runs the whole pipeline: an atomic payment without its receipt fields is refused by the atomic mode)", async () => {
    const response = await postJson({ paymentPayload: { ...v2Payload, extensions: { mode: "atomic" } }, paymentRequirements: requirements });
    expect(await response.json()).toMatchObject({ isValid: false, invalidReason: "MODE_INVALID", extensions: { mode: "atomic" } });
  });

  test("the v1 legacy form (base64 JSON string, v1 network name, maxAmountRequired) verifies", async () => {
    const v1 = btoa(JSON.stringify({ x402Version: 1, scheme: "exact", network: "solana-devnet", payload: { transaction } }));
    const { amount, ...rest } = requirements;
    const v1Requirements = { ...rest, network: "solana-devnet", maxAmountRequired: amount, resource: "https://api.example/x" };
    const response = await postJson({ x402Version: 1, paymentPayload: v1, paymentRequirements: v1Requirements });
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ isValid: true, payer: actors.payer.address });
  });

  test("a v1 payload naming another network is ACCEPTED_REQUIREMENTS_MISMATCH", async () => {
    const v1 = btoa(JSON.stringify({ x402Version: 1, scheme: "exact", network: "solana", payload: { transaction } }));
    const response = await postJson({ paymentPayload: v1, paymentRequirements: requirements });
    expect(await response.json()).toMatchObject({ isValid: false, invalidReason: "ACCEPTED_REQUIREMENTS_MISMATCH" });
  });

  test("400: non-JSON body", async () => {
    await expectBadRequest(await post("this is not json"));
  });

  test("400: JSON that is not an object", async () => {
    await expectBadRequest(await postJson([1, 2, 3]));
  });

  test("400: missing paymentPayload and paymentRequirements, both named", async () => {
    const response = await postJson({});
    await expectBadRequest(response.clone());
    const body = (await response.json()) as { message: string[] };
    expect(body.message).toEqual(["paymentPayload is required", "paymentRequirements is required"]);
  });

  test("400: missing paymentRequirements", async () => {
    await expectBadRequest(await postJson({ paymentPayload: v2Payload }));
  });

  test("400: paymentPayload as a number", async () => {
    await expectBadRequest(await postJson({ paymentPayload: 42, paymentRequirements: requirements }));
  });

  test("400: paymentPayload as a non-base64 string", async () => {
    await expectBadRequest(await postJson({ paymentPayload: "not base64 at all!", paymentRequirements: requirements }));
  });

  test("400: paymentPayload as base64 of non-JSON", async () => {
    await expectBadRequest(await postJson({ paymentPayload: btoa("definitely { not json"), paymentRequirements: requirements }));
  });

  test("400: v2 payload without accepted or payload.transaction", async () => {
    await expectBadRequest(await postJson({ paymentPayload: { x402Version: 2, payload: {} }, paymentRequirements: requirements }));
  });

  test("400: requirements with a non-integer amount", async () => {
    await expectBadRequest(await postJson({ paymentPayload: v2Payload, paymentRequirements: { ...requirements, amount: "1.5" } }));
  });

  test("413: a 2 MB body, in the error shape", async () => {
    const huge = JSON.stringify({ paymentPayload: v2Payload, paymentRequirements: requirements, pad: "x".repeat(2 * 1024 * 1024) });
    const response = await post(huge);
    expect(response.status).toBe(413);
    expect(await response.json()).toMatchObject({ statusCode: 413, error: "Payload Too Large" });
  });

  test("GET /supported lists both kinds, the extensions and every fee payer", async () => {
    const second = (await createActors()).feePayer.address;
    const multi = new Elysia()
      .use(errorLayer(silentLogger))
      .use(facilitatorVerifyRoutes(withVerify({ ...deps, feePayers: () => [actors.feePayer.address, second] })));
    const response = await multi.handle(new Request("http://facilitator/supported"));
    expect(response.status).toBe(200);
    // The declared policy: the default caps, no minimum, no split, any payTo.
    const policy = {
      maxComputeUnitLimit: 400_000,
      maxComputeUnitPriceMicroLamports: 5_000_000,
      maxPriorityFeeLamports: 25_000,
      maxInstructions: 8,
      minimumAmounts: {},
      protocolFee: null,
      payToPolicy: "any",
    };
    // Each asset's token program and Token-2022 extensions (issue 24): USDC is an SPL Token mint.
    const assetPolicies = [{ asset: DEVNET_USDC_MINT, tokenProgram: "TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA", decimals: 6, extensions: [], transferFee: "none", refusedWith: null }];
    expect(await response.json()).toEqual({
      kinds: [
        { x402Version: 2, scheme: "exact", network: SOLANA_DEVNET, extra: { feePayer: actors.feePayer.address, assets: [DEVNET_USDC_MINT], policy, assetPolicies } },
        { x402Version: 1, scheme: "exact", network: "solana-devnet", extra: { feePayer: actors.feePayer.address, assets: [DEVNET_USDC_MINT], policy, assetPolicies } },
      ],
      extensions: ["svc-atomic", "svc-attestation", "svc-delegated", "x84-atomic", "x84-attestation", "x84-delegated", "payment-identifier"],
      signers: { "solana:*": [actors.feePayer.address, second] },
    });
    expect(DEVNET_USDC_MINT).toBe(requirements["asset"] as string);
  });
});
