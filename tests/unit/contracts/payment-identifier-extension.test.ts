/**
 * Issue 23 §3: the x402 `payment-identifier` extension at the HTTP edge. The constants this
 * service restates (payment-identifier-extension.ts) are the ones @x402/extensions 2.27.0 exports,
 * the request schema accepts exactly the ids the package's own `isValidPaymentId` accepts, and a
 * payload built with the stock helpers (`declarePaymentIdentifierExtension` on the server's side,
 * `appendPaymentIdentifierToExtensions` on the client's) has its id mapped onto `paymentId`.
 */
import { describe, expect, test } from "bun:test";
import {
  PAYMENT_IDENTIFIER as PACKAGE_KEY,
  PAYMENT_ID_MAX_LENGTH,
  PAYMENT_ID_MIN_LENGTH,
  PAYMENT_ID_PATTERN,
  appendPaymentIdentifierToExtensions,
  declarePaymentIdentifierExtension,
  generatePaymentId,
  isValidPaymentId,
  paymentIdentifierSchema,
} from "@x402/extensions/payment-identifier";
import { EXAMPLE_REQUIREMENTS, EXAMPLE_TRANSACTION } from "../../../src/http/facilitator/examples.ts";
import { normalisePaymentRequest } from "../../../src/http/facilitator/payment-request.ts";
import {
  PAYMENT_IDENTIFIER,
  PAYMENT_IDENTIFIER_MAX_LENGTH,
  PAYMENT_IDENTIFIER_MIN_LENGTH,
  PAYMENT_IDENTIFIER_PATTERN,
} from "../../../src/http/facilitator/payment-identifier-extension.ts";
import { HttpError } from "../../../src/http/http-error.ts";

const R = EXAMPLE_REQUIREMENTS;

function bodyWith(extensions: unknown): unknown {
  return { paymentPayload: { x402Version: 2, accepted: R, payload: { transaction: EXAMPLE_TRANSACTION }, extensions }, paymentRequirements: R };
}

/** What a stock client sends: the server's declaration, echoed, with its id appended. */
function stockExtensions(id?: string, required = false): Record<string, unknown> {
  const extensions: Record<string, unknown> = { [PACKAGE_KEY]: declarePaymentIdentifierExtension(required) };
  if (id !== undefined) appendPaymentIdentifierToExtensions(extensions, id);
  return extensions;
}

function refusal(body: unknown): string {
  try {
    normalisePaymentRequest(body);
  } catch (error) {
    if (!(error instanceof HttpError) || error.statusCode !== 400) throw error;
    return Array.isArray(error.detail) ? error.detail.join("\n") : error.detail;
  }
  throw new Error("expected a 400");
}

