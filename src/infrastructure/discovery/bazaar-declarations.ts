import { BAZAAR, extractDiscoveryInfo, validateDiscoveryExtension, validateDiscoveryExtensionSpec } from "@x402/extensions/bazaar";
import type { PaymentPayload, PaymentRequirements } from "@x402/core/types";
import type { CatalogueAccept, CatalogueLocator } from "../../domain/discovery/catalogue-entry.ts";
import type { DeclarationReader, DeclarationReading } from "../../application/ports/discovery-declarations.ts";

const ABSENT: DeclarationReading = Object.freeze({ kind: "absent" });
const MAX_URL_LENGTH = 2_048;
/** Validation verdicts kept, by the declaration's JSON: a seller sends the same one with every payment. */
const MAX_CACHED_VERDICTS = 1_000;

const invalid = (reason: string): DeclarationReading => ({ kind: "invalid", reason });
const isObject = (value: unknown): value is Record<string, unknown> => typeof value === "object" && value !== null && !Array.isArray(value);

/**
 * Reads the `bazaar` extension of a /verify or /settle body with @x402/extensions' own
 * validators: the protocol rules (validateDiscoveryExtensionSpec), `info` against its `schema`
 * (validateDiscoveryExtension) and the extraction (extractDiscoveryInfo: canonical URL,
 * routeTemplate rules, sanitised service metadata). x402 v2 payloads only: the spec does not ask
 * facilitators to catalogue v1, whose discovery had no schema.
 */
