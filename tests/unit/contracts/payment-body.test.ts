/**
 * The /verify and /settle body schema (src/http/facilitator/models.ts) accepts exactly what
 * design.md §3 allows, says what is wrong otherwise, and is the one schema both paths use:
 * Elysia's validation on the routes and the compiled check of `normalisePaymentRequest`.
 */
import { describe, expect, test } from "bun:test";
import { Elysia } from "elysia";
import { silentLogger } from "../../../src/application/ports/logger.ts";
import { decimalAtMostPattern } from "../../../src/http/decimal-pattern.ts";
import { errorLayer } from "../../../src/http/error-layer.ts";
import { EXAMPLE_REQUIREMENTS, EXAMPLE_TRANSACTION, EXAMPLE_V1_REQUEST, EXAMPLE_V2_REQUEST } from "../../../src/http/facilitator/examples.ts";
import { normalisePaymentRequest } from "../../../src/http/facilitator/payment-request.ts";
import { facilitatorVerifyRoutes } from "../../../src/http/facilitator/verify-routes.ts";
import { HttpError } from "../../../src/http/http-error.ts";
import { createActors } from "../../../fixtures/payment-builder.ts";
import { verifyDeps, withVerify } from "../../../fixtures/verify-deps.ts";
import { jsonRequest } from "../../contracts/support/contract.ts";

const R = EXAMPLE_REQUIREMENTS;
const v2 = { x402Version: 2, accepted: R, payload: { transaction: EXAMPLE_TRANSACTION } };
const v1Base64 = (payload: unknown) => btoa(JSON.stringify(payload));
const v1 = { x402Version: 1, scheme: "exact", network: "solana-devnet", payload: { transaction: EXAMPLE_TRANSACTION } };

/** design.md §3: accepted, whatever else they carry. */
const ACCEPTED: Record<string, unknown> = {
  "the official client's v2 body": EXAMPLE_V2_REQUEST,
  "the v1 base64 string with v1 requirements": EXAMPLE_V1_REQUEST,
  "the v1 object the v1 HTTP client sends": { paymentPayload: v1, paymentRequirements: R },
  "resource as a string": { paymentPayload: { ...v2, resource: "https://api.example.com/x" }, paymentRequirements: R },
  "resource as an object": { paymentPayload: { ...v2, resource: { url: "https://api.example.com/x", mimeType: "application/json" } }, paymentRequirements: R },
  "unknown top-level, payload, requirements and extra fields": {
    x402Version: 2,
    somethingNew: { nested: true },
    paymentPayload: { ...v2, future: 1, payload: { transaction: EXAMPLE_TRANSACTION, more: "x" } },
    paymentRequirements: { ...R, outputSchema: {}, extra: { ...R.extra, name: "USDC", future: [1, 2] } },
  },
  "a settlement mode without a transaction": { paymentPayload: { x402Version: 2, accepted: R, extensions: { mode: "svc-atomic", paymentId: "ab".repeat(32) } }, paymentRequirements: R },
  "a settlement mode with payload null": { paymentPayload: { x402Version: 2, accepted: R, payload: null, extensions: { mode: 42 } }, paymentRequirements: R },
  "null extra, extensions and resource": { paymentPayload: { ...v2, extensions: null, resource: null }, paymentRequirements: { ...R, extra: null } },
  "the largest u64 amount, as a string": { paymentPayload: v2, paymentRequirements: { ...R, amount: "18446744073709551615" } },
  // v1 input keeps v1's names and forms (issue 25 holds only v2 to the spec's).
  "v1 requirements with a JSON-integer maxAmountRequired and the v1 network name": {
    paymentPayload: v1Base64(v1),
    paymentRequirements: { ...EXAMPLE_V1_REQUEST.paymentRequirements, maxAmountRequired: 1000 },
  },
  "an amount as a JSON integer beside the v1 object payload": { paymentPayload: v1, paymentRequirements: { ...R, amount: 1000 } },
  "a 128-character paymentId of the whole charset": { paymentPayload: { ...v2, extensions: { paymentId: `aZ09._:-${"x".repeat(120)}` } }, paymentRequirements: R },
};

