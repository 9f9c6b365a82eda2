import { getBase58Encoder, getBase64Encoder, isAddress, isSignature, type Address, type Signature } from "@solana/kit";
import type { PaymentExtensions } from "../payment/payment-request.ts";
import { reject, type Rejection } from "../rejection.ts";
import { MODE_NAMES, type ModeName } from "../settlement/settlement-mode.ts";

export type { ModeName };

/**
 * `paymentPayload.extensions` once validated for a settlement mode. Which optional fields are
 * present is checked per mode here, so the checks downstream never meet a half-formed request.
 */
export type ModeExtensions = Readonly<{
  mode: ModeName;
  /** The 32 bytes of `extensions.paymentId`. */
  paymentId: Uint8Array;
  /** Lowercase hex of `paymentId`, the form stored and answered. */
  paymentIdHex: string;
  receiptPda?: Address;
  delegationPda?: Address;
  delegate?: Address;
  /** The 64 bytes of the base64 `extensions.signature`: the delegated proof, or the receipt claim (atomic, attestation). */
  signature?: Uint8Array;
  /** Unix seconds of that proof. */
  timestamp?: number;
  txSignature?: Signature;
  payer?: Address;
  amount?: bigint;
}>;

/** A parsed field, absent, or the reason it is malformed. */
type Field<T> = Readonly<{ value: T | undefined }> | Rejection;

const HEX_32_BYTES = /^[0-9a-fA-F]{64}$/;
const BASE64_64_BYTES = /^[A-Za-z0-9+/]{86}==$/;
const DECIMAL = /^(0|[1-9][0-9]*)$/;
const U64_MAX = (1n << 64n) - 1n;

const base58 = getBase58Encoder();
const base64 = getBase64Encoder();

function invalid(message: string): Rejection {
  return reject("MODE_INVALID", message);
}

function isRejection(field: Readonly<{ value: unknown }> | Rejection): field is Rejection {
  return "reason" in field;
}

export function hexToBytes(hex: string): Uint8Array {
  const out = new Uint8Array(hex.length / 2);
  for (let i = 0; i < out.length; i++) out[i] = Number.parseInt(hex.slice(i * 2, i * 2 + 2), 16);
  return out;
}

function valueOf<T>(field: Field<T>): T | undefined {
  return isRejection(field) ? undefined : field.value;
}

/** Absent fields stay absent (not `undefined`), so results compare and serialise cleanly. */
function withoutUndefined<T extends object>(record: T): T {
  const entries = Object.entries(record).filter(([, value]) => value !== undefined);
  return Object.freeze(Object.fromEntries(entries)) as T;
}

function parseMode(value: unknown): ModeName | Rejection {
  const mode = MODE_NAMES.find((name) => name === value);
  return mode ?? invalid(`extensions.mode must be one of ${MODE_NAMES.join(", ")}`);
}

function addressField(extensions: PaymentExtensions, name: string): Field<Address> {
  const value = extensions[name];
  if (value === undefined || value === null) return { value: undefined };
  if (typeof value !== "string" || !isAddress(value)) return invalid(`extensions.${name} is not a base58 address`);
  return { value };
}

function txSignatureField(extensions: PaymentExtensions): Field<Signature> {
  const value = extensions["txSignature"];
  if (value === undefined || value === null) return { value: undefined };
  if (typeof value !== "string" || !isSignature(value)) return invalid("extensions.txSignature is not a base58 transaction signature");
  // isSignature accepts 64 or fewer decoded bytes in some encodings; insist on exactly 64.
  return base58.encode(value).length === 64 ? { value } : invalid("extensions.txSignature must decode to 64 bytes");
}

function proofSignatureField(extensions: PaymentExtensions): Field<Uint8Array> {
  const value = extensions["signature"];
  if (value === undefined || value === null) return { value: undefined };
  if (typeof value !== "string" || !BASE64_64_BYTES.test(value)) return invalid("extensions.signature must be base64 of 64 bytes");
  return { value: new Uint8Array(base64.encode(value)) };
}

