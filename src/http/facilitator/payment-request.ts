import { TypeCompiler } from "@sinclair/typebox/compiler";
import { fromBase64 } from "../../domain/codecs/base64.ts";
import { caip2FromV1Network } from "../../domain/networks.ts";
import type {
  PaymentExtensions,
  PaymentPayload,
  PaymentRequest,
  PaymentRequirements,
  ResourceInfo,
} from "../../domain/payment/payment-request.ts";
import { canonicalModeName } from "../../application/payment/mode-table.ts";
import { HttpError } from "../http-error.ts";
import { paymentIdentifierOf } from "./payment-identifier-extension.ts";
import { violationMessages } from "../validation-messages.ts";
import { PaymentRequestBody, type PaymentRequirementsModel, V1PaymentPayloadModel, V2PaymentRequirementsModel } from "./models.ts";

type RequirementsBody = typeof PaymentRequirementsModel.static;
type PayloadBody = PaymentRequestBody["paymentPayload"];
type ObjectPayloadBody = Exclude<PayloadBody, string>;
type V1PayloadBody = typeof V1PaymentPayloadModel.static;
type V2PayloadBody = Exclude<ObjectPayloadBody, V1PayloadBody>;

// Compiled at the first request that needs them, not when the module loads: together ~15 ms of
// the start-up's main thread, which runs before the ports are healthy (docs/performance.md, Start-up).
let compiledChecks: ReturnType<typeof compileChecks> | null = null;
function checks(): ReturnType<typeof compileChecks> {
  compiledChecks ??= compileChecks();
  return compiledChecks;
}
function compileChecks() {
  return Object.freeze({
    request: TypeCompiler.Compile(PaymentRequestBody),
    v1Payload: TypeCompiler.Compile(V1PaymentPayloadModel),
    v2Requirements: TypeCompiler.Compile(V2PaymentRequirementsModel),
  });
}

/**
 * Turns a `/verify` or `/settle` body into the internal v2 {@link PaymentRequest}, for callers
 * that hold unchecked JSON: the body is checked against {@link PaymentRequestBody} (the routes'
 * own schema, compiled) and a malformed one throws {@link HttpError} 400 listing every problem.
 * A well-formed but unacceptable payment is left for verification (200).
 */
export function normalisePaymentRequest(body: unknown): PaymentRequest {
  const requestCheck = checks().request;
  if (!requestCheck.Check(body)) throw badRequest(violationMessages(requestCheck.Errors(body), "request body"));
  return toPaymentRequest(body);
}

/**
 * The mapping of a body that passed {@link PaymentRequestBody}: the legacy v1 forms become v2
 * (v1 network names map to CAIP-2, `accepted` is derived), amounts become bigints, settlement-mode
 * aliases their spec names. Unknown fields of the requirements' `extra` and of `extensions` are kept.
 * The base64 v1 string is decoded and its content checked here, the one thing JSON Schema cannot do.
 */
export function toPaymentRequest(body: PaymentRequestBody): PaymentRequest {
  const requirements = toRequirements(body.paymentRequirements);
  const raw = body.paymentPayload;
  if (typeof raw === "string") return request(fromV1(decodeV1(raw), requirements), requirements, 1);
  if (isV1(raw)) return request(fromV1(raw, requirements), requirements, 1);
  checkV2Requirements(body.paymentRequirements);
  return request(fromV2(raw), requirements, 2);
}

/**
 * A v2 payment's requirements in v2's forms (the schema already holds `accepted` to them): which
 * forms apply depends on the payload beside them, which a JSON Schema of one field cannot see.
 */
function checkV2Requirements(raw: RequirementsBody): void {
  const v2RequirementsCheck = checks().v2Requirements;
  if (!v2RequirementsCheck.Check(raw)) {
    throw badRequest(violationMessages(v2RequirementsCheck.Errors(raw), "paymentRequirements", "paymentRequirements."));
  }
}

function request(payload: PaymentPayload, requirements: PaymentRequirements, version: 1 | 2): PaymentRequest {
  return Object.freeze({ paymentPayload: payload, paymentRequirements: requirements, sourceVersion: version });
}