/** Refused with 400, and the message names the problem. */
const REFUSED: Record<string, readonly [unknown, string]> = {
  "not an object": [[1, 2], "request body must be a JSON object"],
  "nothing": [{}, "paymentPayload is required"],
  "paymentPayload a number": [{ paymentPayload: 42, paymentRequirements: R }, "paymentPayload must be a v2 object or a base64-encoded v1 JSON string"],
  "paymentPayload a non-base64 string": [{ paymentPayload: "not base64!", paymentRequirements: R }, "paymentPayload is not valid base64"],
  "base64 of something not JSON": [{ paymentPayload: btoa("{ nope"), paymentRequirements: R }, "paymentPayload string is not base64-encoded JSON"],
  "base64 of a v1 payload without network": [{ paymentPayload: v1Base64({ ...v1, network: undefined }), paymentRequirements: R }, "paymentPayload (decoded).network is required"],
  "v2 without accepted": [{ paymentPayload: { x402Version: 2, payload: { transaction: EXAMPLE_TRANSACTION } }, paymentRequirements: R }, "paymentPayload.accepted is required"],
  "no transaction and no mode": [{ paymentPayload: { x402Version: 2, accepted: R, payload: {} }, paymentRequirements: R }, "paymentPayload.payload.transaction is required"],
  "a transaction that is not a string": [{ paymentPayload: { ...v2, payload: { transaction: 7 } }, paymentRequirements: R }, "paymentPayload.payload.transaction must be a base64 string"],
  "an amount above u64": [{ paymentPayload: v2, paymentRequirements: { ...R, amount: "18446744073709551616" } }, "paymentRequirements.amount must be a non-negative integer"],
  "a fractional amount": [{ paymentPayload: v2, paymentRequirements: { ...R, amount: "1.5" } }, "paymentRequirements.amount must be a non-negative integer"],
  "a negative amount in accepted": [{ paymentPayload: { ...v2, accepted: { ...R, amount: -1 } }, paymentRequirements: R }, "paymentPayload.accepted.amount must be a non-negative integer"],
  // x402 v2 is held to its own forms (issue 25): these used to verify as valid.
  "a v2 payment whose requirements' amount is a JSON number": [
    { paymentPayload: v2, paymentRequirements: { ...R, amount: 1000 } },
    "paymentRequirements.amount must be a non-negative integer in base units as a decimal string in x402 v2",
  ],
  "a v2 payment whose accepted amount is a JSON number": [
    { paymentPayload: { ...v2, accepted: { ...R, amount: 1000 } }, paymentRequirements: R },
    "paymentPayload.accepted.amount must be a non-negative integer in base units as a decimal string in x402 v2",
  ],
  "a v2 payment whose requirements name the v1 network solana-devnet": [
    { paymentPayload: v2, paymentRequirements: { ...R, network: "solana-devnet" } },
    "paymentRequirements.network must be a CAIP-2 network id (namespace:reference, e.g. solana:EtWTRABZaYq6iMfeYKouRu166VU2xqa1) in x402 v2",
  ],
  "a v2 payment whose accepted names the v1 network solana-devnet": [
    { paymentPayload: { ...v2, accepted: { ...R, network: "solana-devnet" } }, paymentRequirements: R },
    "paymentPayload.accepted.network must be a CAIP-2 network id",
  ],
  "a v2 payment with v1's maxAmountRequired instead of amount": [
    { paymentPayload: v2, paymentRequirements: { ...EXAMPLE_V1_REQUEST.paymentRequirements, network: R.network } },
    "paymentRequirements.amount is required",
  ],
  "an empty scheme": [{ paymentPayload: v2, paymentRequirements: { ...R, scheme: "" } }, "paymentRequirements.scheme must be a non-empty string"],
  "extra not an object": [{ paymentPayload: v2, paymentRequirements: { ...R, extra: [] } }, "paymentRequirements.extra must be an object"],
  "resource of the wrong type": [{ paymentPayload: { ...v2, resource: 5 }, paymentRequirements: R }, "paymentPayload.resource must be a string or an object with a string url"],
  "a 129-character paymentId": [{ paymentPayload: { ...v2, extensions: { paymentId: "x".repeat(129) } }, paymentRequirements: R }, "PAYMENT_ID_INVALID: paymentPayload.extensions.paymentId must be"],
  "a paymentId that is a number": [{ paymentPayload: { ...v2, extensions: { mode: "atomic", paymentId: 42 } }, paymentRequirements: R }, "PAYMENT_ID_INVALID: paymentPayload.extensions.paymentId must be"],
};

