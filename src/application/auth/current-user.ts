import type { Address } from "@solana/kit";
import { isBase58Address } from "../../domain/registry/fast-address-codec.ts";
import type { AccessTokens } from "../ports/access-tokens.ts";
import type { Logger } from "../ports/logger.ts";
import type { SignInStore } from "../ports/sign-in-store.ts";
import type { OwnedAgents } from "./owned-agents.ts";

export type UserProfile = Readonly<{
  address: string;
  createdAt: string;
  lastSignInAt: string;
  /** nftMints of the agents this address owns. */
  agents: readonly string[];
}>;

export type CurrentUserResult =
  | Readonly<{ ok: true; profile: UserProfile }>
  | Readonly<{ ok: false; reason: "UNAUTHENTICATED"; message: string }>
  | Readonly<{ ok: false; reason: "AGENTS_UNAVAILABLE"; message: string }>;

export type CurrentUserDeps = Readonly<{ tokens: AccessTokens; store: SignInStore; ownedAgents: OwnedAgents; logger: Logger }>;

/** GET /users/me: the token's subject, its user record and the agents it owns. */
export function createCurrentUser(deps: CurrentUserDeps): (bearerToken: string | null) => Promise<CurrentUserResult> {
  const { tokens, store, ownedAgents, logger } = deps;
  return async (bearerToken) => {
    if (bearerToken === null) return unauthenticated("missing bearer token: Authorization: Bearer <accessToken>");
    const verified = await tokens.verify(bearerToken);
    if (!verified || !isBase58Address(verified.subject)) return unauthenticated("access token is invalid or expired");
    const user = await store.findUser(verified.subject);
    // A valid token for a user the store no longer holds (a wiped database): sign in again.
    if (!user) return unauthenticated("access token names no known user; sign in again");
    let agents: readonly string[];
    try {
      agents = await ownedAgents(verified.subject as Address);
    } catch (error) {
      logger.warn("agents of a signed-in user could not be read", { error: error instanceof Error ? error.message : String(error) });
      return { ok: false, reason: "AGENTS_UNAVAILABLE", message: "the registry index is not available; retry shortly" };
    }
    return { ok: true, profile: { ...user, agents } };
  };
}

function unauthenticated(message: string): CurrentUserResult {
  return { ok: false, reason: "UNAUTHENTICATED", message };
}
