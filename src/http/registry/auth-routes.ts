import { Elysia } from "elysia";
import { isAddress, type Address } from "@solana/kit";
import type { SignIn, SignInResult } from "../../application/auth/sign-in.ts";
import { clientKey, noAddress } from "../client-address.ts";
import { errorResponses } from "../error-models.ts";
import { HttpError } from "../http-error.ts";
import { ChallengeBody, ChallengeView, TokenBody, TokenView } from "./auth-models.ts";

/** Same shape as the registration rate limit, so one shared-counter limiter serves both. */
export type ChallengeRateLimit = Readonly<{ allow(key: string): Promise<boolean> }>;

export type AuthRoutesDeps = Readonly<{
  signIn: SignIn;
  challengeRateLimit: ChallengeRateLimit;
  /** Take the client address from X-Forwarded-For's last hop (RATE_LIMIT_TRUST_FORWARDED_FOR). */
  trustForwardedFor: boolean;
  /** The socket peer of a request, as the listener reported it (registry-app.ts passes it). */
  clientAddressOf?: (request: Request) => string | null;
}>;

const RATE_LIMITED = {
  429: { when: "more than AUTH_CHALLENGE_RATE_LIMIT_PER_MINUTE from this client; retry in a minute", message: "too many sign-in challenges from this address; retry in a minute" },
  // The limit fails closed: COUNTERS_UNAVAILABLE is answered 503 by the error layer.
  503: { when: "the shared rate-limit counters cannot be reached in time; retry shortly", message: "the shared counters are unavailable (no answer within 500 ms); retry shortly" },
};

/**
 * Sign-In With Solana: POST /auth/challenge and POST /auth/token (docs/auth.md). Mount after
 * `errorLayer(logger)`. Passing no deps mounts nothing (an interface without sign-in).
 */
export function authRoutes(deps: AuthRoutesDeps | undefined) {
  const plugin = new Elysia({ name: "auth-routes" });
  if (!deps) return plugin;
  return plugin
    .post(
      "/auth/challenge",
      async ({ body, request, set }) => {
        const address = base58Address(body.address);
        // SECURITY: every challenge stores a row until it expires; the rate per client bounds that.
        const client = clientKey(request, deps.clientAddressOf ?? noAddress, deps.trustForwardedFor);
        if (!(await deps.challengeRateLimit.allow(client))) {
          set.headers["retry-after"] = "60";
          throw new HttpError(429, "too many sign-in challenges from this address; retry in a minute");
        }
        set.headers["cache-control"] = "no-store";
        return deps.signIn.challenge(address);
      },
      {
        parse: "json",
        body: ChallengeBody,
        response: { 200: ChallengeView, ...errorResponses([400, 403, 413, 429, 500, 503], RATE_LIMITED) },
        detail: {
          operationId: "authChallenge",
          tags: ["auth"],
          summary: "Sign-In With Solana, step 1: a one-time message for the wallet to sign",
        },
      },
    )
    .post(
      "/auth/token",
      async ({ body, request, set }) => {
        // SECURITY: each attempt costs a strict ed25519 check; counted apart from challenges, same limit.
        const client = clientKey(request, deps.clientAddressOf ?? noAddress, deps.trustForwardedFor);
        if (!(await deps.challengeRateLimit.allow(`token/${client}`))) {
          set.headers["retry-after"] = "60";
          throw new HttpError(429, "too many sign-in attempts from this address; retry in a minute");
        }
        const result = await deps.signIn.token({ address: base58Address(body.address), message: body.message, signature: body.signature });
        if (!result.ok) throw refusal(result);
        set.headers["cache-control"] = "no-store";
        return { accessToken: result.accessToken, tokenType: "Bearer" as const, expiresIn: result.expiresIn };
      },
      {
        parse: "json",
        body: TokenBody,
        response: {
          200: TokenView,
          ...errorResponses([400, 401, 403, 413, 429, 500, 503], {
            401: { when: "the signature does not prove the key, or the challenge is unknown, used or expired", message: "signature does not verify for this address and message" },
            ...RATE_LIMITED,
          }),
        },
        detail: {
          operationId: "authToken",
          tags: ["auth"],
          summary: "Sign-In With Solana, step 2: trade the signed challenge for an access token",
          description: "The challenge is used once, atomically, across replicas.",
        },
      },
    );
}

function refusal(result: Extract<SignInResult, { ok: false }>): HttpError {
  // A signature that is not 64 bytes in either encoding is a malformed request; everything else
  // is a sign-in that did not prove possession of the key for a challenge we issued.
  return new HttpError(result.reason === "SIGNATURE_MALFORMED" ? 400 : 401, result.message);
}

function base58Address(text: string): Address {
  if (!isAddress(text)) throw new HttpError(400, "address must be a base58 address");
  return text;
}