function readDeclaration(body: unknown, validated: (extension: Record<string, unknown>) => string | null): DeclarationReading {
  if (!isObject(body) || !isObject(body["paymentPayload"]) || !isObject(body["paymentRequirements"])) return ABSENT;
  const payload = body["paymentPayload"];
  const requirements = body["paymentRequirements"];
  const extensions = payload["extensions"];
  if (payload["x402Version"] !== 2 || !isObject(extensions) || !(BAZAAR.key in extensions)) return ABSENT;
  const extension = extensions[BAZAAR.key];
  if (!isObject(extension) || !isObject(extension["schema"])) return invalid("the bazaar extension must be an object with info and schema");

  const problem = validated(extension);
  if (problem !== null) return invalid(problem);

  const resource = payload["resource"];
  const url = isObject(resource) ? resource["url"] : resource;
  if (typeof url !== "string" || url.length > MAX_URL_LENGTH || !/^https?:\/\//i.test(url) || !URL.canParse(url)) return invalid("resource.url must be an absolute http(s) URL");
  const payloadForExtraction = { ...payload, resource: isObject(resource) ? resource : { url } };
  let discovered: ReturnType<typeof extractDiscoveryInfo>;
  try {
    // Already validated above (with the same validator); extraction only reads.
    discovered = extractDiscoveryInfo(payloadForExtraction as unknown as PaymentPayload, requirements as unknown as PaymentRequirements, false);
  } catch (error) {
    return invalid(`bazaar: ${error instanceof Error ? error.message : String(error)}`);
  }
  if (!discovered) return invalid("bazaar: no discovery info");
  const accept = acceptOf(requirements);
  if (!accept) return invalid("paymentRequirements lack scheme, network, asset, amount or payTo");

  const type = discovered.discoveryInfo.input.type === "mcp" ? "mcp" : "http";
  const operation = "toolName" in discovered ? discovered.toolName : (discovered.method ?? methodOf(discovered.discoveryInfo.input));
  if (typeof operation !== "string" || operation.length === 0 || operation.length > 128) return invalid("bazaar: the declaration names no HTTP method or MCP tool");
  return {
    kind: "valid",
    declaration: Object.freeze({
      resource: discovered.resourceUrl,
      type,
      operation,
      x402Version: 2,
      ...(discovered.description ? { description: discovered.description } : {}),
      ...(discovered.mimeType ? { mimeType: discovered.mimeType } : {}),
      ...(discovered.serviceName ? { serviceName: discovered.serviceName } : {}),
      ...(discovered.tags && discovered.tags.length > 0 ? { tags: [...discovered.tags] } : {}),
      ...(discovered.iconUrl ? { iconUrl: discovered.iconUrl } : {}),
      // SECURITY: only the bazaar extension is echoed; the payload's others may hold signatures, payment ids or payer data.
      extensions: { [BAZAAR.key]: extension },
      accept,
    }),
  };
}

/**
 * The package's two validators on one declaration: null when valid, else why. About 100 ms of CPU
 * each (the package builds a new Ajv per call), so verdicts are cached by the declaration's JSON.
 */
function validatorWithCache(): (extension: Record<string, unknown>) => string | null {
  const verdicts = new Map<string, string | null>();
  return (extension) => {
    const json = JSON.stringify(extension);
    const known = verdicts.get(json);
    if (known !== undefined) return known;
    const verdict = validate(extension);
    if (verdicts.size >= MAX_CACHED_VERDICTS) verdicts.delete(verdicts.keys().next().value as string);
    verdicts.set(json, verdict);
    return verdict;
  };
}

function validate(extension: Record<string, unknown>): string | null {
  const spec = validateDiscoveryExtensionSpec(extension);
  if (!spec.valid) return `bazaar: ${(spec.errors ?? []).join("; ")}`;
  // SECURITY: `schema` is the payer's JSON and Ajv turns each `pattern` into a RegExp run on the
  // payer's `info`: one catastrophic pattern would hold the event loop. Patterns are left out of
  // the check (they only constrain example values); every other keyword is checked.
  const checked = validateDiscoveryExtension({ ...extension, schema: withoutPatterns(extension["schema"]) } as never);
  return checked.valid ? null : `bazaar: ${(checked.errors ?? []).join("; ")}`;
}

/** The Bazaar reader over @x402/extensions (one verdict cache per reader). */
export function createBazaarDeclarationReader(): DeclarationReader {
  const validated = validatorWithCache();
  return Object.freeze({
    read: (body: unknown) => readDeclaration(body, validated),
    // The same extraction without the schema check: enough to name an entry, never to write one.
    locate: (body: unknown): CatalogueLocator | null => {
      // SECURITY: no validator here. A /verify is free to the caller, and the package's spec check
      // builds an Ajv per call; naming the entry is enough, since only an entry a validated
      // settlement created is ever refreshed.
      const reading = readDeclaration(body, () => null);
      if (reading.kind !== "valid") return null;
      const { type, operation, resource, accept } = reading.declaration;
      return { type, operation, resource, payTo: accept.payTo };
    },
  });
}

function methodOf(input: unknown): string | undefined {
  return isObject(input) && typeof input["method"] === "string" ? input["method"] : undefined;
}

/** The requirement the payment answered, in the v2 shape (v1's maxAmountRequired read as amount). */
function acceptOf(raw: Record<string, unknown>): CatalogueAccept | null {
  const { scheme, network, asset, payTo, maxTimeoutSeconds, extra } = raw;
  const amount = raw["amount"] ?? raw["maxAmountRequired"];
  if (typeof scheme !== "string" || typeof network !== "string" || typeof asset !== "string" || typeof payTo !== "string") return null;
  if (typeof amount !== "string" && typeof amount !== "number") return null;
  return Object.freeze({
    scheme,
    network,
    asset,
    amount: String(amount),
    payTo,
    ...(typeof maxTimeoutSeconds === "number" ? { maxTimeoutSeconds } : {}),
    ...(isObject(extra) ? { extra } : {}),
  });
}

/** A copy of a JSON Schema without `pattern` and `patternProperties` keywords, at any depth. */
function withoutPatterns(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(withoutPatterns);
  if (!isObject(schema)) return schema;
  const copy: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(schema)) {
    if (key === "pattern" || key === "patternProperties") continue;
    copy[key] = withoutPatterns(value);
  }
  return copy;
}
