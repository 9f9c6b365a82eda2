import { type TProperties, Type } from "@sinclair/typebox";
import { t } from "elysia";
import { CAIP2_PATTERN } from "../../domain/networks.ts";
import { REASON_CODES } from "../../domain/reason-codes.ts";
import { MODE_EXTENSION_IDS } from "../../application/payment/mode-table.ts";
import { decimalAtMostPattern } from "../decimal-pattern.ts";
import { enumSchema } from "../enum-schema.ts";
import { ERROR_CODE, ERROR_PHRASE } from "../validation-messages.ts";
import { PAYMENT_IDENTIFIER, PAYMENT_IDENTIFIER_MAX_LENGTH, PAYMENT_IDENTIFIER_MIN_LENGTH, PAYMENT_IDENTIFIER_PATTERN } from "./payment-identifier-extension.ts";
import {
  EXAMPLE_ASSET,
  EXAMPLE_FEE_PAYER,
  EXAMPLE_MODE_REQUEST,
  EXAMPLE_NETWORK,
  EXAMPLE_PAYER,
  EXAMPLE_PAY_TO,
  EXAMPLE_SIGNATURE,
  EXAMPLE_TRANSACTION,
  EXAMPLE_V1_REQUEST,
  EXAMPLE_V2_REQUEST,
} from "./examples.ts";

/**
 * Wire models of the facilitator (x402 v2 names; design.md §3), the single source of its request
 * validation, its response checks and its OpenAPI document. The request body accepts exactly what
 * design.md allows: `paymentPayload` as a v2 object or a base64 v1 string (or the v1 object the
 * official v1 client sends), `resource` as a string or an object, unknown top-level, payload,
 * requirements and `extra` fields. `x-error` words each 400 (see validation-messages.ts).
 * Integers are TypeBox's `Type.Integer`: Elysia's `t.Integer` also accepts integer strings.
 */

/** Objects keep fields they do not name: clients add fields, and x402 versions grow. */
const OPEN = { additionalProperties: true } as const;

const U64_MAX = 2n ** 64n - 1n;

const nonEmpty = (description: string, example: string) =>
  t.String({ minLength: 1, [ERROR_PHRASE]: "must be a non-empty string", description, examples: [example] });

/** SECURITY: amounts are u64 base units; anything larger could not be transferred and is refused here. */
const AMOUNT_PROBLEM = { [ERROR_PHRASE]: `must be a non-negative integer in base units (decimal string) of at most ${U64_MAX} (u64)` };
const AmountModel = t.Union(
  [
    t.String({ pattern: decimalAtMostPattern(U64_MAX), description: "decimal string, no sign or leading zero", ...AMOUNT_PROBLEM }),
    Type.Integer({ minimum: 0, maximum: Number.MAX_SAFE_INTEGER, description: "a JSON integer up to 2^53 - 1", ...AMOUNT_PROBLEM }),
  ],
  { ...AMOUNT_PROBLEM, description: "integer in the token's base units (u64)", examples: ["1000"] },
);

/**
 * x402 v2 holds requirements to the spec's forms: the amount is a decimal string and the network a
 * CAIP-2 id. The looser forms above are v1's (a JSON number, `solana-devnet`); a v2 body using them
 * is a 400 naming the field, never a payment judged under names it did not mean (issue 25).
 */
const V2_AMOUNT_PROBLEM = {
  [ERROR_PHRASE]: `must be a non-negative integer in base units as a decimal string in x402 v2 (a JSON number is the v1 form), of at most ${U64_MAX} (u64)`,
};
const V2AmountModel = t.String({ pattern: decimalAtMostPattern(U64_MAX), description: "decimal string in the token's base units, no sign or leading zero", ...V2_AMOUNT_PROBLEM, examples: ["1000"] });
const V2NetworkModel = t.String({
  pattern: CAIP2_PATTERN,
  [ERROR_PHRASE]: "must be a CAIP-2 network id (namespace:reference, e.g. solana:EtWTRABZaYq6iMfeYKouRu166VU2xqa1) in x402 v2; the v1 names solana-devnet and solana go with x402Version 1",
  description: "CAIP-2 network id",
  examples: ["solana:EtWTRABZaYq6iMfeYKouRu166VU2xqa1"],
});

