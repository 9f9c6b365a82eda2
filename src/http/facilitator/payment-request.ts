import { caip2FromV1Network } from "../../domain/networks.ts";
import type {
  PaymentExtensions,
  PaymentPayload,
  PaymentRequest,
  PaymentRequirements,
  ResourceInfo,
} from "../../domain/payment/payment-request.ts";
import { canonicalModeName } from "../../domain/settlement/settlement-mode.ts";
import { HttpError } from "../http-error.ts";

/** The largest SPL Token amount (u64). */
const MAX_U64 = 2n ** 64n - 1n;
const DECIMAL_INTEGER = /^(?:0|[1-9][0-9]*)$/;
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}(?:==)?|[A-Za-z0-9+/]{3}=?)?$/;

type Json = Readonly<Record<string, unknown>>;

/**
 * Turns a `/verify` or `/settle` body into the internal v2 {@link PaymentRequest}.
 * Accepts `paymentPayload` as a v2 object or as the legacy v1 base64 JSON string (and, for
 * the official v1 HTTP client, a v1 object); maps v1 network names to CAIP-2; keeps unknown
 * top-level and `extra` fields. A malformed body throws {@link HttpError} 400 with every
 * problem found; a well-formed but unacceptable payment is left for verification (200).
 */
export function normalisePaymentRequest(body: unknown): PaymentRequest {
  if (!isObject(body)) throw badRequest(["request body must be a JSON object"]);
  const problems: string[] = [];
  if (body["paymentPayload"] === undefined || body["paymentPayload"] === null) problems.push("paymentPayload is required");
  if (body["paymentRequirements"] === undefined || body["paymentRequirements"] === null) {
    problems.push("paymentRequirements is required");
  }
  if (problems.length > 0) throw badRequest(problems);

  const requirements = parseRequirements(body["paymentRequirements"], "paymentRequirements", problems);
  const rawPayload = body["paymentPayload"];
  const payload = parsePayload(rawPayload, requirements, problems);
  if (problems.length > 0 || !requirements || !payload) throw badRequest(problems);
  return Object.freeze({ paymentPayload: payload.value, paymentRequirements: requirements, sourceVersion: payload.version });
}

type ParsedPayload = Readonly<{ value: PaymentPayload; version: 1 | 2 }>;

function parsePayload(raw: unknown, requirements: PaymentRequirements | null, problems: string[]): ParsedPayload | null {
  if (typeof raw === "string") {
    const decoded = decodeV1String(raw, problems);
    return decoded ? parseV1Payload(decoded, "paymentPayload (decoded)", requirements, problems) : null;
  }
  if (!isObject(raw)) {
    problems.push("paymentPayload must be a v2 object or a base64-encoded v1 JSON string");
    return null;
  }
  if (raw["x402Version"] === 1 && raw["accepted"] === undefined) {
    return parseV1Payload(raw, "paymentPayload", requirements, problems);
  }
  return parseV2Payload(raw, problems);
}

function decodeV1String(raw: string, problems: string[]): Json | null {
  const compact = raw.trim();
  if (compact === "" || !BASE64.test(compact)) {
    problems.push("paymentPayload string is not valid base64");
    return null;
  }
  let text: string;
  try {
    const binary = atob(compact);
    const bytes = Uint8Array.from(binary, (char) => char.charCodeAt(0));
    text = new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  } catch {
    problems.push("paymentPayload string is not valid base64 of UTF-8 text");
    return null;
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    problems.push("paymentPayload string is not base64-encoded JSON");
    return null;
  }
  if (!isObject(parsed)) {
    problems.push("paymentPayload (decoded) must be a JSON object");
    return null;
  }
  return parsed;
}

/** v1: `{x402Version: 1, scheme, network, payload: {transaction}}`; `accepted` is derived. */
function parseV1Payload(
  raw: Json,
  path: string,
  requirements: PaymentRequirements | null,
  problems: string[],
): ParsedPayload | null {
  const before = problems.length;
  if (raw["x402Version"] !== 1) problems.push(`${path}.x402Version must be 1 for the legacy form`);
  const scheme = requireString(raw, "scheme", path, problems);
  const network = requireString(raw, "network", path, problems);
  const extensions = parseExtensions(raw["extensions"], path, problems);
  const transaction = parseTransaction(raw["payload"], `${path}.payload`, extensions, problems);
  if (problems.length > before || !requirements || scheme === null || network === null || transaction === undefined) return null;
  // v1 payloads carry no `accepted`: the client accepted the requirements under its own scheme and network.
  const accepted: PaymentRequirements = Object.freeze({ ...requirements, scheme, network: toCaip2(network) });
  return { version: 1, value: Object.freeze({ x402Version: 1, accepted, transaction, extensions }) };
}

function parseV2Payload(raw: Json, problems: string[]): ParsedPayload | null {
  const before = problems.length;
  const version = raw["x402Version"];
  if (typeof version !== "number" || !Number.isInteger(version)) problems.push("paymentPayload.x402Version must be an integer");
  const accepted = raw["accepted"] === undefined
    ? (problems.push("paymentPayload.accepted is required"), null)
    : parseRequirements(raw["accepted"], "paymentPayload.accepted", problems);
  const extensions = parseExtensions(raw["extensions"], "paymentPayload", problems);
  const transaction = parseTransaction(raw["payload"], "paymentPayload.payload", extensions, problems);
  const resource = parseResource(raw["resource"], problems);
  if (problems.length > before || !accepted || typeof version !== "number" || transaction === undefined) return null;
  const value: PaymentPayload = Object.freeze({
    x402Version: version,
    accepted,
    transaction,
    extensions,
    ...(resource ? { resource } : {}),
  });
  return { version: 2, value };
}

