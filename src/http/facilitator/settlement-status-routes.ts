import { isSignature } from "@solana/kit";
import { Elysia } from "elysia";
import type { SettlementLookup, SettlementViewer } from "../../application/settlement/settlement-lookup.ts";
import { errorResponses } from "../error-models.ts";
import { HttpError } from "../http-error.ts";
import type { ApiKeyCallers } from "./api-key-guard.ts";
import { SettlementListModel, SettlementPaymentIdQuery, SettlementTransactionParams, SettlementViewModel } from "./settlement-status-models.ts";

export type SettlementStatusDeps = Readonly<{
  /** Absent: the routes are not served (an app built without a store, in route tests). */
  settlementLookup?: SettlementLookup;
  /** Whether FACILITATOR_API_KEYS_FILE configured keys: lookups are then scoped to the caller's key. */
  apiKeysConfigured?: boolean;
}>;

// Open unless the operator configured API keys (FACILITATOR_API_KEYS_FILE).
const detail = { security: [{}, { apiKey: [] as string[] }] as Record<string, string[]>[], tags: ["settlements"] };

/**
 * GET /settlements/{transaction} and GET /settlements?paymentId=: a settlement's state and history
 * (docs/settlement.md#status-lookups). With API keys configured, a caller sees only the records it
 * submitted with its key; a record it may not see is a 404 like an unknown one.
 */
export function settlementStatusRoutes(deps: SettlementStatusDeps, callers: ApiKeyCallers) {
  const lookup = deps.settlementLookup;
  const plugin = new Elysia({ name: "facilitator-settlement-status" });
  if (!lookup) return plugin;
  const viewerOf = (request: Request): SettlementViewer => ({ scoped: deps.apiKeysConfigured === true, apiKey: callers.keyOf(request) });
  return plugin
    .get(
      "/settlements/:transaction",
      async ({ params, request }) => {
        // The schema bounds the alphabet and length; a 64-byte decode is the rest of "a signature".
        if (!isSignature(params.transaction)) throw new HttpError(400, "transaction must be a base58 transaction signature");
        const view = await lookup.byTransaction(params.transaction, viewerOf(request));
        if (view === null) throw new HttpError(404, "settlement not found");
        return view;
      },
      {
        params: SettlementTransactionParams,
        response: { 200: SettlementViewModel, ...errorResponses([400, 401, 404, 500, 503], { 404: { when: "no settlement with this transaction (or not one this API key submitted)", message: "settlement not found" } }) },
        detail: {
          ...detail,
          operationId: "getSettlement",
          summary: "A settlement's state, terms and the times of each transition, by its transaction signature",
        },
      },
    )
    .get(
      "/settlements",
      async ({ query, request }) => {
        const views = await lookup.byPaymentId(query.paymentId, viewerOf(request));
        if (views.length === 0) throw new HttpError(404, "settlement not found");
        return { settlements: [...views] };
      },
      {
        query: SettlementPaymentIdQuery,
        response: { 200: SettlementListModel, ...errorResponses([400, 401, 404, 500, 503], { 404: { when: "no settlement with this paymentId (or none this API key submitted)", message: "settlement not found" } }) },
        detail: {
          ...detail,
          operationId: "findSettlementsByPaymentId",
          summary: "The settlements made with a paymentId (unique per payer: one per payer), newest first",
        },
      },
    );
}