function timestampField(extensions: PaymentExtensions): Field<number> {
  const value = extensions["timestamp"];
  if (value === undefined || value === null) return { value: undefined };
  if (typeof value !== "number" || !Number.isSafeInteger(value) || value < 0) {
    return invalid("extensions.timestamp must be a non-negative integer (Unix seconds)");
  }
  return { value };
}

function amountField(extensions: PaymentExtensions): Field<bigint> {
  const value = extensions["amount"];
  if (value === undefined || value === null) return { value: undefined };
  const text = typeof value === "number" && Number.isSafeInteger(value) ? String(value) : value;
  if (typeof text !== "string" || !DECIMAL.test(text) || BigInt(text) > U64_MAX) {
    return invalid("extensions.amount must be a decimal integer string in base units");
  }
  return { value: BigInt(text) };
}

function paymentIdField(extensions: PaymentExtensions): Field<string> {
  const value = extensions["paymentId"];
  if (typeof value !== "string" || !HEX_32_BYTES.test(value)) {
    return invalid("extensions.paymentId is required: 32 bytes as 64 hex characters");
  }
  return { value: value.toLowerCase() };
}

/** Per-mode presence rules, after every field parsed on its own. */
function checkModeFields(parsed: ModeExtensions): Rejection | null {
  const proofParts = [parsed.signature, parsed.timestamp].filter((part) => part !== undefined).length;
  if (proofParts === 1) return invalid("extensions.signature and extensions.timestamp go together (signed proof)");
  // A missing proof is MODE_PROOF_INVALID or DELEGATION_PROOF_INVALID, decided by the mode's
  // checks, not a malformed request.
  if (parsed.mode === "atomic" || parsed.mode === "attestation") {
    return parsed.txSignature ? null : invalid(`extensions.txSignature is required in ${parsed.mode} mode`);
  }
  if (!parsed.payer && !parsed.delegationPda) {
    return invalid("delegated mode needs extensions.payer (server-side) or extensions.delegationPda (client-side)");
  }
  return null;
}

/**
 * Validates the settlement-mode fields of `extensions` (see docs/settlement-modes.md).
 * Fields that do not apply to the mode are ignored; a malformed field is refused even then,
 * so a client learns of its mistake instead of it being silently dropped.
 */
export function parseModeExtensions(extensions: PaymentExtensions | null): ModeExtensions | Rejection {
  if (extensions === null) return invalid("extensions.mode is required for a settlement mode");
  const mode = parseMode(extensions["mode"]);
  if (typeof mode !== "string") return mode;
  const paymentId = paymentIdField(extensions);
  if (isRejection(paymentId)) return paymentId;
  const receiptPda = addressField(extensions, "receiptPda");
  const delegationPda = addressField(extensions, "delegationPda");
  const delegate = addressField(extensions, "delegate");
  const payer = addressField(extensions, "payer");
  const signature = proofSignatureField(extensions);
  const timestamp = timestampField(extensions);
  const txSignature = txSignatureField(extensions);
  const amount = amountField(extensions);
  for (const field of [receiptPda, delegationPda, delegate, payer, signature, timestamp, txSignature, amount]) {
    if (isRejection(field)) return field;
  }
  const hex = paymentId.value ?? "";
  const result: ModeExtensions = withoutUndefined({
    mode,
    paymentId: hexToBytes(hex),
    paymentIdHex: hex,
    receiptPda: valueOf(receiptPda),
    delegationPda: valueOf(delegationPda),
    delegate: valueOf(delegate),
    payer: valueOf(payer),
    signature: valueOf(signature),
    timestamp: valueOf(timestamp),
    txSignature: valueOf(txSignature),
    amount: valueOf(amount),
  });
  return checkModeFields(result) ?? result;
}