function refusal(body: unknown): string[] | null {
  try {
    normalisePaymentRequest(body);
    return null;
  } catch (error) {
    if (!(error instanceof HttpError) || error.statusCode !== 400) throw error;
    return Array.isArray(error.detail) ? error.detail : [error.detail];
  }
}

describe("the payment request body schema", async () => {
  const actors = await createActors();
  const app = new Elysia({ normalize: false })
    .use(errorLayer(silentLogger))
    .use(facilitatorVerifyRoutes(withVerify(verifyDeps(actors, { simulate: false }))));

  for (const [name, body] of Object.entries(ACCEPTED)) {
    test(`accepts ${name} (compiled check and route alike)`, async () => {
      expect(refusal(body)).toBeNull();
      const response = await app.handle(jsonRequest("POST", "/verify", body));
      expect(response.status).toBe(200);
    });
  }

  for (const [name, [body, expected]] of Object.entries(REFUSED)) {
    test(`refuses ${name}: 400 naming the problem (compiled check and route alike)`, async () => {
      const problems = refusal(body);
      expect(problems?.some((line) => line.startsWith(expected))).toBe(true);
      const response = await app.handle(jsonRequest("POST", "/verify", body));
      expect(response.status).toBe(400);
      const answer = (await response.json()) as { statusCode: number; error: string; message: string | string[] };
      expect(answer).toMatchObject({ statusCode: 400, error: "Bad Request" });
      expect([answer.message].flat().some((line) => line.startsWith(expected))).toBe(true);
    });
  }

  test("unknown requirements fields and extra fields reach verification; mode aliases become the spec's names", () => {
    const body = ACCEPTED["unknown top-level, payload, requirements and extra fields"];
    expect(normalisePaymentRequest(body).paymentRequirements.extra).toEqual({ ...R.extra, name: "USDC", future: [1, 2] });
    const mode = normalisePaymentRequest(ACCEPTED["a settlement mode without a transaction"]);
    expect(mode.paymentPayload).toMatchObject({ transaction: null, extensions: { mode: "atomic" } });
  });

  test("the v1 forms become v2 with CAIP-2 networks and bigint amounts", () => {
    const request = normalisePaymentRequest(EXAMPLE_V1_REQUEST);
    expect(request.sourceVersion).toBe(1);
    expect(request.paymentRequirements).toMatchObject({ network: "solana:EtWTRABZaYq6iMfeYKouRu166VU2xqa1", amount: 1000n });
    expect(request.paymentPayload.accepted).toMatchObject({ scheme: "exact", network: "solana:EtWTRABZaYq6iMfeYKouRu166VU2xqa1", amount: 1000n });
    expect(request.paymentPayload.transaction).toBe(EXAMPLE_TRANSACTION);
  });
});

describe("decimalAtMostPattern (the u64 bound as a JSON Schema pattern)", () => {
  const u64 = 2n ** 64n - 1n;

  test("matches exactly the canonical decimals 0..max, checked against BigInt", () => {
    for (const max of [0n, 7n, 9n, 10n, 19n, 100n, 255n, 1000n, 9099n]) {
      const pattern = new RegExp(decimalAtMostPattern(max));
      for (let n = 0n; n <= max + 120n; n++) expect({ max, n, matches: pattern.test(String(n)) }).toEqual({ max, n, matches: n <= max });
      for (const text of ["", "-1", "01", "1.0", " 1", "1e3"]) expect({ max, text, matches: pattern.test(text) }).toEqual({ max, text, matches: false });
    }
  });

  test("around u64's maximum, and for every length up to 21 digits", () => {
    const pattern = new RegExp(decimalAtMostPattern(u64));
    for (let delta = -1000n; delta <= 1000n; delta++) expect(pattern.test(String(u64 + delta))).toBe(u64 + delta <= u64);
    for (let digits = 1; digits <= 21; digits++) {
      for (const lead of ["1", "5", "9"]) {
        const n = BigInt(lead + "7".repeat(digits - 1));
        expect({ n, matches: pattern.test(String(n)) }).toEqual({ n, matches: n <= u64 });
      }
    }
  });
});