const RequirementsExtraModel = t.Object(
  {
    feePayer: t.Optional(t.String({ description: "facilitator key that co-signs as fee payer; when given, the transaction's fee payer must be it", examples: [EXAMPLE_FEE_PAYER] })),
    name: t.Optional(t.String({ description: "human-readable name of the requirement" })),
    agentMint: t.Optional(t.String({ description: "agent token mint; atomic and attestation receipts must name it" })),
    programId: t.Optional(t.String({ description: "the service's on-chain program" })),
    settlementModes: t.Optional(t.Array(t.String(), { description: "settlement modes the resource server supports" })),
    treasury: t.Optional(t.String({ description: "protocol-fee treasury (x84 split payments, docs/verification.md)" })),
    protocolFeeBps: t.Optional(t.Union([Type.Integer(), t.String()], { description: "protocol fee in basis points (x84 split payments)" })),
  },
  { ...OPEN, title: "PaymentRequirementsExtra", [ERROR_PHRASE]: "must be an object", description: "free-form; the fields below are read when present, others are kept" },
);

const requirementsFields = {
  scheme: nonEmpty("payment scheme; only `exact` is supported (another is answered 200 UNSUPPORTED_SCHEME)", "exact"),
  network: nonEmpty("CAIP-2 network id; with a v1 payload the v1 names `solana-devnet` and `solana` are mapped to CAIP-2 (a v2 payload needs CAIP-2)", EXAMPLE_NETWORK),
  asset: nonEmpty("token mint (base58), one of the assets /supported lists", EXAMPLE_ASSET),
  payTo: nonEmpty("recipient wallet (base58): the transfer goes to it or to its associated token account", EXAMPLE_PAY_TO),
  maxTimeoutSeconds: t.Optional(t.Number({ minimum: 0, [ERROR_PHRASE]: "must be a non-negative number", description: "seconds before the payment expires" })),
  resource: t.Optional(t.String({ description: "URL of the resource being paid for (x402 v1)" })),
  description: t.Optional(t.String({ description: "human-readable description" })),
  extra: t.Optional(t.Union([RequirementsExtraModel, t.Null()], { [ERROR_PHRASE]: "must be an object" })),
};

/** What the resource server asks for (also the shape of `paymentPayload.accepted`). */
export const PaymentRequirementsModel = t.Union(
  [
    t.Object({ ...requirementsFields, amount: AmountModel }, { ...OPEN, title: "PaymentRequirements" }),
    t.Object(
      { ...requirementsFields, amount: t.Optional(t.Null()), maxAmountRequired: AmountModel },
      { ...OPEN, title: "PaymentRequirements (x402 v1)", description: "v1 names the amount `maxAmountRequired`" },
    ),
  ],
  {
    [ERROR_PHRASE]: "must be an object",
    description: "the requirements from the resource server's 402 answer; with a v2 paymentPayload they must also fit PaymentRequirements (x402 v2): a decimal-string amount and a CAIP-2 network (400 otherwise)",
  },
);

/**
 * The requirements of an x402 v2 payment, `accepted` and `paymentRequirements` alike: `amount` (a
 * decimal string) and a CAIP-2 `network`. The routes check `paymentRequirements` against it once the
 * payload is known to be v2 (payment-request.ts), since v1 payloads keep v1's names.
 */
export const V2PaymentRequirementsModel = t.Object(
  { ...requirementsFields, network: V2NetworkModel, amount: V2AmountModel },
  { ...OPEN, title: "PaymentRequirements (x402 v2)", [ERROR_PHRASE]: "must be an object", description: "what the resource server asks for, in x402 v2's forms" },
);

/**
 * paymentId: 1-128 characters of letters, digits and `.`, `_`, `:`, `-` (docs/verification.md).
 * SECURITY: an unbounded id reached the store after co-signing (a 500 for 3,000 characters);
 * bounded here, it is refused (400 PAYMENT_ID_INVALID) before anything is checked, signed or stored.
 */
