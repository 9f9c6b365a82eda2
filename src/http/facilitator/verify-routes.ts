import type { Address } from "@solana/kit";
import { type AssetPolicy, describeAssetPolicies } from "../../application/payment/asset-policies.ts";
import { Elysia } from "elysia";
import { v1NetworkFromCaip2 } from "../../domain/networks.ts";
import { settlementModeOf, type PaymentRequest } from "../../domain/payment/payment-request.ts";
import { MODE_EXTENSION_IDS } from "../../application/payment/mode-table.ts";
import type { PaymentVerdict } from "../../application/payment/mode-policy.ts";
import type { PaymentDeps } from "../../application/payment/payment-deps.ts";
import type { PaymentAnswer } from "../../application/discovery/discovery-recorder.ts";
import { isLedgerError } from "../../application/ports/ledger.ts";
import { isCoded } from "../../domain/coded-error.ts";
import { errorResponses } from "../error-models.ts";
import { HttpError } from "../http-error.ts";
import { toPaymentRequest } from "./payment-request.ts";
import { PAYMENT_IDENTIFIER } from "./payment-identifier-extension.ts";
import {
  PaymentRequestBody,
  type SupportedKind,
  type SupportedPolicy,
  type SupportedResponse,
  SupportedResponseModel,
  type VerifyResponse,
  VerifyResponseModel,
} from "./models.ts";

/** What /supported declares: the network, the fee payers, the assets and the policy the pipeline enforces. */
export type SupportedDeps = Pick<PaymentDeps, "network" | "feePayers" | "assets" | "policy" | "minimumAmounts" | "protocolFee" | "payToPolicy" | "mints" | "token2022">;

export type FacilitatorVerifyDeps = SupportedDeps &
  Readonly<{
    /** The payment pipeline's /verify entry point (application/payment/verify.ts: every kind of payment). */
    verify: (request: PaymentRequest) => Promise<PaymentVerdict>;
    /** Told of each answer after it is computed (the Bazaar catalogue); must not throw or wait. */
    observePayment?: (answer: PaymentAnswer) => void;
  }>;

/** POST /verify and GET /supported as one Elysia plugin. */
export function facilitatorVerifyRoutes(deps: FacilitatorVerifyDeps) {
  const verify = deps.verify;
  return new Elysia({ name: "facilitator-verify" })
    .get("/supported", async (): Promise<SupportedResponse> => supportedResponse(deps.network, deps.feePayers(), deps.assets, declaredPolicyOf(deps), await describeAssetPolicies(deps.assets, deps.mints, deps.token2022)), {
      response: { 200: SupportedResponseModel, ...errorResponses([500]) },
      detail: {
        operationId: "supported",
        tags: ["payments"],
        summary: "Supported payment kinds, extensions (settlement modes, payment-identifier) and fee-payer keys",
        description:
          "One kind per protocol version (v2 with the CAIP-2 network, v1 with its legacy name); `extra.feePayer` is the key to put in transactions as fee payer, and `extra.policy` declares the bounds a payment must stay within (compute and priority-fee caps, minimum amounts, the protocol-fee split, the payTo policy); `extra.assetPolicies` gives each asset's token program (read from the mint's owner) and the Token-2022 extensions it is accepted with.",
      },
    })
    .post(
      "/verify",
      async ({ body }): Promise<VerifyResponse> => {
        const request = toPaymentRequest(body);
        const response = toVerifyResponse(await answerDependencyFailures(verify(request)), settlementModeOf(request.paymentPayload));
        deps.observePayment?.({ kind: "verify", body, ok: response.isValid });
        return response;
      },
      {
        parse: "json",
        body: PaymentRequestBody,
        response: {
          200: VerifyResponseModel,
          ...errorResponses([400, 401, 413, 500, 503], {
            503: { when: "the settlement store cannot be reached to tell whether this payment was already settled; retry shortly", message: "the settlement store is unavailable; retry shortly" },
          }),
        },
        detail: {
          operationId: "verify",
          // Open unless the operator configured API keys (FACILITATOR_API_KEYS_FILE).
          security: [{}, { apiKey: [] }],
          tags: ["payments"],
          summary: "Verify a payment against payment requirements, without settling",
          description:
            "Checks the transaction (one TransferChecked of exactly the amount, to payTo or its associated token account, in the asset; our key as fee payer with its slot empty; only SPL Token, ComputeBudget and Memo; bounded fees) and, when simulation is on, the ledger. A payment problem is 200 with `isValid: false`, a reason code and a message; only a malformed request is 400. A ledger that cannot be asked (down, or no answer within LEDGER_RPC_TIMEOUT_MS) is also 200 with `isValid: false`, `SIMULATION_FAILED` and a message saying to retry.",
        },
      },
    );
}

