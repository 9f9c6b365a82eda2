import type { Address } from "@solana/kit";
import { SIGN_IN_STATEMENT, formatSignInMessage, parseSignInMessage } from "../../domain/auth/sign-in-message.ts";
import { signatureCandidates, verifySignInSignature } from "../../domain/auth/sign-in-signature.ts";
import type { AccessTokens } from "../ports/access-tokens.ts";
import type { Clock } from "../ports/clock.ts";
import type { SignInStore } from "../ports/sign-in-store.ts";

/** Expired challenges are deleted at most this often, by the challenge request that finds it due. */
export const CHALLENGE_PRUNE_INTERVAL_MS = 60_000;
const NONCE_BYTES = 16;

export type SignInDeps = Readonly<{
  store: SignInStore;
  tokens: AccessTokens;
  clock: Clock;
  /** AUTH_DOMAIN and AUTH_URI: settings, never the request's Host header. */
  domain: string;
  uri: string;
  chainId: string;
  challengeTtlMs: number;
}>;

export type Challenge = Readonly<{ message: string; nonce: string; expiresAt: string }>;

export type TokenRequest = Readonly<{ address: Address; message: string; signature: string }>;

export type SignInRefusalReason =
  | "SIGNATURE_MALFORMED"
  | "MESSAGE_NOT_RECOGNISED"
  | "ADDRESS_MISMATCH"
  | "SIGNATURE_INVALID"
  | "CHALLENGE_NOT_USABLE";

export type SignInResult =
  | Readonly<{ ok: true; accessToken: string; expiresIn: number }>
  | Readonly<{ ok: false; reason: SignInRefusalReason; message: string }>;

export type SignIn = Readonly<{
  challenge(address: Address): Promise<Challenge>;
  token(request: TokenRequest): Promise<SignInResult>;
}>;

/** Sign-In With Solana: issue a single-use challenge, then trade its signature for an access token. */
export function createSignIn(deps: SignInDeps): SignIn {
  const { store, tokens, clock } = deps;
  let nextPruneAtMs = 0;

  async function pruneWhenDue(nowMs: number): Promise<void> {
    if (nowMs < nextPruneAtMs) return;
    nextPruneAtMs = nowMs + CHALLENGE_PRUNE_INTERVAL_MS;
    await store.deleteExpiredChallenges(nowMs);
  }

  return Object.freeze({
    async challenge(address: Address): Promise<Challenge> {
      const nowMs = clock.now();
      await pruneWhenDue(nowMs);
      const nonce = newNonce();
      const expiresAtMs = nowMs + deps.challengeTtlMs;
      const expiresAt = new Date(expiresAtMs).toISOString();
      const message = formatSignInMessage({
        domain: deps.domain,
        address,
        statement: SIGN_IN_STATEMENT,
        uri: deps.uri,
        version: "1",
        chainId: deps.chainId,
        nonce,
        issuedAt: new Date(nowMs).toISOString(),
        expirationTime: expiresAt,
      });
      await store.saveChallenge({ nonce, address, message, expiresAtMs });
      return { message, nonce, expiresAt };
    },

    async token(request: TokenRequest): Promise<SignInResult> {
      const signatures = signatureCandidates(request.signature);
      if (signatures.length === 0) return refuse("SIGNATURE_MALFORMED", "signature must be 64 bytes in base58 or base64");
      const fields = parseSignInMessage(request.message);
      if (!fields) return refuse("MESSAGE_NOT_RECOGNISED", "message is not a sign-in challenge issued by this service");
      if (fields.address !== request.address) return refuse("ADDRESS_MISMATCH", "message was issued for another address");
      // The signature is checked before the challenge is used, so a stranger who learns a nonce
      // cannot burn it with a bad signature.
      if (!(await anyVerifies(request.message, signatures, request.address))) {
        return refuse("SIGNATURE_INVALID", "signature does not verify for this address and message");
      }
      // SECURITY: one statement both checks and uses the challenge (exact message, same address,
      // unexpired, unused), so a replayed or concurrent second use finds nothing, on any replica.
      const user = await store.completeSignIn({ nonce: fields.nonce, address: request.address, message: request.message, atMs: clock.now() });
      if (!user) return refuse("CHALLENGE_NOT_USABLE", "challenge is unknown, already used or expired; request a new one");
      const issued = await tokens.issue(user.address);
      return { ok: true, accessToken: issued.accessToken, expiresIn: issued.expiresInSeconds };
    },
  });
}

async function anyVerifies(message: string, signatures: readonly Uint8Array[], signer: Address): Promise<boolean> {
  for (const signature of signatures) if (await verifySignInSignature(message, signature, signer)) return true;
  return false;
}

/** 128 random bits as 32 lowercase hex characters: alphanumeric, as EIP-4361 asks. */
function newNonce(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(NONCE_BYTES));
  return Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
}

function refuse(reason: SignInRefusalReason, message: string): SignInResult {
  return { ok: false, reason, message };
}