const PAYMENT_ID_PROBLEM = { [ERROR_CODE]: "PAYMENT_ID_INVALID", [ERROR_PHRASE]: 'must be 1 to 128 characters of A-Z, a-z, 0-9, ".", "_", ":" or "-"' };
const PaymentIdModel = t.String({
  pattern: "^[A-Za-z0-9._:-]{1,128}$",
  ...PAYMENT_ID_PROBLEM,
  description: "idempotency key of the payment, unique per payment; 1-128 characters of A-Z a-z 0-9 . _ : -",
  examples: ["order-2026-0042"],
});

/**
 * The x402 `payment-identifier` extension: `info.id` is the client's idempotency key, mapped onto
 * `paymentId` (payment-identifier-extension.ts). Its bounds are the spec's, 16-128 characters of
 * A-Z a-z 0-9 `_` `-`, all within paymentId's. The echoed `schema` is the resource server's
 * declaration and is not read.
 * SECURITY: the client's `schema` is never compiled (@x402/extensions' validatePaymentIdentifier
 * would hand it to ajv: a client-chosen JSON Schema and regular expression per request); the id is
 * judged by these fixed bounds only, and refused (400 PAYMENT_ID_INVALID) before anything else.
 */
const PAYMENT_IDENTIFIER_PROBLEM = {
  [ERROR_CODE]: "PAYMENT_ID_INVALID",
  [ERROR_PHRASE]: `must be ${PAYMENT_IDENTIFIER_MIN_LENGTH} to ${PAYMENT_IDENTIFIER_MAX_LENGTH} characters of A-Z, a-z, 0-9, "_" or "-" (the x402 payment-identifier format)`,
};
const PaymentIdentifierModel = t.Object(
  {
    info: t.Object(
      {
        id: t.Optional(
          t.String({
            minLength: PAYMENT_IDENTIFIER_MIN_LENGTH,
            maxLength: PAYMENT_IDENTIFIER_MAX_LENGTH,
            pattern: PAYMENT_IDENTIFIER_PATTERN,
            ...PAYMENT_IDENTIFIER_PROBLEM,
            description: "the client's idempotency key, used as the payment's paymentId (same store key, scoped to the payer)",
            examples: ["pay_7d5d747be160e280504c099d984bcfe0"],
          }),
        ),
        required: t.Optional(t.Boolean({ [ERROR_PHRASE]: "must be a boolean", description: "echoed from the resource server's declaration; true: `id` must be given" })),
      },
      { ...OPEN, [ERROR_PHRASE]: "must be an object" },
    ),
    schema: t.Optional(t.Unknown({ description: "echoed from the resource server's declaration; not read" })),
  },
  { ...OPEN, title: "PaymentIdentifierExtension", [ERROR_PHRASE]: "must be an object with an info object", description: "x402 payment-identifier extension (specs/extensions/payment_identifier.md)" },
);

/**
 * The settlement-mode fields are judged by the mode checks, which answer 200 MODE_INVALID (a
 * payment problem, not a malformed request) when one is wrong, so their schemas accept any value.
 */
const modeField = (description: string) => t.Optional(t.Unknown({ description }));

function extensionsModel(modeRequired: boolean) {
  const mode = t.Unknown({
    description: `settlement mode: atomic, attestation or delegated (also ${MODE_EXTENSION_IDS.join(", ")}); another value is answered 200 MODE_INVALID`,
    examples: ["atomic"],
  });
  return t.Object(
    {
      mode: modeRequired ? mode : t.Optional(mode),
      paymentId: t.Optional(t.Union([PaymentIdModel, t.Null()], PAYMENT_ID_PROBLEM)),
      [PAYMENT_IDENTIFIER]: t.Optional(PaymentIdentifierModel),
      receiptPda: modeField("string: the PaymentReceipt address (atomic, attestation); must equal the derived one"),
      delegationPda: modeField("string: the Delegation account (delegated)"),
      delegate: modeField("string: delegate wallet (delegated)"),
      signature: modeField("string: base64 ed25519 signature (delegated server-side proof, or the receipt claim)"),
      timestamp: modeField("number: Unix seconds of that signature, within 60 s of the facilitator's clock"),
      txSignature: modeField("string: the on-chain transaction signature (atomic, attestation)"),
      payer: modeField("string: payer wallet"),
      amount: modeField("string: amount in base units"),
    },
    { ...OPEN, title: "PaymentExtensions", [ERROR_PHRASE]: "must be an object" },
  );
}

