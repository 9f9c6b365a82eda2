import type { Address } from "@solana/kit";
import { Elysia } from "elysia";
import { v1NetworkFromCaip2 } from "../../domain/networks.ts";
import { settlementModeOf, type PaymentRequest } from "../../domain/payment/payment-request.ts";
import { MODE_EXTENSION_IDS } from "../../domain/settlement/settlement-mode.ts";
import { verifyPayment, type VerifyPaymentDeps, type VerifyPaymentResult } from "../../application/verify-payment.ts";
import { normalisePaymentRequest } from "./payment-request.ts";
import type { SupportedKind, SupportedResponse, VerifyResponse } from "./models.ts";

export type FacilitatorVerifyDeps = Omit<VerifyPaymentDeps, "feePayers"> &
  Readonly<{
    /** Every configured fee-payer address, first one advertised in `kinds`. */
    feePayers: () => readonly Address[];
    /**
     * Optional replacement for the standard verification, e.g. one that adds the settlement-mode
     * checks. Defaults to {@link verifyPayment} with these deps.
     */
    verify?: (request: PaymentRequest) => Promise<VerifyOutcome>;
  }>;

/** POST /verify and GET /supported as one Elysia plugin. */
export function facilitatorVerifyRoutes(deps: FacilitatorVerifyDeps) {
  const verify = deps.verify ?? ((request: PaymentRequest) => verifyPayment(request, deps));
  return new Elysia({ name: "facilitator-verify" })
    .get("/supported", (): SupportedResponse => supportedResponse(deps.network, deps.feePayers(), deps.assets ?? [deps.asset]))
    .post("/verify", async ({ body }): Promise<VerifyResponse> => {
      const request = normalisePaymentRequest(body);
      return toVerifyResponse(await verify(request), settlementModeOf(request.paymentPayload));
    });
}

/** design.md §3: one kind per protocol version, all signers listed under `solana:*`. */
export function supportedResponse(network: string, feePayers: readonly Address[], assets: readonly string[] = []): SupportedResponse {
  const [primary] = feePayers;
  const extra = { ...(primary ? { feePayer: primary } : {}), ...(assets.length > 0 ? { assets: [...assets] } : {}) };
  const kinds: SupportedKind[] = [{ x402Version: 2, scheme: "exact", network, extra }];
  const v1Network = v1NetworkFromCaip2(network);
  if (v1Network) kinds.push({ x402Version: 1, scheme: "exact", network: v1Network, extra });
  return { kinds, extensions: [...MODE_EXTENSION_IDS], signers: { "solana:*": [...feePayers] } };
}

/** What the verify route needs from any verification: who pays, or why it is refused. */
export type VerifyOutcome = Readonly<{ ok: true; payer: string }> | Extract<VerifyPaymentResult, { ok: false }>;

/** Maps the use case's result to the x402 v2 verify response; the mode is echoed when given. */
export function toVerifyResponse(result: VerifyOutcome, mode: unknown): VerifyResponse {
  const extensions = typeof mode === "string" ? { extensions: { mode } } : {};
  if (result.ok) return { isValid: true, payer: result.payer, ...extensions };
  return {
    isValid: false,
    invalidReason: result.reason,
    invalidMessage: result.message,
    ...(result.payer === undefined ? {} : { payer: result.payer }),
    ...extensions,
  };
}