/** design.md §3: one kind per protocol version, all signers listed under `solana:*`. */
export function supportedResponse(network: string, feePayers: readonly Address[], assets: readonly string[] = [], policy?: SupportedPolicy, assetPolicies: readonly AssetPolicy[] = []): SupportedResponse {
  const [primary] = feePayers;
  const extra = {
    ...(primary ? { feePayer: primary } : {}),
    ...(assets.length > 0 ? { assets: [...assets] } : {}),
    ...(policy ? { policy } : {}),
    ...(assetPolicies.length > 0 ? { assetPolicies: assetPolicies.map((entry) => ({ ...entry, extensions: [...entry.extensions] })) } : {}),
  };
  const kinds: SupportedKind[] = [{ x402Version: 2, scheme: "exact", network, extra }];
  const v1Network = v1NetworkFromCaip2(network);
  if (v1Network) kinds.push({ x402Version: 1, scheme: "exact", network: v1Network, extra });
  // x402's SupportedResponse lists extension ids: the settlement modes, and payment-identifier,
  // whose id this facilitator keys idempotency on (docs/settlement.md).
  return { kinds, extensions: [...MODE_EXTENSION_IDS, PAYMENT_IDENTIFIER], signers: { "solana:*": [...feePayers] } };
}

/**
 * The policy /supported declares, from the same settings verification enforces (no peer declares
 * it: hosted facilitators narrowed their bands silently, x402 issues #3268 and #3351).
 */
export function declaredPolicyOf(deps: Pick<SupportedDeps, "policy" | "minimumAmounts" | "protocolFee" | "payToPolicy">): SupportedPolicy {
  const { policy } = deps;
  return {
    maxComputeUnitLimit: policy.maxComputeUnitLimit,
    maxComputeUnitPriceMicroLamports: Number(policy.maxComputeUnitPriceMicroLamports),
    maxPriorityFeeLamports: Number(policy.maxPriorityFeeLamports),
    maxInstructions: policy.maxInstructions,
    minimumAmounts: Object.fromEntries([...(deps.minimumAmounts ?? new Map<string, bigint>())].filter(([, amount]) => amount > 0n).map(([asset, amount]) => [asset, amount.toString()])),
    protocolFee: deps.protocolFee ? { treasury: deps.protocolFee.treasury, bps: deps.protocolFee.bps } : null,
    payToPolicy: deps.payToPolicy?.name ?? "any",
  };
}

/**
 * The verification's dependencies failing, answered at this boundary. The ledger not answering is
 * answered in x402's own shape, `isValid: false`: the payment could not be checked, and a resource
 * server treats that like any refusal (it does not serve), where a 500 made some retry blindly and
 * others crash. The settlement store not answering is a 503 (whether the payment was already
 * settled is unknown; a refusal would wrongly name the payment). Neither message names the RPC's
 * or the database's address: the ledger's errors are scrubbed of the URL, the store's is replaced.
 */
async function answerDependencyFailures(verification: Promise<VerifyOutcome>): Promise<VerifyOutcome> {
  try {
    return await verification;
  } catch (error) {
    if (isLedgerError(error)) {
      const message =
        error.kind === "unavailable"
          ? `the ledger is unavailable (${error.message}); the payment could not be checked, retry`
          : `the ledger refused a read needed to check the payment (${error.message})`;
      return { ok: false, reason: "SIMULATION_FAILED", message };
    }
    if (isCoded(error, "STORE_UNAVAILABLE")) throw new HttpError(503, "the settlement store is unavailable; retry shortly");
    throw error;
  }
}

/** What the verify route needs from any verification: who pays, or why it is refused. */
export type VerifyOutcome = PaymentVerdict;

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