const TransactionModel = t.String({
  [ERROR_PHRASE]: "must be a base64 string",
  description: "base64 wire transaction (versioned), partially signed by the payer, with the facilitator as fee payer",
  examples: [EXAMPLE_TRANSACTION],
});

/** A standard payment carries its transaction; a settlement mode (already on chain) may not. */
function payloadVariants<const Common extends TProperties>(common: Common, title: string) {
  return [
    t.Object(
      { ...common, payload: t.Object({ transaction: TransactionModel }, { ...OPEN, title: "SvmExactPayload" }), extensions: t.Optional(t.Union([extensionsModel(false), t.Null()])) },
      { ...OPEN, title },
    ),
    t.Object(
      {
        ...common,
        payload: t.Optional(t.Union([t.Object({ transaction: t.Optional(TransactionModel) }, OPEN), t.Null()], { [ERROR_PHRASE]: "must be an object" })),
        extensions: extensionsModel(true),
      },
      { ...OPEN, title: `${title} (settlement mode)`, description: "with extensions.mode the transaction may be absent" },
    ),
  ] as const;
}

const ResourceModel = t.Union(
  [
    t.String({ description: "the resource's URL" }),
    t.Object({ url: t.String(), description: t.Optional(t.String()), mimeType: t.Optional(t.String()) }, { ...OPEN, title: "ResourceInfo" }),
    t.Null(),
  ],
  { [ERROR_PHRASE]: "must be a string or an object with a string url" },
);

const v2Payloads = payloadVariants(
  {
    x402Version: Type.Integer({ [ERROR_PHRASE]: "must be an integer", description: "protocol version", examples: [2] }),
    accepted: V2PaymentRequirementsModel,
    resource: t.Optional(ResourceModel),
  },
  "PaymentPayload",
);

/**
 * The legacy v1 payload, sent base64-encoded (or, by the official v1 HTTP client, as an object);
 * `accepted` is derived from the requirements under the payload's scheme and network.
 */
const v1Payloads = payloadVariants(
  {
    x402Version: t.Literal(1, { [ERROR_PHRASE]: "must be 1 for the legacy form" }),
    scheme: nonEmpty("payment scheme", "exact"),
    network: nonEmpty("v1 network name or CAIP-2 id", "solana-devnet"),
    accepted: t.Optional(t.Never({ [ERROR_PHRASE]: "must be absent in the legacy form" })),
  },
  "PaymentPayload (x402 v1)",
);

/** The decoded content of the base64 v1 string. */
export const V1PaymentPayloadModel = t.Union([...v1Payloads], { [ERROR_PHRASE]: "must be a JSON object" });

const Base64V1PayloadModel = t.String({
  // Surrounding whitespace is tolerated; the rest must be strict base64 of at least one group.
  pattern: "^\\s*(?=[A-Za-z0-9+/])(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}(?:==)?|[A-Za-z0-9+/]{3}=?)?\\s*$",
  [ERROR_PHRASE]: "is not valid base64",
  contentEncoding: "base64",
  contentMediaType: "application/json",
  contentSchema: V1PaymentPayloadModel,
  title: "PaymentPayload (x402 v1, base64 JSON)",
  description: "base64 of the UTF-8 JSON of a v1 payload; normalised to v2 internally",
});

export const PaymentPayloadModel = t.Union([...v2Payloads, Base64V1PayloadModel, ...v1Payloads], {
  [ERROR_PHRASE]: "must be a v2 object or a base64-encoded v1 JSON string",
});

