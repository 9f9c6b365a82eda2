/**
 * Forged and altered access tokens against GET /users/me, through the whole service (buildService:
 * embedded ledger, PGlite, jose). Tokens are made with jose and node:crypto exactly as an attacker
 * would, some with the service's own development key read from DATA_DIR (to isolate one claim).
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createHmac } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type CryptoKey, type JWK, SignJWT, exportJWK, exportPKCS8, exportSPKI, generateKeyPair, importJWK } from "jose";
import { getAddressEncoder } from "@solana/kit";
import { type TestService, startService } from "../settlement/support/service-harness.ts";
import { accessTokenFor, generateKeyPairSigner, getMe } from "./support/sign-in-client.ts";

const AUTH_URI = "https://registry.example";
let service: TestService;
let ourKey: CryptoKey;
let ourKid: string;
let ourPublicJwk: JWK;
let subject: string;

beforeAll(async () => {
  service = await startService({ AUTH_URI, AUTH_DOMAIN: "registry.example", AUTH_CHALLENGE_RATE_LIMIT_PER_MINUTE: "100000" });
  const wallet = await generateKeyPairSigner();
  const token = await accessTokenFor(service.registryApp, wallet);
  subject = wallet.address;
  ourKid = String(decodePart(token, 0)["kid"]);
  const jwk = JSON.parse(readFileSync(join(service.config.DATA_DIR, "auth-jwt-key.json"), "utf8")) as JWK;
  ourKey = (await importJWK(jwk, "EdDSA")) as CryptoKey;
  ourPublicJwk = { kty: jwk.kty, crv: jwk.crv, x: jwk.x };
}, 30_000);
afterAll(async () => {
  await service?.dispose();
});

const nowSeconds = () => Math.floor(Date.now() / 1000);

function decodePart(token: string, index: number): Record<string, unknown> {
  return JSON.parse(Buffer.from(token.split(".")[index] ?? "", "base64url").toString()) as Record<string, unknown>;
}

const b64url = (value: unknown) => Buffer.from(typeof value === "string" ? value : JSON.stringify(value)).toString("base64url");

type Claims = Readonly<{ iss?: string; aud?: string; sub?: string; iat?: number; exp?: number }>;

function claims(overrides: Claims = {}): Claims {
  return { iss: AUTH_URI, aud: AUTH_URI, sub: subject, iat: nowSeconds(), exp: nowSeconds() + 600, ...overrides };
}

async function signed(key: CryptoKey, header: Record<string, unknown>, body: Claims): Promise<string> {
  return new SignJWT({ ...body }).setProtectedHeader({ alg: "EdDSA", typ: "JWT", ...header }).sign(key);
}

async function expect401(token: string): Promise<void> {
  const reply = await getMe(service.registryApp, `Bearer ${token}`);
  expect(reply.status).toBe(401);
  expect(reply.body).toMatchObject({ statusCode: 401, error: "Unauthorized" });
}

describe("access tokens that must not authenticate (real service, jose, PGlite)", () => {
  test("control: a token signed with our key and correct claims is accepted", async () => {
    expect((await getMe(service.registryApp, `Bearer ${await signed(ourKey, { kid: ourKid }, claims())}`)).status).toBe(200);
  });

  test("wrong audience or issuer, even signed with our key", async () => {
    await expect401(await signed(ourKey, { kid: ourKid }, claims({ aud: "https://other.example" })));
    await expect401(await signed(ourKey, { kid: ourKid }, claims({ iss: "https://other.example" })));
    const { aud: _a, ...noAudience } = claims();
    await expect401(await signed(ourKey, { kid: ourKid }, noAudience));
    const { iss: _i, ...noIssuer } = claims();
    await expect401(await signed(ourKey, { kid: ourKid }, noIssuer));
  });

  test("expired, and without exp", async () => {
    await expect401(await signed(ourKey, { kid: ourKid }, claims({ iat: nowSeconds() - 7200, exp: nowSeconds() - 3600 })));
    const { exp: _e, ...forever } = claims();
    await expect401(await signed(ourKey, { kid: ourKid }, forever));
  });

  test("a tampered payload (another subject) under the original signature", async () => {
    const token = await signed(ourKey, { kid: ourKid }, claims());
    const [header, , signature] = token.split(".");
    const other = (await generateKeyPairSigner()).address;
    await expect401(`${header}.${b64url(claims({ sub: other }))}.${signature}`);
    await expect401(`${header}.${b64url(claims({ exp: nowSeconds() + 10 * 365 * 86_400 }))}.${signature}`);
  });

  test("alg none, with and without our kid, with and without a signature part", async () => {
    for (const header of [{ alg: "none", typ: "JWT" }, { alg: "none", typ: "JWT", kid: ourKid }, { alg: "NONE", kid: ourKid }]) {
      await expect401(`${b64url(header)}.${b64url(claims())}.`);
      await expect401(`${b64url(header)}.${b64url(claims())}`);
    }
    // Our real header with the signature stripped.
    const [header, payload] = (await signed(ourKey, { kid: ourKid }, claims())).split(".");
    await expect401(`${header}.${payload}.`);
  });

  test("a foreign Ed25519 key signing under our kid", async () => {
    const { privateKey } = await generateKeyPair("EdDSA", { crv: "Ed25519" });
    await expect401(await signed(privateKey, { kid: ourKid }, claims()));
    await expect401(await signed(privateKey, {}, claims()));
  });

  test("HS256 with our public key as the HMAC secret (every form an attacker might try)", async () => {
    const publicKey = await importJWK(ourPublicJwk, "EdDSA");
    const secrets = [
      Buffer.from(String(ourPublicJwk.x), "base64url"),
      Buffer.from(String(ourPublicJwk.x)),
      Buffer.from(JSON.stringify(ourPublicJwk)),
      Buffer.from(await exportSPKI(publicKey as CryptoKey)),
      Buffer.from(getAddressEncoder().encode(subject as never)),
    ];
    for (const secret of secrets) {
      for (const alg of ["HS256", "HS512"]) {
        const input = `${b64url({ alg, typ: "JWT", kid: ourKid })}.${b64url(claims())}`;
        const mac = createHmac(alg === "HS256" ? "sha256" : "sha512", secret).update(input).digest("base64url");
        await expect401(`${input}.${mac}`);
      }
    }
  });

  test("a key carried in the token header (jwk, jku, x5c) is never used", async () => {
    const { privateKey, publicKey } = await generateKeyPair("EdDSA", { crv: "Ed25519", extractable: true });
    const attackerJwk = await exportJWK(publicKey);
    await expect401(await signed(privateKey, { jwk: attackerJwk }, claims()));
    await expect401(await signed(privateKey, { jwk: attackerJwk, kid: ourKid }, claims()));
    await expect401(await signed(privateKey, { jku: "https://attacker.example/jwks.json", kid: "attacker" }, claims()));
    await expect401(await signed(privateKey, { x5c: ["MIIB"], kid: ourKid }, claims()));
  });

  test("a valid signature for a subject that never signed in, or that is not an address", async () => {
    await expect401(await signed(ourKey, { kid: ourKid }, claims({ sub: (await generateKeyPairSigner()).address })));
    await expect401(await signed(ourKey, { kid: ourKid }, claims({ sub: "admin" })));
    const { sub: _s, ...noSubject } = claims();
    await expect401(await signed(ourKey, { kid: ourKid }, noSubject));
  });
});

describe("key rotation: AUTH_JWT_PRIVATE_KEY_FILE (PEM) plus AUTH_JWT_VERIFY_KEYS_FILE (JWKS)", () => {
  test("a rotated-out key that is listed still verifies by its kid; an unlisted key, or a foreign key under a listed kid, does not", async () => {
    const dir = mkdtempSync(join(tmpdir(), "jwt-rotation-"));
    const [current, retired, unlisted] = await Promise.all([0, 1, 2].map(() => generateKeyPair("EdDSA", { crv: "Ed25519", extractable: true })));
    if (!current || !retired || !unlisted) throw new Error("keys");
    writeFileSync(join(dir, "signing.pem"), await exportPKCS8(current.privateKey));
    writeFileSync(join(dir, "verify.jwks"), JSON.stringify({ keys: [{ ...(await exportJWK(retired.publicKey)), kid: "2025-retired", use: "sig" }] }));
    const rotated = await startService({
      AUTH_URI,
      AUTH_JWT_PRIVATE_KEY_FILE: join(dir, "signing.pem"),
      AUTH_JWT_VERIFY_KEYS_FILE: join(dir, "verify.jwks"),
    });
    try {
      const wallet = await generateKeyPairSigner();
      const fresh = await accessTokenFor(rotated.registryApp, wallet);
      expect((await getMe(rotated.registryApp, `Bearer ${fresh}`)).status).toBe(200);
      const body = { ...claims(), sub: wallet.address };
      const me = (token: string) => getMe(rotated.registryApp, `Bearer ${token}`);
      expect((await me(await signed(retired.privateKey, { kid: "2025-retired" }, body))).status).toBe(200);
      expect((await me(await signed(unlisted.privateKey, { kid: "2024-unlisted" }, body))).status).toBe(401);
      expect((await me(await signed(unlisted.privateKey, { kid: "2025-retired" }, body))).status).toBe(401);
      expect((await me(await signed(retired.privateKey, {}, body))).status).toBe(401);
      // The dev key of another instance is just another unlisted key.
      expect((await me(await signed(ourKey, { kid: ourKid }, body))).status).toBe(401);
    } finally {
      await rotated.dispose();
      rmSync(dir, { recursive: true, force: true });
    }
  }, 30_000);
});
