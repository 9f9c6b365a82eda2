/**
 * Sign-In With Solana and GET /users/me, built from configuration: the token-signing key (from
 * AUTH_JWT_PRIVATE_KEY_FILE, or a development key in DATA_DIR), the verification key set, the SQL
 * sign-in store and the challenge rate limit. See docs/auth.md.
 */
import { join } from "node:path";
import { createCurrentUser } from "../application/auth/current-user.ts";
import { createOwnedAgents } from "../application/auth/owned-agents.ts";
import { withUserCache } from "../application/auth/cached-users.ts";
import { createSignIn } from "../application/auth/sign-in.ts";
import type { AgentIndex } from "../application/ports/agent-index.ts";
import type { Clock } from "../application/ports/clock.ts";
import type { Logger } from "../application/ports/logger.ts";
import type { WindowCounters } from "../application/ports/window-counters.ts";
import { createRateLimiter } from "../application/rate-limit.ts";
import { signInChainId } from "../domain/auth/sign-in-message.ts";
import type { AuthRoutesDeps } from "../http/registry/auth-routes.ts";
import type { UsersRoutesDeps } from "../http/registry/users-routes.ts";
import { createJoseAccessTokens } from "../infrastructure/auth/jose-access-tokens.ts";
import { type JwtSigningKey, loadOrCreateDevSigningKey, loadSigningKey, loadVerificationKeys, verificationKeySet } from "../infrastructure/auth/jwt-keys.ts";
import type { AppConfig } from "../infrastructure/config/app-config.ts";
import { createSqlSignInStore } from "../infrastructure/store/sql-auth-store.ts";
import type { SqlExecutor } from "../infrastructure/store/sql-executor.ts";

export type RegistryAuth = AuthRoutesDeps & UsersRoutesDeps;

export type AuthInputs = Readonly<{
  executor: SqlExecutor;
  index: AgentIndex;
  /** Shared window counters (one-minute windows) for the challenge rate limit. */
  counters: WindowCounters;
  clock: Clock;
  logger: Logger;
}>;

/** Undefined for a facilitator-only process: it serves no registry, so it needs no key. */
export async function createAuth(config: AppConfig, inputs: AuthInputs): Promise<RegistryAuth | undefined> {
  if (config.ROLE === "facilitator") return undefined;
  const { clock, logger } = inputs;
  const signingKey = await signingKeyOf(config, logger);
  const listed = config.AUTH_JWT_VERIFY_KEYS_FILE ? await loadVerificationKeys(config.AUTH_JWT_VERIFY_KEYS_FILE) : new Map();
  const tokens = createJoseAccessTokens({
    signingKey,
    verificationKeys: await verificationKeySet(signingKey, listed),
    issuer: config.AUTH_URI,
    audience: config.AUTH_URI,
    ttlSeconds: config.AUTH_TOKEN_TTL_SECONDS,
    clock,
  });
  // /users/me reads the user each request: a few seconds in memory (docs/auth.md).
  const store = withUserCache(createSqlSignInStore(inputs.executor), { clock });
  const log = logger.child({ component: "auth" });
  return Object.freeze({
    signIn: createSignIn({
      store,
      tokens,
      clock,
      domain: config.AUTH_DOMAIN,
      uri: config.AUTH_URI,
      chainId: signInChainId(config.NETWORK),
      challengeTtlMs: config.AUTH_CHALLENGE_TTL_SECONDS * 1000,
    }),
    challengeRateLimit: createRateLimiter(inputs.counters, { limit: config.AUTH_CHALLENGE_RATE_LIMIT_PER_MINUTE, windowSeconds: 60 }, clock),
    trustForwardedFor: config.RATE_LIMIT_TRUST_FORWARDED_FOR,
    currentUser: createCurrentUser({ tokens, store, ownedAgents: createOwnedAgents({ index: inputs.index }), logger: log }),
  });
}

async function signingKeyOf(config: AppConfig, logger: Logger): Promise<JwtSigningKey> {
  if (config.AUTH_JWT_PRIVATE_KEY_FILE) return loadSigningKey(config.AUTH_JWT_PRIVATE_KEY_FILE);
  const dev = await loadOrCreateDevSigningKey(join(config.DATA_DIR, "auth-jwt-key.json"));
  logger.info(dev.created ? "generated development token-signing key" : "using development token-signing key", { kid: dev.key.kid });
  return dev.key;
}