/** POST /verify and POST /settle (the spec's SettlePaymentDto). */
export const PaymentRequestBody = t.Object(
  {
    paymentPayload: PaymentPayloadModel,
    paymentRequirements: PaymentRequirementsModel,
    x402Version: t.Optional(t.Unknown({ description: "sent by the official HTTP client beside the two fields; not read" })),
  },
  {
    ...OPEN,
    title: "PaymentRequest",
    [ERROR_PHRASE]: "must be a JSON object",
    description: "the payment and the requirements it answers; unknown fields are accepted",
    examples: [EXAMPLE_V2_REQUEST, EXAMPLE_V1_REQUEST, EXAMPLE_MODE_REQUEST],
  },
);
export type PaymentRequestBody = typeof PaymentRequestBody.static;

export const ReasonCodeModel = enumSchema(REASON_CODES, {
  description: "stable reason code (docs/verification.md); one closed list for /verify and /settle",
});

const Extensions = (description: string) => t.Optional(t.Record(t.String(), t.Unknown(), { description }));

export const VerifyResponseModel = t.Object(
  {
    isValid: t.Boolean(),
    payer: t.Optional(t.String({ description: "TransferChecked authority (base58), once the transfer is found" })),
    invalidReason: t.Optional(ReasonCodeModel),
    invalidMessage: t.Optional(t.String({ description: "what failed, for people" })),
    extensions: Extensions("the settlement mode, when one was given: {mode}"),
  },
  {
    title: "VerifyResponse",
    additionalProperties: false,
    description: "payment problems are answered 200 with isValid false and a reason code",
    examples: [
      { isValid: true, payer: EXAMPLE_PAYER },
      { isValid: false, invalidReason: "AMOUNT_MISMATCH", invalidMessage: "transfer amount 500 differs from the required 1000", payer: EXAMPLE_PAYER },
    ],
  },
);
export type VerifyResponse = typeof VerifyResponseModel.static;

export const SettleResponseModel = t.Object(
  {
    success: t.Boolean(),
    transaction: t.String({ description: "the transaction signature; empty on failure" }),
    network: t.String({ description: "CAIP-2 id of the network" }),
    errorReason: t.Optional(ReasonCodeModel),
    errorMessage: t.Optional(t.String()),
    payer: t.Optional(t.String({ description: "payer wallet (base58)" })),
    extensions: Extensions("mode, paymentId, replayed (an idempotent hit), originalTransaction (DUPLICATE_SETTLEMENT)"),
  },
  {
    title: "SettleResponse",
    additionalProperties: false,
    description: "settlement problems are answered 200 with success false and a reason code",
    examples: [
      { success: true, transaction: EXAMPLE_SIGNATURE, network: EXAMPLE_NETWORK, payer: EXAMPLE_PAYER, extensions: { mode: "standard" } },
      { success: false, transaction: "", network: EXAMPLE_NETWORK, errorReason: "INSUFFICIENT_FUNDS", errorMessage: "the payer's token account holds 0, less than 1000", payer: EXAMPLE_PAYER },
    ],
  },
);

/**
 * What this facilitator accepts, declared so a client can build a payment that passes: a payment
 * within every bound here is not refused for its fees or its size of amount.
 */
export const SupportedPolicyModel = t.Object(
  {
    maxComputeUnitLimit: t.Integer({ description: "largest SetComputeUnitLimit accepted (COMPUTE_UNIT_LIMIT_TOO_HIGH above)" }),
    maxComputeUnitPriceMicroLamports: t.Integer({ description: "largest SetComputeUnitPrice accepted, micro-lamports per CU (COMPUTE_UNIT_PRICE_TOO_HIGH above)" }),
    maxPriorityFeeLamports: t.Integer({ description: "largest compute-unit limit x price, in lamports, rounded up (PRIORITY_FEE_TOO_HIGH above)" }),
    maxInstructions: t.Integer({ description: "most top-level instructions (TOO_MANY_INSTRUCTIONS above)" }),
    minimumAmounts: t.Record(t.String(), t.String({ pattern: "^[0-9]+$" }), {
      description: "smallest amount accepted per asset, in base units (AMOUNT_TOO_SMALL below; MIN_PAYMENT_AMOUNT); an asset not listed takes any non-zero amount",
    }),
    protocolFee: t.Union([t.Object({ treasury: t.String(), bps: t.Integer() }, { additionalProperties: false }), t.Null()], {
      description: "the protocol-fee split admitted with two transfers (PROTOCOL_FEE_TREASURY, PROTOCOL_FEE_BPS), or null when off",
    }),
    payToPolicy: t.String({ description: "PAYTO_POLICY: any, allowlist or registered-agents (PAYTO_NOT_ALLOWED when refused)" }),
  },
  { title: "SupportedPolicy", additionalProperties: false },
);
export type SupportedPolicy = typeof SupportedPolicyModel.static;

