import { Elysia } from "elysia";
import type { SettleResponse } from "../../application/settlement/settle-response.ts";
import type { SettlementService } from "../../application/settlement/settle-payment.ts";
import { HttpError } from "../http-error.ts";
import { normalisePaymentRequest } from "./payment-request.ts";

export type FacilitatorSettleDeps = Readonly<{
  /** Null when no fee-payer key is configured: /settle then answers the specified 500. */
  settlement: SettlementService | null;
}>;

/** POST /settle: payment problems are 200 with `success: false`; only a malformed body is 400. */
export function facilitatorSettleRoutes(deps: FacilitatorSettleDeps) {
  return new Elysia({ name: "facilitator-settle" }).post("/settle", async ({ body }): Promise<SettleResponse> => {
    const request = normalisePaymentRequest(body);
    if (!deps.settlement) throw new HttpError(500, "facilitator keypair is not configured for settlement");
    return deps.settlement.settle(request);
  });
}
