import { type CryptoKey, type JWTHeaderParameters, SignJWT, jwtVerify } from "jose";
import type { AccessTokens, IssuedAccessToken } from "../../application/ports/access-tokens.ts";
import type { Clock } from "../../application/ports/clock.ts";
import { JWT_ALGORITHM, type JwtSigningKey, type JwtVerificationKeys } from "./jwt-keys.ts";

export type JoseAccessTokensOptions = Readonly<{
  signingKey: JwtSigningKey;
  /** Our whole key set by kid, the signing key's public half included. */
  verificationKeys: JwtVerificationKeys;
  issuer: string;
  audience: string;
  ttlSeconds: number;
  clock: Clock;
}>;

const TOKEN_TYPE = "JWT";
/** Far beyond any token we issue (~300 bytes); a longer header is refused unparsed. */
const MAX_TOKEN_LENGTH = 4096;
/** Tokens remembered as verified (the oldest forgotten first): ~300 bytes each, ~3 MB at most. */
const MAX_VERIFIED_TOKENS = 10_000;

/**
 * Access tokens as compact JWS (EdDSA over Ed25519): header `alg`, `typ`, `kid`; claims `iss`,
 * `aud`, `sub` (the signed-in address), `iat`, `exp`.
 */
export function createJoseAccessTokens(options: JoseAccessTokensOptions): AccessTokens {
  const { signingKey, verificationKeys, issuer, audience, ttlSeconds, clock } = options;

  // SECURITY: the key comes from our own set, chosen by `kid` only. A key carried by the token
  // (`jwk`, `jku`, `x5u`, `x5c`) is never looked at, a token without a known kid has no key, and
  // an `alg` other than EdDSA is refused before any key is chosen: `none`, or HS256 with our
  // public key as the HMAC secret, never reach a verification.
  const keyFor = (header: JWTHeaderParameters): CryptoKey => {
    if (header.alg !== JWT_ALGORITHM) throw new Error("algorithm not accepted");
    const key = typeof header.kid === "string" ? verificationKeys.get(header.kid) : undefined;
    if (!key) throw new Error("unknown key id");
    return key;
  };

  /**
   * Tokens this process has verified, with their subject and `exp`. A client calls GET /users/me
   * with the same token again and again, and the EdDSA check was ~140 µs of CPU each time, about a
   * third of the request (docs/performance.md, fourth session).
   * SECURITY: only a token whose signature and claims passed jwtVerify is remembered, keyed by its
   * exact text, so any other text (one byte changed) is verified in full. A remembered token is
   * answered only while `exp` is still ahead, the same test jwtVerify applies (no clock tolerance);
   * it depends on nothing else that can change: the key set is fixed for the process's life and a
   * token is never revoked before it expires (docs/auth.md).
   */
  const verified = new Map<string, Readonly<{ subject: string; exp: number }>>();

  return Object.freeze({
    async issue(subject: string): Promise<IssuedAccessToken> {
      const nowSeconds = Math.floor(clock.now() / 1000);
      const accessToken = await new SignJWT({})
        .setProtectedHeader({ alg: JWT_ALGORITHM, typ: TOKEN_TYPE, kid: signingKey.kid })
        .setIssuer(issuer)
        .setAudience(audience)
        .setSubject(subject)
        .setIssuedAt(nowSeconds)
        .setExpirationTime(nowSeconds + ttlSeconds)
        .sign(signingKey.privateKey);
      return { accessToken, expiresInSeconds: ttlSeconds };
    },

    async verify(token: string): Promise<Readonly<{ subject: string }> | null> {
      if (token.length > MAX_TOKEN_LENGTH) return null;
      const nowSeconds = Math.floor(clock.now() / 1000);
      const known = verified.get(token);
      if (known) {
        if (known.exp > nowSeconds) return { subject: known.subject };
        verified.delete(token);
        return null;
      }
      try {
        const { payload } = await jwtVerify(token, keyFor, {
          algorithms: [JWT_ALGORITHM],
          issuer,
          audience,
          typ: TOKEN_TYPE,
          currentDate: new Date(clock.now()),
          requiredClaims: ["sub", "iat", "exp"],
        });
        if (typeof payload.sub !== "string" || typeof payload.exp !== "number") return null;
        if (verified.size >= MAX_VERIFIED_TOKENS) verified.delete(verified.keys().next().value as string);
        verified.set(token, Object.freeze({ subject: payload.sub, exp: payload.exp }));
        return { subject: payload.sub };
      } catch {
        // Every failure (format, signature, claims, key) is the same answer: not a valid token.
        return null;
      }
    },
  });
}
