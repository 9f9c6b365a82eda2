import { Elysia } from "elysia";
import type { PaymentAnswer } from "../../application/discovery/discovery-recorder.ts";
import type { SettlementService } from "../../application/settlement/settle-payment.ts";
import { errorResponses } from "../error-models.ts";
import { HttpError } from "../http-error.ts";
import type { ApiKeyCallers } from "./api-key-guard.ts";
import { PaymentRequestBody, SettleResponseModel } from "./models.ts";
import { toPaymentRequest } from "./payment-request.ts";

export type FacilitatorSettleDeps = Readonly<{
  /** Null when no fee-payer key is configured: /settle then answers the specified 500. */
  settlement: SettlementService | null;
  /** Which requests presented a valid API key (the guard marks them); absent: every caller is anonymous. */
  apiKeyCallers?: ApiKeyCallers;
  /** Told of each answer after it is computed (the Bazaar catalogue); must not throw or wait. */
  observePayment?: (answer: PaymentAnswer) => void;
}>;

/** POST /settle: payment problems are 200 with `success: false`; only a malformed body is 400. */
export function facilitatorSettleRoutes(deps: FacilitatorSettleDeps) {
  return new Elysia({ name: "facilitator-settle" }).post(
    "/settle",
    async ({ body, request: httpRequest }) => {
      const request = toPaymentRequest(body);
      if (!deps.settlement) throw new HttpError(500, "facilitator keypair is not configured for settlement");
      const result = await deps.settlement.settle(request, { caller: deps.apiKeyCallers?.hasKey(httpRequest) ? "api-key" : "anonymous" });
      deps.observePayment?.({ kind: "settle", body, ok: result.success });
      return result;
    },
    {
      parse: "json",
      body: PaymentRequestBody,
      response: {
        200: SettleResponseModel,
        ...errorResponses([400, 401, 413, 500], {
          500: { when: "the facilitator keypair is not configured for settlement, or an unexpected failure", message: "facilitator keypair is not configured for settlement" },
        }),
      },
      detail: {
        operationId: "settle",
        // Open unless the operator configured API keys (FACILITATOR_API_KEYS_FILE).
        security: [{}, { apiKey: [] }],
        tags: ["payments"],
        summary: "Verify, co-sign as fee payer, submit, confirm and record a payment",
        description:
          "The same verification as /verify, then the settlement exactly once: the same transaction (or paymentId) settled again returns the original result with `extensions.replayed: true` (or DUPLICATE_SETTLEMENT with SETTLE_DUPLICATES=reject). Settlement modes (`extensions.mode`) record payments already on chain. Every outcome of the payment is 200; `success` says which.",
      },
    },
  );
}
