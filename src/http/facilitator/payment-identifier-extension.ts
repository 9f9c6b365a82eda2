import { HttpError } from "../http-error.ts";

/**
 * The x402 `payment-identifier` extension (coinbase/x402 specs/extensions/payment_identifier.md):
 * a client-chosen idempotency key in `extensions["payment-identifier"].info.id`, which this
 * facilitator takes as the payment's `paymentId`.
 *
 * The id and its bounds are the spec's, as @x402/extensions 2.27.0 exports them
 * (`PAYMENT_IDENTIFIER`, `PAYMENT_ID_MIN_LENGTH`, `PAYMENT_ID_MAX_LENGTH`, `PAYMENT_ID_PATTERN`).
 * They are restated here rather than imported: the request schema is built at start-up, and the
 * package's import (ajv) costs about 200 ms there, for four constants (discovery loads the package
 * only at its first declaration). tests/unit/contracts/payment-identifier-extension.test.ts fails
 * when they drift from the package's.
 */
export const PAYMENT_IDENTIFIER = "payment-identifier";
export const PAYMENT_IDENTIFIER_MIN_LENGTH = 16;
export const PAYMENT_IDENTIFIER_MAX_LENGTH = 128;
/** Letters, digits, `_` and `-`: every such id is also a valid `paymentId` (models.ts), so both share one store column. */
export const PAYMENT_IDENTIFIER_PATTERN = "^[a-zA-Z0-9_-]+$";

/**
 * The extension's id, which becomes the payment's `paymentId` at the HTTP edge, once: every
 * idempotency rule downstream (the store's per-payer key, ALREADY_SETTLED for another payment
 * under it, the replay of the same payment) then holds for it unchanged. Its format was checked
 * by the request schema. Refused with 400 PAYMENT_ID_INVALID: an id that differs from
 * `extensions.paymentId` (two keys for one payment: which one would it be found under?), and a
 * declaration echoed with `required: true` but no key at all. Null when no id is given.
 */
export function paymentIdentifierOf(extensions: Readonly<Record<string, unknown>>): string | null {
  const info = infoOf(extensions[PAYMENT_IDENTIFIER]);
  if (info === null) return null;
  const paymentId = typeof extensions["paymentId"] === "string" && extensions["paymentId"] !== "" ? extensions["paymentId"] : null;
  const id = typeof info["id"] === "string" ? info["id"] : null;
  if (id === null) {
    if (info["required"] === true && paymentId === null) {
      throw new HttpError(400, `PAYMENT_ID_INVALID: paymentPayload.extensions.${PAYMENT_IDENTIFIER}.info.id is required (the declaration says required: true)`);
    }
    return null;
  }
  if (paymentId !== null && paymentId !== id) {
    throw new HttpError(400, `PAYMENT_ID_INVALID: paymentPayload.extensions.paymentId and paymentPayload.extensions.${PAYMENT_IDENTIFIER}.info.id differ; send one idempotency key, or the same in both`);
  }
  return id;
}

function infoOf(extension: unknown): Readonly<Record<string, unknown>> | null {
  if (typeof extension !== "object" || extension === null) return null;
  const info = (extension as Readonly<Record<string, unknown>>)["info"];
  return typeof info === "object" && info !== null ? (info as Readonly<Record<string, unknown>>) : null;
}
