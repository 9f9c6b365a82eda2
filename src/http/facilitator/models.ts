import { t } from "elysia";
import { REASON_CODES } from "../../domain/reason-codes.ts";

/**
 * Wire models of the facilitator's verification endpoints (x402 v2 names). The request body
 * is not declared as a schema on purpose: `normalisePaymentRequest` validates it by hand so every
 * malformed body gets the specified 400 shape, never Elysia's 422.
 */
export const ReasonCodeModel = t.Union(REASON_CODES.map((code) => t.Literal(code)));

export const VerifyResponseModel = t.Object({
  isValid: t.Boolean(),
  payer: t.Optional(t.String({ description: "TransferChecked authority (base58)" })),
  invalidReason: t.Optional(ReasonCodeModel),
  invalidMessage: t.Optional(t.String()),
  extensions: t.Optional(t.Record(t.String(), t.Unknown())),
});
export type VerifyResponse = typeof VerifyResponseModel.static;

export const SupportedKindModel = t.Object({
  x402Version: t.Number(),
  scheme: t.Literal("exact"),
  network: t.String(),
  extra: t.Object({
    feePayer: t.Optional(t.String()),
    /** Every mint this facilitator accepts on this network (USDC_MINT). */
    assets: t.Optional(t.Array(t.String())),
  }),
});
export type SupportedKind = typeof SupportedKindModel.static;

export const SupportedResponseModel = t.Object({
  kinds: t.Array(SupportedKindModel),
  extensions: t.Array(t.String()),
  signers: t.Record(t.String(), t.Array(t.String())),
});
export type SupportedResponse = typeof SupportedResponseModel.static;