const EXAMPLE_POLICY: SupportedPolicy = {
  maxComputeUnitLimit: 400_000,
  maxComputeUnitPriceMicroLamports: 5_000_000,
  maxPriorityFeeLamports: 25_000,
  maxInstructions: 8,
  minimumAmounts: { [EXAMPLE_ASSET]: "10000" },
  protocolFee: null,
  payToPolicy: "registered-agents",
};

export const SupportedKindModel = t.Object(
  {
    x402Version: Type.Integer(),
    scheme: t.Literal("exact"),
    network: t.String({ description: "CAIP-2 id (v2) or v1 network name (v1)" }),
    extra: t.Object(
      {
        feePayer: t.Optional(t.String({ description: "the fee payer to put in transactions" })),
        /** Every mint this facilitator accepts on this network (USDC_MINT). */
        assets: t.Optional(t.Array(t.String(), { description: "every mint accepted (USDC_MINT)" })),
        policy: t.Optional(SupportedPolicyModel),
        assetPolicies: t.Optional(
          t.Array(
            t.Object(
              {
                asset: t.String(),
                tokenProgram: t.Union([t.String(), t.Null()], { description: "the mint's owner on the ledger (SPL Token or Token-2022); null when it cannot be read right now" }),
                decimals: t.Union([t.Integer(), t.Null()]),
                extensions: t.Array(t.String(), { description: "the mint's Token-2022 extensions (empty for SPL Token)" }),
                transferFee: t.Union([t.Literal("none"), t.Literal("refuse"), t.Literal("gross-up")], { description: "TOKEN_2022_TRANSFER_FEE for a mint with a transfer fee; none without one" }),
                refusedWith: t.Union([t.String(), t.Null()], { description: "the reason every payment in this asset is refused now (TRANSFER_HOOK_NOT_ALLOWED, MINT_NOT_TRANSFERABLE...), or null" }),
              },
              { additionalProperties: false },
            ),
            { description: "each accepted asset's token program and the extensions it is accepted with (issue 24)" },
          ),
        ),
      },
      { additionalProperties: false },
    ),
  },
  { title: "SupportedKind", additionalProperties: false },
);
export type SupportedKind = typeof SupportedKindModel.static;

export const SupportedResponseModel = t.Object(
  {
    kinds: t.Array(SupportedKindModel),
    extensions: t.Array(t.String(), { description: `extension ids this facilitator acts on: the settlement modes and \`${PAYMENT_IDENTIFIER}\` (its id is the payment's idempotency key)` }),
    signers: t.Record(t.String(), t.Array(t.String()), { description: "every fee-payer key, by CAIP-2 family" }),
  },
  {
    title: "SupportedResponse",
    additionalProperties: false,
    examples: [
      {
        kinds: [
          { x402Version: 2, scheme: "exact", network: EXAMPLE_NETWORK, extra: { feePayer: EXAMPLE_FEE_PAYER, assets: [EXAMPLE_ASSET], policy: EXAMPLE_POLICY } },
          { x402Version: 1, scheme: "exact", network: "solana-devnet", extra: { feePayer: EXAMPLE_FEE_PAYER, assets: [EXAMPLE_ASSET], policy: EXAMPLE_POLICY } },
        ],
        extensions: [...MODE_EXTENSION_IDS, PAYMENT_IDENTIFIER],
        signers: { "solana:*": [EXAMPLE_FEE_PAYER] },
      },
    ],
  },
);
export type SupportedResponse = typeof SupportedResponseModel.static;
