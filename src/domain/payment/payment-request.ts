import { MODE_NAMES, type SettlementMode } from "../settlement/settlement-mode.ts";

/**
 * The internal (x402 v2) form of a payment request. The HTTP layer normalises both wire
 * forms (v2 object, v1 base64 string) into this before anything is checked, so every
 * rule sees one shape.
 */

/** What the resource server asked for (also the shape of `paymentPayload.accepted`). */
export type PaymentRequirements = Readonly<{
  scheme: string;
  /** CAIP-2 id (v1 names are mapped during normalisation). */
  network: string;
  asset: string;
  /** Integer in the token's base units, validated as a decimal string. */
  amount: bigint;
  payTo: string;
  maxTimeoutSeconds?: number;
  resource?: string;
  description?: string;
  /** Free-form; unknown fields are kept (feePayer, name, agentMint, ...). */
  extra: Readonly<Record<string, unknown>>;
}>;

export type ResourceInfo = Readonly<{ url: string; description?: string; mimeType?: string }>;

/**
 * `extensions` is passed through untouched: the settlement-mode checks (atomic, attestation,
 * delegated) decide what is well formed. Only `paymentId` is read here, for idempotency.
 */
export type PaymentExtensions = Readonly<Record<string, unknown>>;

export type PaymentPayload = Readonly<{
  x402Version: number;
  accepted: PaymentRequirements;
  /**
   * Base64 wire transaction, partially signed by the payer. Null only when a settlement mode
   * is given (atomic and attestation payments are already on chain and may carry none).
   */
  transaction: string | null;
  resource?: ResourceInfo;
  extensions: PaymentExtensions | null;
}>;

export type PaymentRequest = Readonly<{
  paymentPayload: PaymentPayload;
  paymentRequirements: PaymentRequirements;
  /** Which wire form the client sent; answers keep x402 v2 names either way. */
  sourceVersion: 1 | 2;
}>;

/** `extensions.paymentId` when it is a string, else null. */
export function paymentIdOf(payload: PaymentPayload): string | null {
  const id = payload.extensions?.["paymentId"];
  return typeof id === "string" && id !== "" ? id : null;
}

/** `extensions.mode` when present (any type: the mode checks judge it), else undefined. */
export function settlementModeOf(payload: PaymentPayload): unknown {
  return payload.extensions?.["mode"];
}

/**
 * The settlement mode a payment asks for: `standard` without `extensions.mode`, the named mode
 * (aliases already made canonical at the HTTP edge), or null for a value that names no mode.
 */
export function paymentModeOf(payload: PaymentPayload): SettlementMode | null {
  const mode = settlementModeOf(payload);
  if (mode === undefined) return "standard";
  return typeof mode === "string" && (MODE_NAMES as readonly string[]).includes(mode) ? (mode as SettlementMode) : null;
}