/** `payload.transaction`: required, except when a settlement mode is given (see PaymentPayload). */
function parseTransaction(raw: unknown, path: string, extensions: PaymentExtensions | null, problems: string[]): string | null | undefined {
  const modeGiven = extensions !== null && extensions["mode"] !== undefined;
  if (raw === undefined || raw === null) {
    if (modeGiven) return null;
    problems.push(`${path} is required`);
    return undefined;
  }
  if (!isObject(raw)) {
    problems.push(`${path} must be an object`);
    return undefined;
  }
  const transaction = raw["transaction"];
  if (transaction === undefined && modeGiven) return null;
  if (typeof transaction !== "string") {
    problems.push(`${path}.transaction must be a base64 string`);
    return undefined;
  }
  return transaction;
}

/** paymentId: 1-128 characters of letters, digits and `.`, `_`, `:`, `-` (docs/verification.md). */
const PAYMENT_ID = /^[A-Za-z0-9._:-]{1,128}$/;

function parseExtensions(raw: unknown, path: string, problems: string[]): PaymentExtensions | null {
  if (raw === undefined || raw === null) return null;
  if (!isObject(raw)) {
    problems.push(`${path}.extensions must be an object`);
    return null;
  }
  // SECURITY: an unbounded id reached the store after co-signing (a 500 for 3,000 characters);
  // bounded here, it is refused before anything is checked, signed or stored.
  const paymentId = raw["paymentId"];
  if (paymentId !== undefined && paymentId !== null && (typeof paymentId !== "string" || !PAYMENT_ID.test(paymentId))) {
    problems.push(`PAYMENT_ID_INVALID: ${path}.extensions.paymentId must be 1 to 128 characters of A-Z, a-z, 0-9, ".", "_", ":" or "-"`);
  }
  // SECURITY: aliases (svc-*, x84-*) become the spec's mode name here, once, so no check downstream
  // can be skipped by spelling a mode another way.
  return Object.freeze(raw["mode"] === undefined ? { ...raw } : { ...raw, mode: canonicalModeName(raw["mode"]) });
}

/** The official client sends `resource` as `{url, description?, mimeType?}`; a bare URL string is accepted too. */
function parseResource(raw: unknown, problems: string[]): ResourceInfo | null {
  if (raw === undefined || raw === null) return null;
  if (typeof raw === "string") return { url: raw };
  if (isObject(raw) && typeof raw["url"] === "string") {
    return Object.freeze({
      url: raw["url"],
      ...(typeof raw["description"] === "string" ? { description: raw["description"] } : {}),
      ...(typeof raw["mimeType"] === "string" ? { mimeType: raw["mimeType"] } : {}),
    });
  }
  problems.push("paymentPayload.resource must be a string or an object with a string url");
  return null;
}

function parseRequirements(raw: unknown, path: string, problems: string[]): PaymentRequirements | null {
  if (!isObject(raw)) {
    problems.push(`${path} must be an object`);
    return null;
  }
  const before = problems.length;
  const scheme = requireString(raw, "scheme", path, problems);
  const network = requireString(raw, "network", path, problems);
  const asset = requireString(raw, "asset", path, problems);
  const payTo = requireString(raw, "payTo", path, problems);
  // v1 requirements name the amount `maxAmountRequired`.
  const amount = parseAmount(raw["amount"] ?? raw["maxAmountRequired"], `${path}.amount`, problems);
  const extra = raw["extra"] ?? {};
  if (!isObject(extra)) problems.push(`${path}.extra must be an object`);
  const timeout = raw["maxTimeoutSeconds"];
  if (timeout !== undefined && (typeof timeout !== "number" || !Number.isFinite(timeout) || timeout < 0)) {
    problems.push(`${path}.maxTimeoutSeconds must be a non-negative number`);
  }
  if (problems.length > before || scheme === null || network === null || asset === null || payTo === null || amount === null) {
    return null;
  }
  const resource = raw["resource"];
  const description = raw["description"];
  return Object.freeze({
    scheme,
    network: toCaip2(network),
    asset,
    amount,
    payTo,
    extra: Object.freeze({ ...(isObject(extra) ? extra : {}) }),
    ...(typeof timeout === "number" ? { maxTimeoutSeconds: timeout } : {}),
    ...(typeof resource === "string" ? { resource } : {}),
    ...(typeof description === "string" ? { description } : {}),
  });
}

function parseAmount(raw: unknown, path: string, problems: string[]): bigint | null {
  let amount: bigint | null = null;
  if (typeof raw === "string" && DECIMAL_INTEGER.test(raw)) amount = BigInt(raw);
  else if (typeof raw === "number" && Number.isSafeInteger(raw) && raw >= 0) amount = BigInt(raw);
  if (amount === null) {
    problems.push(`${path} must be a non-negative integer in base units (decimal string)`);
    return null;
  }
  if (amount > MAX_U64) {
    problems.push(`${path} exceeds the largest token amount (u64)`);
    return null;
  }
  return amount;
}

function requireString(raw: Json, field: string, path: string, problems: string[]): string | null {
  const value = raw[field];
  if (typeof value === "string" && value !== "") return value;
  problems.push(`${path}.${field} must be a non-empty string`);
  return null;
}

/** v1 names (`solana-devnet`, `solana`) become CAIP-2; anything else is judged by verification. */
function toCaip2(network: string): string {
  return caip2FromV1Network(network) ?? network;
}

function isObject(value: unknown): value is Json {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function badRequest(problems: readonly string[]): HttpError {
  return new HttpError(400, problems.length === 1 ? (problems[0] ?? "malformed request") : [...problems]);
}
