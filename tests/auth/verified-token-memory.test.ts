/**
 * The access-token verifier remembers tokens it verified (jose-access-tokens.ts): the same text is
 * answered without a second key lookup and signature check, only until its `exp`, and any other
 * text (a forged or altered token) is still verified in full. Real jose and Ed25519 keys; a manual
 * clock.
 */
import { describe, expect, test } from "bun:test";
import { type CryptoKey, SignJWT, generateKeyPair } from "jose";
import { createJoseAccessTokens } from "../../src/infrastructure/auth/jose-access-tokens.ts";

const ISSUER = "https://registry.example";
const SUBJECT = "9xQeWvG816bUx9EPjHmaT23yvVM2ZWbrrpZb9PusVFin";

/** A key set that counts its lookups: one per full verification (jose asks for the key by kid). */
class CountingKeys extends Map<string, CryptoKey> {
  lookups = 0;
  override get(kid: string): CryptoKey | undefined {
    this.lookups++;
    return super.get(kid);
  }
}

async function setUp(ttlSeconds = 60) {
  const { privateKey, publicKey } = await generateKeyPair("EdDSA", { crv: "Ed25519", extractable: true });
  const keys = new CountingKeys([["k1", publicKey as CryptoKey]]);
  let nowMs = 1_800_000_000_000;
  const clock = { now: () => nowMs };
  const tokens = createJoseAccessTokens({
    signingKey: { kid: "k1", privateKey: privateKey as CryptoKey, publicKey: publicKey as CryptoKey },
    verificationKeys: keys,
    issuer: ISSUER,
    audience: ISSUER,
    ttlSeconds,
    clock,
  });
  return { tokens, keys, privateKey: privateKey as CryptoKey, advance: (ms: number) => (nowMs += ms) };
}

describe("access tokens: a verified token remembered until its exp (real jose, manual clock)", () => {
  test("the same token again is answered without a second verification", async () => {
    const { tokens, keys } = await setUp();
    const { accessToken } = await tokens.issue(SUBJECT);
    expect(await tokens.verify(accessToken)).toEqual({ subject: SUBJECT });
    expect(keys.lookups).toBe(1);
    for (let i = 0; i < 5; i++) expect(await tokens.verify(accessToken)).toEqual({ subject: SUBJECT });
    expect(keys.lookups).toBe(1);
  });

  test("a remembered token stops being accepted at its exp, as an unremembered one does", async () => {
    const { tokens, advance } = await setUp(60);
    const { accessToken } = await tokens.issue(SUBJECT);
    expect(await tokens.verify(accessToken)).toEqual({ subject: SUBJECT });
    advance(59_999);
    expect(await tokens.verify(accessToken)).toEqual({ subject: SUBJECT });
    advance(1);
    expect(await tokens.verify(accessToken)).toBeNull();
    expect(await tokens.verify(accessToken)).toBeNull();
  });

  test("SECURITY: altered or forged texts beside a remembered token are verified in full and refused", async () => {
    const { tokens, keys } = await setUp();
    const { accessToken } = await tokens.issue(SUBJECT);
    expect(await tokens.verify(accessToken)).toEqual({ subject: SUBJECT });
    const [header, payload, signature] = accessToken.split(".") as [string, string, string];
    const otherSubject = Buffer.from(JSON.stringify({ ...JSON.parse(Buffer.from(payload, "base64url").toString()), sub: "So11111111111111111111111111111111111111112" })).toString("base64url");
    // The second-to-last character carries six of the signature's bits (the last only two): always a different one.
    const flipped = signature.slice(0, -2) + (signature.at(-2) === "A" ? "B" : "A") + signature.slice(-1);
    const { privateKey: foreignKey } = await generateKeyPair("EdDSA", { crv: "Ed25519" });
    const foreign = await new SignJWT({}).setProtectedHeader({ alg: "EdDSA", typ: "JWT", kid: "k1" }).setIssuer(ISSUER).setAudience(ISSUER).setSubject(SUBJECT).setIssuedAt().setExpirationTime("1h").sign(foreignKey);
    for (const forged of [`${header}.${otherSubject}.${signature}`, `${header}.${payload}.${flipped}`, foreign]) {
      const before = keys.lookups;
      expect(await tokens.verify(forged)).toBeNull();
      expect(keys.lookups).toBe(before + 1);
    }
    // A refused text is not remembered either: asked again, it is checked again.
    const before = keys.lookups;
    expect(await tokens.verify(foreign)).toBeNull();
    expect(keys.lookups).toBe(before + 1);
  });
});
