/**
 * Example values of the facilitator's OpenAPI document. The transaction is a real one: built with
 * @solana/kit from fixed seeds (payer 7×32, fee payer 8×32, payTo 9×32 as private-key bytes), the
 * official client's layout (SetComputeUnitLimit 20,000, SetComputeUnitPrice 1, TransferChecked of
 * 1,000 base units of devnet USDC to payTo's associated token account, a Memo), signed by the payer.
 * Sent to a running facilitator it is well formed and answered 200 (its fee payer is not ours).
 */
import { DEVNET_USDC_MINT, SOLANA_DEVNET } from "../../domain/networks.ts";

export const EXAMPLE_NETWORK = SOLANA_DEVNET;
export const EXAMPLE_ASSET = DEVNET_USDC_MINT;
export const EXAMPLE_PAYER = "GmaDrppBC7P5ARKV8g3djiwP89vz1jLK23V2GBjuAEGB";
export const EXAMPLE_FEE_PAYER = "2KW2XRd9kwqet15Aha2oK3tYvd3nWbTFH1MBiRAv1BE1";
export const EXAMPLE_PAY_TO = "J2xccRtuG43drESLYznHhLhQkLTdfepcKYbiQ9BsJVaf";
export const EXAMPLE_TRANSACTION =
  "AgAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAACs/00p9Void42rQ5ouIeSvrHWXjWUSlFp3NLXua79+o8FAld1A2WSSMTtBCU/qioDwI+6sZXEdsvbHxN8bzUIJgAIBBAgTmPYsbRpFfFG6aktfPb0vafypMhYhjciZfkFr0X2TyupKbGPinFIKvvVQexMuxfmVR3auvr57kkIe6mkURtIsa4T+VAWZkKbqIwjcZYhVrZWKZR4UVyYj9/rTk9uwE+wJwa1WOvT05wo9H+keYP/wmkenNjT3crGO32T+uRfu6DtELLORIVfxOpM9ATQoLQMrX/7NAaLb8bd5BgjfAC6nAwZGb+UhFzL/7K26csOb57yM5bvF9xJrLEObOkAAAAAFSlNamSkhBk0k6HFg2jh8fDW13bySu4HkH6hAQQVEjQbd9uHXZaGT2cvhRs7reawctIXtX1s3kTqM9YV+/wCpA47KZue9uiUxlTuHU/vpKxWedhzzcn9xlFUeTKC7jokEBQAFAiBOAAAFAAkDAQAAAAAAAAAHBAIEAwEKDOgDAAAAAAAABgYACm5vbmNlLTEyMzQA";
export const EXAMPLE_SIGNATURE = "66Hhc6y3txJP2ggJ3fQqSoLi4dV24bDJUCojFBkQGKTj2uEhsrNYPV3vCo6LHyDakNYXRU4h4kD2s2CbbETtU6G1";

export const EXAMPLE_REQUIREMENTS = {
  scheme: "exact",
  network: EXAMPLE_NETWORK,
  asset: EXAMPLE_ASSET,
  amount: "1000",
  payTo: EXAMPLE_PAY_TO,
  maxTimeoutSeconds: 60,
  extra: { feePayer: EXAMPLE_FEE_PAYER },
};

/** The same requirements as an x402 v1 resource server words them. */
export const EXAMPLE_V1_REQUIREMENTS = {
  scheme: "exact",
  network: "solana-devnet",
  asset: EXAMPLE_ASSET,
  maxAmountRequired: "1000",
  payTo: EXAMPLE_PAY_TO,
  resource: "https://api.example.com/v1/forecast",
  description: "one forecast",
  maxTimeoutSeconds: 60,
  extra: { feePayer: EXAMPLE_FEE_PAYER },
};

/** What the official @x402/fetch client sends: v2 payload, `resource` as an object, a top-level x402Version. */
export const EXAMPLE_V2_REQUEST = {
  x402Version: 2,
  paymentPayload: {
    x402Version: 2,
    resource: { url: "https://api.example.com/v1/forecast", description: "one forecast", mimeType: "application/json" },
    accepted: EXAMPLE_REQUIREMENTS,
    payload: { transaction: EXAMPLE_TRANSACTION },
  },
  paymentRequirements: EXAMPLE_REQUIREMENTS,
};

/** The legacy form: `paymentPayload` as base64 of `{x402Version: 1, scheme, network, payload: {transaction}}`. */
export const EXAMPLE_V1_REQUEST = {
  x402Version: 1,
  paymentPayload: btoa(JSON.stringify({ x402Version: 1, scheme: "exact", network: "solana-devnet", payload: { transaction: EXAMPLE_TRANSACTION } })),
  paymentRequirements: EXAMPLE_V1_REQUIREMENTS,
};

/** A settlement-mode payment: already on chain, so no transaction; the mode checks judge the rest. */
export const EXAMPLE_MODE_REQUEST = {
  paymentPayload: {
    x402Version: 2,
    accepted: EXAMPLE_REQUIREMENTS,
    payload: {},
    extensions: {
      mode: "atomic",
      paymentId: "ab".repeat(32),
      txSignature: EXAMPLE_SIGNATURE,
      signature: `${"A".repeat(86)}==`,
      timestamp: 1_767_225_600,
    },
  },
  paymentRequirements: EXAMPLE_REQUIREMENTS,
};
