export type IssuedAccessToken = Readonly<{ accessToken: string; expiresInSeconds: number }>;

/**
 * Bearer tokens for signed-in users. `verify` answers the subject (a base58 address) of a token
 * this service issued and that is still valid, or null for anything else: missing, malformed,
 * expired, forged, for another audience or issuer, or signed by a key we do not hold.
 */
export type AccessTokens = Readonly<{
  issue(subject: string): Promise<IssuedAccessToken>;
  verify(token: string): Promise<Readonly<{ subject: string }> | null>;
}>;
