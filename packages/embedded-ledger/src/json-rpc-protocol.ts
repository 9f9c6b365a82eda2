import { hexToBytes } from "@noble/hashes/utils.js";
import { getBase58Encoder, getBase64Decoder, getBase64Encoder, type Address, type Signature } from "@solana/kit";
import { isAddressText, isSignatureText } from "./base58.ts";

/** JSON-RPC 2.0 and Solana server error codes. */
export const RPC_ERRORS = Object.freeze({
  parse: -32700,
  invalidRequest: -32600,
  methodNotFound: -32601,
  invalidParams: -32602,
  internal: -32603,
  preflightFailure: -32002,
  signatureVerification: -32003,
  unsupportedTransactionVersion: -32015,
});

/**
 * An error that becomes the `error` member of a JSON-RPC response: `rpcCode` and `data` are
 * written to the wire as `code` and `data`. Any other error a method throws is answered -32603.
 */
export class RpcError extends Error {
  override readonly name = "RpcError";
  constructor(
    readonly rpcCode: number,
    message: string,
    readonly data?: unknown,
  ) {
    super(message);
  }
}

export function isRpcError(error: unknown): error is RpcError {
  return error instanceof RpcError;
}

export function invalidParams(message: string): RpcError {
  return new RpcError(RPC_ERRORS.invalidParams, message);
}

const BIGINT_MARKER = `__u64_${crypto.getRandomValues(new Uint32Array(2)).join("_")}__`;
const BIGINT_PATTERN = new RegExp(`"${BIGINT_MARKER}(\\d+)"`, "g");

/**
 * JSON with u64 values as bare JSON numbers, as Solana's RPC writes them: bigints are
 * printed digit for digit (no float rounding), so kit's parser reads them back exactly.
 */
export function toJson(value: unknown): string {
  const text = JSON.stringify(value, (_key, v: unknown) => (typeof v === "bigint" ? `${BIGINT_MARKER}${v.toString()}` : v));
  return text.replace(BIGINT_PATTERN, "$1");
}

// ---- parameter readers: each throws -32602 with the reason, never a TypeError ----

export type Params = readonly unknown[];

export function param(params: Params, index: number): unknown {
  return params[index];
}

export function addressParam(params: Params, index: number, name = "pubkey"): Address {
  const value = params[index];
  if (typeof value !== "string" || !isAddressText(value)) throw invalidParams(`Invalid param: ${name} is not a valid base58 address`);
  return value;
}

export function signatureParam(value: unknown): Signature {
  // isSignatureText answers exactly as kit's isSignature, without a BigInt per character.
  if (typeof value !== "string" || !isSignatureText(value)) throw invalidParams("Invalid param: invalid signature");
  return value;
}

export function stringParam(params: Params, index: number, name: string): string {
  const value = params[index];
  if (typeof value !== "string") throw invalidParams(`Invalid param: ${name} must be a string`);
  return value;
}

/** A non-negative integer that fits in u64; JSON numbers beyond 2^53 are refused rather than rounded. */
export function u64Of(value: unknown, name: string): bigint {
  if (typeof value === "number" && Number.isSafeInteger(value) && value >= 0) return BigInt(value);
  if (typeof value === "bigint" && value >= 0n && value < 1n << 64n) return value;
  throw invalidParams(`Invalid param: ${name} must be a non-negative integer`);
}

export function configParam(params: Params, index: number): Readonly<Record<string, unknown>> {
  const value = params[index];
  if (value === undefined || value === null) return {};
  if (typeof value !== "object" || Array.isArray(value)) throw invalidParams("Invalid param: configuration must be an object");
  return value as Readonly<Record<string, unknown>>;
}

export function optionalBoolean(config: Readonly<Record<string, unknown>>, key: string): boolean | undefined {
  const value = config[key];
  if (value === undefined || value === null) return undefined;
  if (typeof value !== "boolean") throw invalidParams(`Invalid param: ${key} must be a boolean`);
  return value;
}

/**
 * Exactly the base64 `atob` accepts (standard alphabet, padding only to a whole group): kit's
 * encoder alone (Node's Buffer) would skip a bad character instead of refusing the request.
 */
function isStrictBase64(text: string): boolean {
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(text) || text.length % 4 === 1) return false;
  return !text.endsWith("=") || text.length % 4 === 0;
}

export function decodeBase64(text: string, name: string): Uint8Array {
  if (!isStrictBase64(text)) throw invalidParams(`Invalid param: ${name} is not valid base64`);
  return new Uint8Array(getBase64Encoder().encode(text));
}

export function decodeBase58(text: string, name: string): Uint8Array {
  try {
    return new Uint8Array(getBase58Encoder().encode(text));
  } catch {
    throw invalidParams(`Invalid param: ${name} is not valid base58`);
  }
}

export function encodeBase64(bytes: Uint8Array): string {
  return getBase64Decoder().decode(bytes);
}

export function decodeHex(text: string, name: string): Uint8Array {
  const hex = text.startsWith("0x") ? text.slice(2) : text;
  if (hex.length % 2 !== 0 || !/^[0-9a-fA-F]*$/.test(hex)) throw invalidParams(`Invalid param: ${name} is not valid hex`);
  return hexToBytes(hex);
}
