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
      try {
        const { payload } = await jwtVerify(token, keyFor, {
          algorithms: [JWT_ALGORITHM],
          issuer,
          audience,
          typ: TOKEN_TYPE,
          currentDate: new Date(clock.now()),
          requiredClaims: ["sub", "iat", "exp"],
        });
        return typeof payload.sub === "string" ? { subject: payload.sub } : null;
      } catch {
        // Every failure (format, signature, claims, key) is the same answer: not a valid token.
        return null;
      }
    },
  });
}