/** The v1 object form: `x402Version` 1 and no `accepted` (with `accepted`, it is a v2 payload). */
function isV1(payload: ObjectPayloadBody): payload is V1PayloadBody {
  return payload.x402Version === 1 && payload.accepted === undefined;
}

function decodeV1(raw: string): V1PayloadBody {
  let text: string;
  try {
    const bytes = fromBase64(raw.trim());
    text = new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  } catch {
    throw badRequest(["paymentPayload string is not valid base64 of UTF-8 text"]);
  }
  let decoded: unknown;
  try {
    decoded = JSON.parse(text);
  } catch {
    throw badRequest(["paymentPayload string is not base64-encoded JSON"]);
  }
  const v1PayloadCheck = checks().v1Payload;
  if (!v1PayloadCheck.Check(decoded)) {
    throw badRequest(violationMessages(v1PayloadCheck.Errors(decoded), "paymentPayload (decoded)", "paymentPayload (decoded)."));
  }
  return decoded;
}

/** v1: `{x402Version: 1, scheme, network, payload: {transaction}}`; the client accepted the requirements under its own scheme and network. */
function fromV1(raw: V1PayloadBody, requirements: PaymentRequirements): PaymentPayload {
  const accepted: PaymentRequirements = Object.freeze({ ...requirements, scheme: raw.scheme, network: toCaip2(raw.network) });
  return Object.freeze({ x402Version: 1, accepted, transaction: raw.payload?.transaction ?? null, extensions: toExtensions(raw.extensions) });
}

function fromV2(raw: V2PayloadBody): PaymentPayload {
  const resource = toResource(raw.resource);
  return Object.freeze({
    x402Version: raw.x402Version,
    accepted: toRequirements(raw.accepted),
    // Absent only with a settlement mode (the schema requires it otherwise).
    transaction: raw.payload?.transaction ?? null,
    extensions: toExtensions(raw.extensions),
    ...(resource ? { resource } : {}),
  });
}

function toExtensions(raw: Readonly<Record<string, unknown>> | null | undefined): PaymentExtensions | null {
  if (raw === undefined || raw === null) return null;
  // SECURITY: aliases (svc-*, x84-*) become the spec's mode name here, once, so no check downstream
  // can be skipped by spelling a mode another way.
  const extensions = raw["mode"] === undefined ? { ...raw } : { ...raw, mode: canonicalModeName(raw["mode"]) };
  const identifier = paymentIdentifierOf(raw);
  return Object.freeze(identifier === null ? extensions : { ...extensions, paymentId: identifier });
}

function toResource(raw: V2PayloadBody["resource"]): ResourceInfo | null {
  if (raw === undefined || raw === null) return null;
  if (typeof raw === "string") return { url: raw };
  return Object.freeze({
    url: raw.url,
    ...(raw.description === undefined ? {} : { description: raw.description }),
    ...(raw.mimeType === undefined ? {} : { mimeType: raw.mimeType }),
  });
}

function toRequirements(raw: RequirementsBody): PaymentRequirements {
  // v1 requirements name the amount `maxAmountRequired`; the schema admits exactly one of the two.
  const amount = raw.amount ?? ("maxAmountRequired" in raw ? raw.maxAmountRequired : 0);
  return Object.freeze({
    scheme: raw.scheme,
    network: toCaip2(raw.network),
    asset: raw.asset,
    amount: BigInt(amount),
    payTo: raw.payTo,
    extra: Object.freeze({ ...(raw.extra ?? {}) }),
    ...(raw.maxTimeoutSeconds === undefined ? {} : { maxTimeoutSeconds: raw.maxTimeoutSeconds }),
    ...(raw.resource === undefined ? {} : { resource: raw.resource }),
    ...(raw.description === undefined ? {} : { description: raw.description }),
  });
}

/** v1 names (`solana-devnet`, `solana`) become CAIP-2; anything else is judged by verification. */
function toCaip2(network: string): string {
  return caip2FromV1Network(network) ?? network;
}

function badRequest(problems: readonly string[]): HttpError {
  return new HttpError(400, problems.length === 1 ? (problems[0] ?? "malformed request") : [...problems]);
}
