/**
 * The auth settings and key files: AppConfig parsing of AUTH_*, the token-signing key (JWK or
 * PKCS#8 PEM, real files), the development key in DATA_DIR (mode 0600, reused) and the JWKS of
 * rotation keys. Keys are real Ed25519 keys made with jose.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { chmodSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { calculateJwkThumbprint, exportJWK, exportPKCS8, generateKeyPair } from "jose";
import { parseAppConfig } from "../../../src/infrastructure/config/app-config.ts";
import {
  AuthKeyError,
  loadOrCreateDevSigningKey,
  loadSigningKey,
  loadVerificationKeys,
  verificationKeySet,
} from "../../../src/infrastructure/auth/jwt-keys.ts";

const dir = mkdtempSync(join(tmpdir(), "auth-keys-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

let fileCount = 0;
function file(content: string): string {
  const path = join(dir, `key-${++fileCount}`);
  writeFileSync(path, content);
  return path;
}

const newKey = () => generateKeyPair("EdDSA", { crv: "Ed25519", extractable: true });

async function thrown(work: Promise<unknown>): Promise<Error> {
  try {
    await work;
  } catch (error) {
    return error as Error;
  }
  throw new Error("expected a rejection");
}

describe("AUTH_* settings (AppConfig)", () => {
  test("defaults: localhost:3000, 5-minute challenges, 1-hour tokens, 10 challenges a minute", () => {
    const parsed = parseAppConfig({});
    if (!parsed.ok) throw new Error(parsed.errors.join("; "));
    expect(parsed.config).toMatchObject({
      AUTH_DOMAIN: "localhost:3000",
      AUTH_URI: "http://localhost:3000",
      AUTH_CHALLENGE_TTL_SECONDS: 300,
      AUTH_TOKEN_TTL_SECONDS: 3600,
      AUTH_CHALLENGE_RATE_LIMIT_PER_MINUTE: 10,
    });
    expect(parsed.config.AUTH_JWT_PRIVATE_KEY_FILE).toBeUndefined();
  });

  test("a domain or URI that could add a line or another authority to the message is refused", () => {
    for (const env of [
      { AUTH_DOMAIN: "registry.example\nURI: https://evil.example" },
      { AUTH_DOMAIN: "registry.example/path" },
      { AUTH_DOMAIN: "user@registry.example" },
      { AUTH_DOMAIN: "registry example" },
      { AUTH_URI: "https://registry.example/\nVersion: 2" },
      { AUTH_URI: "javascript:alert(1)" },
      { AUTH_CHALLENGE_TTL_SECONDS: "0" },
      { AUTH_TOKEN_TTL_SECONDS: "100000000" },
    ]) {
      const parsed = parseAppConfig(env);
      expect(parsed.ok).toBe(false);
      if (!parsed.ok) expect(parsed.errors.join("\n")).toContain(Object.keys(env)[0] ?? "");
    }
  });
});

describe("token-signing key files", () => {
  test("a private JWK with a kid is used under that kid; without one, under its RFC 7638 thumbprint", async () => {
    const { privateKey } = await newKey();
    const jwk = await exportJWK(privateKey);
    expect((await loadSigningKey(file(JSON.stringify({ ...jwk, kid: "2026-03" })))).kid).toBe("2026-03");
    const thumbprint = await calculateJwkThumbprint({ kty: jwk.kty, crv: jwk.crv, x: jwk.x } as never);
    expect((await loadSigningKey(file(JSON.stringify(jwk)))).kid).toBe(thumbprint);
  });

  test("a PKCS#8 PEM of the same key gets the same kid as its JWK", async () => {
    const { privateKey } = await newKey();
    const fromPem = await loadSigningKey(file(await exportPKCS8(privateKey)));
    const fromJwk = await loadSigningKey(file(JSON.stringify(await exportJWK(privateKey))));
    expect(fromPem.kid).toBe(fromJwk.kid);
  });

  test("unusable files are refused with the setting and path named, never the key material", async () => {
    const { privateKey, publicKey } = await newKey();
    const jwk = await exportJWK(privateKey);
    const p256 = await exportJWK((await generateKeyPair("ES256", { extractable: true })).privateKey);
    const cases = [
      join(dir, "missing.json"),
      file("not json, not pem"),
      file(JSON.stringify(await exportJWK(publicKey))),
      file(JSON.stringify(p256)),
      file(JSON.stringify({ ...jwk, alg: "HS256" })),
      file(JSON.stringify({ ...jwk, d: "AAAA" })),
      file(JSON.stringify({ ...jwk, x: (await exportJWK((await newKey()).publicKey)).x })),
      file("-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n"),
    ];
    for (const path of cases) {
      const error = await thrown(loadSigningKey(path));
      expect(error).toBeInstanceOf(AuthKeyError);
      expect(error.message).toStartWith(`AUTH_JWT_PRIVATE_KEY_FILE: ${path}: `);
      expect(error.message).not.toContain(String(jwk.d));
      expect(error.message).not.toContain(String(p256.d));
    }
  });

  test("the development key is written once with mode 0600 and reused (same kid) on the next start", async () => {
    const path = join(dir, "data", "auth-jwt-key.json");
    const first = await loadOrCreateDevSigningKey(path);
    expect(first.created).toBe(true);
    expect(statSync(path).mode & 0o777).toBe(0o600);
    expect(JSON.parse(readFileSync(path, "utf8"))).toMatchObject({ kty: "OKP", crv: "Ed25519" });
    chmodSync(path, 0o644);
    const second = await loadOrCreateDevSigningKey(path);
    expect(second).toMatchObject({ created: false, key: { kid: first.key.kid } });
    expect(statSync(path).mode & 0o777).toBe(0o600);
  });

  test("two starts racing on an empty DATA_DIR agree on one key", async () => {
    const path = join(dir, "race", "auth-jwt-key.json");
    const results = await Promise.all([0, 1, 2, 3].map(() => loadOrCreateDevSigningKey(path)));
    expect(new Set(results.map((r) => r.key.kid)).size).toBe(1);
    expect(results.filter((r) => r.created).length).toBe(1);
  });
});

describe("verification key set (AUTH_JWT_VERIFY_KEYS_FILE)", () => {
  test("public JWKs by kid, or by thumbprint when they carry none", async () => {
    const [a, b] = await Promise.all([newKey(), newKey()]);
    const bJwk = await exportJWK(b.publicKey);
    const keys = await loadVerificationKeys(file(JSON.stringify({ keys: [{ ...(await exportJWK(a.publicKey)), kid: "old" }, bJwk] })));
    expect([...keys.keys()]).toEqual(["old", await calculateJwkThumbprint(bJwk)]);
  });

  test("a private key, a duplicate kid, another key type, or an empty set is refused", async () => {
    const a = await newKey();
    const publicJwk = await exportJWK(a.publicKey);
    const p256 = await exportJWK((await generateKeyPair("ES256", { extractable: true })).publicKey);
    for (const content of [
      { keys: [await exportJWK(a.privateKey)] },
      { keys: [{ ...publicJwk, kid: "k" }, { ...publicJwk, kid: "k" }] },
      { keys: [p256] },
      { keys: [] },
      [publicJwk],
    ]) {
      const error = await thrown(loadVerificationKeys(file(JSON.stringify(content))));
      expect(error).toBeInstanceOf(AuthKeyError);
      expect(error.message).toStartWith("AUTH_JWT_VERIFY_KEYS_FILE: ");
    }
  });

  test("a listed key may repeat the signing key, but not use its kid for another key", async () => {
    const [signing, other] = await Promise.all([newKey(), newKey()]);
    const key = await loadSigningKey(file(JSON.stringify({ ...(await exportJWK(signing.privateKey)), kid: "current" })));
    const same = await loadVerificationKeys(file(JSON.stringify({ keys: [{ ...(await exportJWK(signing.publicKey)), kid: "current" }] })));
    expect([...(await verificationKeySet(key, same)).keys()]).toEqual(["current"]);
    const clash = await loadVerificationKeys(file(JSON.stringify({ keys: [{ ...(await exportJWK(other.publicKey)), kid: "current" }] })));
    expect(await thrown(verificationKeySet(key, clash))).toBeInstanceOf(AuthKeyError);
  });
});