describe("the payment-identifier extension (x402 spec; stock @x402/extensions 2.27.0 helpers)", () => {
  test("the restated constants are the package's (this fails when a new package version changes them)", () => {
    expect(PAYMENT_IDENTIFIER).toBe(PACKAGE_KEY);
    expect(PAYMENT_IDENTIFIER_MIN_LENGTH).toBe(PAYMENT_ID_MIN_LENGTH);
    expect(PAYMENT_IDENTIFIER_MAX_LENGTH).toBe(PAYMENT_ID_MAX_LENGTH);
    expect(PAYMENT_IDENTIFIER_PATTERN).toBe(PAYMENT_ID_PATTERN.source);
    expect(paymentIdentifierSchema.properties.id).toMatchObject({ minLength: PAYMENT_IDENTIFIER_MIN_LENGTH, maxLength: PAYMENT_IDENTIFIER_MAX_LENGTH, pattern: PAYMENT_IDENTIFIER_PATTERN });
  });

  test("a stock client's id (generatePaymentId, appended to the stock declaration) becomes the payment's paymentId", () => {
    const id = generatePaymentId();
    const request = normalisePaymentRequest(bodyWith(stockExtensions(id)));
    expect(request.paymentPayload.extensions?.["paymentId"]).toBe(id);
    // The extension itself is kept as sent.
    expect(request.paymentPayload.extensions?.[PAYMENT_IDENTIFIER]).toMatchObject({ info: { required: false, id } });
  });

  test("the declaration echoed without an id (a stock client that did not append one) is accepted, with no paymentId", () => {
    const request = normalisePaymentRequest(bodyWith(stockExtensions()));
    expect(request.paymentPayload.extensions?.["paymentId"]).toBeUndefined();
  });

  test("the schema accepts exactly the ids the package's isValidPaymentId accepts", () => {
    const samples = [
      "a".repeat(15), "a".repeat(16), "a".repeat(128), "a".repeat(129), `pay_${"0".repeat(12)}`, "pay-7d5d747be160e280",
      "pay.7d5d747be160e280", "pay:7d5d747be160e280", "pay 7d5d747be160e280", "pay_7d5d747be160e28é", "pay_7d5d747be160e280\n", "",
    ];
    for (const id of samples) {
      const body = bodyWith({ [PAYMENT_IDENTIFIER]: { info: { required: false, id }, schema: paymentIdentifierSchema } });
      const accepted = (() => {
        try {
          normalisePaymentRequest(body);
          return true;
        } catch (error) {
          if (error instanceof HttpError && error.statusCode === 400) return false;
          throw error;
        }
      })();
      expect({ id, accepted }).toEqual({ id, accepted: isValidPaymentId(id) });
    }
  });

  test("an id of the wrong length or charset, or not a string, is 400 PAYMENT_ID_INVALID naming the field", () => {
    for (const id of ["short", "x".repeat(129), "pay.with.dots.in.it", "pay with spaces 0000", 42, null]) {
      const message = refusal(bodyWith({ [PAYMENT_IDENTIFIER]: { info: { required: false, id } } }));
      expect(message).toContain("PAYMENT_ID_INVALID: paymentPayload.extensions.payment-identifier.info.id must be 16 to 128 characters");
    }
  });

  test("an extension that is not an object, or has no info object, is 400 naming the field", () => {
    expect(refusal(bodyWith({ [PAYMENT_IDENTIFIER]: "pay_7d5d747be160e280" }))).toContain("paymentPayload.extensions.payment-identifier must be an object");
    expect(refusal(bodyWith({ [PAYMENT_IDENTIFIER]: { id: "pay_7d5d747be160e280" } }))).toContain("paymentPayload.extensions.payment-identifier.info is required");
    expect(refusal(bodyWith({ [PAYMENT_IDENTIFIER]: { info: [] } }))).toContain("paymentPayload.extensions.payment-identifier.info must be an object");
  });

  test("a declaration that says required: true and no id anywhere is 400 PAYMENT_ID_INVALID; a paymentId beside it is the key", () => {
    expect(refusal(bodyWith(stockExtensions(undefined, true)))).toContain("PAYMENT_ID_INVALID: paymentPayload.extensions.payment-identifier.info.id is required");
    const request = normalisePaymentRequest(bodyWith({ ...stockExtensions(undefined, true), paymentId: "order-42" }));
    expect(request.paymentPayload.extensions?.["paymentId"]).toBe("order-42");
  });

  test("a paymentId that differs from the identifier is 400 PAYMENT_ID_INVALID; the same one in both is accepted", () => {
    const id = generatePaymentId();
    expect(refusal(bodyWith({ ...stockExtensions(id), paymentId: "order-42" }))).toContain("PAYMENT_ID_INVALID: paymentPayload.extensions.paymentId and paymentPayload.extensions.payment-identifier.info.id differ");
    expect(normalisePaymentRequest(bodyWith({ ...stockExtensions(id), paymentId: id })).paymentPayload.extensions?.["paymentId"]).toBe(id);
  });

  test("the v1 forms carry it too", () => {
    const id = generatePaymentId();
    const v1 = { x402Version: 1, scheme: "exact", network: "solana-devnet", payload: { transaction: EXAMPLE_TRANSACTION }, extensions: stockExtensions(id) };
    expect(normalisePaymentRequest({ paymentPayload: btoa(JSON.stringify(v1)), paymentRequirements: R }).paymentPayload.extensions?.["paymentId"]).toBe(id);
  });
});
