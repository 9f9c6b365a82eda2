import { BAZAAR, extractDiscoveryInfo } from "@x402/extensions/bazaar";
import type { PaymentPayload, PaymentRequirements } from "@x402/core/types";
import type { CatalogueAccept, CatalogueLocator } from "../../domain/discovery/catalogue-entry.ts";
import type { DeclarationReader, DeclarationReading } from "../../application/ports/discovery-declarations.ts";
import { type BazaarValidator, createBazaarValidator } from "./bazaar-validator.ts";

const ABSENT: DeclarationReading = Object.freeze({ kind: "absent" });
const DROPPED: DeclarationReading = Object.freeze({ kind: "dropped" });
const MAX_URL_LENGTH = 2_048;

const invalid = (reason: string): DeclarationReading => ({ kind: "invalid", reason });
const isObject = (value: unknown): value is Record<string, unknown> => typeof value === "object" && value !== null && !Array.isArray(value);

type Parts = Readonly<{ extension: Record<string, unknown>; payload: Record<string, unknown>; requirements: Record<string, unknown> }>;

/** The bazaar extension of an x402 v2 body and what the extraction needs, before any schema check. */
function partsOf(body: unknown): Parts | DeclarationReading {
  if (!isObject(body) || !isObject(body["paymentPayload"]) || !isObject(body["paymentRequirements"])) return ABSENT;
  const payload = body["paymentPayload"];
  const requirements = body["paymentRequirements"];
  const extensions = payload["extensions"];
  if (payload["x402Version"] !== 2 || !isObject(extensions) || !(BAZAAR.key in extensions)) return ABSENT;
  const extension = extensions[BAZAAR.key];
  if (!isObject(extension) || !isObject(extension["schema"])) return invalid("the bazaar extension must be an object with info and schema");
  return { extension, payload, requirements };
}

const isParts = (value: Parts | DeclarationReading): value is Parts => "extension" in value;

/**
 * The declaration, with @x402/extensions' extraction (canonical URL, routeTemplate rules, sanitised
 * service metadata). x402 v2 payloads only: the spec does not ask facilitators to catalogue v1,
 * whose discovery had no schema.
 */
function declarationOf({ extension, payload, requirements }: Parts): DeclarationReading {
  const resource = payload["resource"];
  const url = isObject(resource) ? resource["url"] : resource;
  if (typeof url !== "string" || url.length > MAX_URL_LENGTH || !/^https?:\/\//i.test(url) || !URL.canParse(url)) return invalid("resource.url must be an absolute http(s) URL");
  const payloadForExtraction = { ...payload, resource: isObject(resource) ? resource : { url } };
  let discovered: ReturnType<typeof extractDiscoveryInfo>;
  try {
    // Validated before (read) or not needed (locate); extraction only reads.
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
 * The Bazaar reader over @x402/extensions. `read` checks the declaration with the package's own
 * validators (the protocol rules, then `info` against its `schema`) in a Worker (bazaar-validator.ts):
 * the event loop only parses and extracts.
 */
export function createBazaarDeclarationReader(validate: BazaarValidator = createBazaarValidator()): DeclarationReader {
  return Object.freeze({
    async read(body: unknown): Promise<DeclarationReading> {
      const parts = partsOf(body);
      if (!isParts(parts)) return parts;
      const verdict = await validate(parts.extension);
      if (verdict.kind === "busy") return DROPPED;
      if (verdict.problem !== null) return invalid(verdict.problem);
      return declarationOf(parts);
    },
    // The same extraction without the schema check: enough to name an entry, never to write one.
    locate: (body: unknown): CatalogueLocator | null => {
      // SECURITY: no validator here. A /verify is free to the caller, and a schema check costs a
      // Worker tens of ms; naming the entry is enough, since only an entry a validated settlement
      // created is ever refreshed.
      const parts = partsOf(body);
      if (!isParts(parts)) return null;
      const reading = declarationOf(parts);
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
