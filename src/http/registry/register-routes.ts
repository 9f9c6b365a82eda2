import { type Address, isAddress } from "@solana/kit";
import { Elysia } from "elysia";
import type { RateLimiter } from "../../application/rate-limit.ts";
import { type RegisterAgentDeps, type RegistrationRefusal, registerAgent } from "../../application/registry/register-agent.ts";
import { isLedgerError } from "../../application/ports/ledger.ts";
import { isCoded } from "../../domain/coded-error.ts";
import { MAX_FREE_TAG_LENGTH } from "../../domain/registry/register-agent.ts";
import { agentNameProblems, isLoopbackHttpUrl, metadataUriTextProblems } from "../../domain/registry/registration-fields.ts";
import { clientKey, noAddress } from "../client-address.ts";
import { errorResponses } from "../error-models.ts";
import { HttpError } from "../http-error.ts";
import { RegisterAgentBody, RegisterAgentView } from "./register-models.ts";

/** The registration use case's refusals as HTTP statuses (the HTTP layer's to decide). */
const STATUS_OF_REFUSAL: Readonly<Record<RegistrationRefusal, number>> = Object.freeze({ invalid: 400, upstream: 502, unavailable: 503 });

export type RegisterRoutesDeps = Readonly<{
  registration: RegisterAgentDeps | null;
  rateLimit: RateLimiter;
  /** Take the client address from X-Forwarded-For's last hop (set only behind a trusted proxy). */
  trustForwardedFor: boolean;
  /** The socket peer of a request, as the listener reported it. */
  clientAddressOf?: (request: Request) => string | null;
  /** METADATA_ALLOW_LOOPBACK: http://127.0.0.1 and http://localhost metadata URIs pass this route's scheme check. */
  allowLoopbackMetadata?: boolean;
}>;

/** POST /agents/register: 201 with the x84 SDK's RegisterAgentResponse. */
export function registerRoutes(deps: RegisterRoutesDeps) {
  return new Elysia({ name: "registry-register" }).post(
    "/agents/register",
    async ({ body, request, set }) => {
      if (!deps.registration) throw new HttpError(503, "registration is not configured on this service (no config authority key)");
      checkFields(body);
      const tags = checkTags(body.tags ?? [], deps.registration);
      checkMetadataUri(body.metadataUri, deps.allowLoopbackMetadata ?? false);
      // SECURITY: each accepted call costs a config-authority signature (KMS/HSM) and a fetch.
      const client = clientKey(request, deps.clientAddressOf ?? noAddress, deps.trustForwardedFor);
      if (!(await deps.rateLimit.allow(client))) throw new HttpError(429, "too many registrations from this address; retry in a minute");
      const result = await unavailableOn503(
        registerAgent(
          {
            name: body.name,
            ownerAddress: body.ownerAddress as Address,
            metadataUri: body.metadataUri,
            tags,
            ...(body.feedbackAuthority ? { feedbackAuthority: body.feedbackAuthority as Address } : {}),
          },
          deps.registration,
        ),
      );
      if (!result.ok) throw new HttpError(STATUS_OF_REFUSAL[result.refusal], result.message);
      set.status = 201;
      return result.response;
    },
    {
      parse: "json",
      body: RegisterAgentBody,
      response: {
        201: RegisterAgentView,
        ...errorResponses([400, 403, 413, 429, 500, 502, 503], {
          400: { when: "a field outside its rule, or a metadataUri the fetcher refuses (METADATA_* code in the message)", message: "metadataUri: METADATA_HOST_UNKNOWN: the metadata host does not exist" },
          503: { when: "no config authority key, the ledger unreachable, the program paused, or the rate limit's shared counters unreachable (it fails closed)", message: "registration is not configured on this service (no config authority key)" },
        }),
      },
      detail: {
        operationId: "registerAgent",
        tags: ["registration"],
        summary: "Build a register_agent transaction, partially signed by the config authority and a new asset key",
        description:
          "The owner signs the returned transaction (its slot is empty) and broadcasts it. The metadata document is fetched to hash it (https: or ipfs:, public hosts only; outside production with METADATA_ALLOW_LOOPBACK, the default with the embedded ledger, also http://127.0.0.1 and http://localhost on any port). Rate-limited per client (REGISTER_RATE_LIMIT_PER_MINUTE).",
      },
    },
  );
}

/**
 * SECURITY: what the program would write on chain as text, checked as bytes and characters before
 * any quota, fetch or signature is spent (registration-fields.ts has the rules and the reasons).
 */
function checkFields(body: RegisterAgentBody): void {
  const problems = [
    ...agentNameProblems(body.name),
    ...addressProblems("ownerAddress", body.ownerAddress),
    ...metadataUriTextProblems(body.metadataUri),
    ...(body.feedbackAuthority === undefined ? [] : addressProblems("feedbackAuthority", body.feedbackAuthority)),
  ];
  if (problems.length > 0) throw new HttpError(400, problems.length === 1 ? (problems[0] ?? "") : problems);
}

/** The schema checks the alphabet; a 32-44 character base58 string may still not decode to 32 bytes. */
function addressProblems(field: string, text: string): string[] {
  return isAddress(text) ? [] : [`${field} must be a base58 address (32 bytes)`];
}

/** A known category (any case, sent as its canonical name's hash) or a free tag of at most 32 characters. */
function checkTags(tags: readonly string[], registration: RegisterAgentDeps): readonly string[] {
  const problems = tags.flatMap((tag, i) =>
    registration.categories.nameOf(registration.categories.resolve(tag)) !== undefined || [...tag].length <= MAX_FREE_TAG_LENGTH
      ? []
      : [`tags.${i} is not a known category and longer than ${MAX_FREE_TAG_LENGTH} characters`],
  );
  if (problems.length > 0) throw new HttpError(400, problems);
  return tags;
}

function checkMetadataUri(uri: string, allowLoopback: boolean): void {
  let parsed: URL;
  try {
    parsed = new URL(uri);
  } catch {
    throw new HttpError(400, "metadataUri is not a URI");
  }
  if (parsed.protocol === "https:" || parsed.protocol === "ipfs:" || (allowLoopback && isLoopbackHttpUrl(parsed))) return;
  throw new HttpError(400, allowLoopback ? "metadataUri must be an https: or ipfs: URI, or http: to 127.0.0.1 or localhost (METADATA_ALLOW_LOOPBACK)" : "metadataUri must be an https: or ipfs: URI");
}

/** The ledger or the config being unreachable is the service's outage, not a bad request. */
async function unavailableOn503<T>(work: Promise<T>): Promise<T> {
  try {
    return await work;
  } catch (error) {
    if (isLedgerError(error) || isCoded(error, "PROTOCOL_CONFIG_UNAVAILABLE")) {
      throw new HttpError(503, "the ledger is unavailable; registration cannot be built right now");
    }
    throw error;
  }
}

