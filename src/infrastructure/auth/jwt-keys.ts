import { chmodSync, mkdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";
import { type CryptoKey, type JWK, calculateJwkThumbprint, exportJWK, generateKeyPair, importJWK, importPKCS8 } from "jose";
import { CodedError, isCoded } from "../../domain/coded-error.ts";

/** The one JWS algorithm we sign and accept: Ed25519 (RFC 8037 "EdDSA"). */
export const JWT_ALGORITHM = "EdDSA";

export type JwtSigningKey = Readonly<{ kid: string; privateKey: CryptoKey; publicKey: CryptoKey }>;

/** Public keys tokens may be verified with, by `kid`: ours and any listed for rotation. */
export type JwtVerificationKeys = ReadonlyMap<string, CryptoKey>;

/**
 * A key file that cannot be used: CodedError AUTH_KEY_INVALID. The message names the setting and
 * the path, never key material. The subclass only keeps the name its boot messages carry.
 */
export class AuthKeyError extends CodedError<"AUTH_KEY_INVALID"> {
  override readonly name = "AuthKeyError";
  constructor(message: string) {
    super("AUTH_KEY_INVALID", message);
  }
}

type PublicOkp = Readonly<{ kty: "OKP"; crv: "Ed25519"; x: string }>;

/**
 * The signing key from AUTH_JWT_PRIVATE_KEY_FILE: an Ed25519 private JWK (its `kid` is used when
 * present) or a PKCS#8 PEM. Without `kid`, the key's RFC 7638 thumbprint is its id, so every
 * replica reading the same file names it alike.
 */
export async function loadSigningKey(path: string, setting = "AUTH_JWT_PRIVATE_KEY_FILE"): Promise<JwtSigningKey> {
  const text = readText(path, setting);
  const jwk = text.trimStart().startsWith("-----BEGIN") ? await jwkFromPem(text, path, setting) : parseJwk(text, path, setting);
  return signingKeyFromJwk(jwk, path, setting);
}

/**
 * The development signing key used when AUTH_JWT_PRIVATE_KEY_FILE is unset: generated once at
 * `path` as a private JWK with mode 0600 and reused on later starts, so tokens survive restarts.
 */
export async function loadOrCreateDevSigningKey(path: string): Promise<Readonly<{ key: JwtSigningKey; created: boolean }>> {
  const setting = "development JWT key";
  if (exists(path)) {
    tightenMode(path);
    return { key: await loadSigningKey(path, setting), created: false };
  }
  const { privateKey } = await generateKeyPair(JWT_ALGORITHM, { crv: "Ed25519", extractable: true });
  const jwk = await exportJWK(privateKey);
  mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
  try {
    // SECURITY: `wx` never replaces a key another process wrote first, and 0600 keeps other local
    // users from reading it (whoever holds it can mint tokens for any address).
    writeFileSync(path, JSON.stringify(jwk), { flag: "wx", mode: 0o600 });
  } catch (error) {
    if (!isCode(error, "EEXIST")) throw new AuthKeyError(`${setting}: ${path}: cannot write the key file`);
    return { key: await loadSigningKey(path, setting), created: false };
  }
  return { key: await signingKeyFromJwk(jwk, path, setting), created: true };
}

/**
 * AUTH_JWT_VERIFY_KEYS_FILE: a JWKS (`{"keys": [...]}`) of Ed25519 public keys, accepted for
 * verification beside the signing key, so tokens signed by a key being rotated out stay valid
 * until they expire. Keys without `kid` are named by their thumbprint.
 */
export async function loadVerificationKeys(path: string, setting = "AUTH_JWT_VERIFY_KEYS_FILE"): Promise<JwtVerificationKeys> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(readText(path, setting));
  } catch (error) {
    if (isCoded(error, "AUTH_KEY_INVALID")) throw error;
    throw new AuthKeyError(`${setting}: ${path}: not JSON`);
  }
  const keys = isObject(parsed) && Array.isArray(parsed["keys"]) ? (parsed["keys"] as unknown[]) : null;
  if (keys === null || keys.length === 0 || keys.length > 32) throw new AuthKeyError(`${setting}: ${path}: expected {"keys": [1..32 Ed25519 public JWKs]}`);
  const byKid = new Map<string, CryptoKey>();
  for (const [i, entry] of keys.entries()) {
    if (!isObject(entry)) throw new AuthKeyError(`${setting}: ${path}: keys[${i}] is not a JWK`);
    // SECURITY: a verification list holds public keys only; a private part here means the key was
    // copied somewhere it should not be.
    if ("d" in entry) throw new AuthKeyError(`${setting}: ${path}: keys[${i}] holds a private key; list public keys only`);
    const publicJwk = publicPart(entry, `${setting}: ${path}: keys[${i}]`);
    const kid = await kidOf(entry, publicJwk, `${setting}: ${path}: keys[${i}]`);
    if (byKid.has(kid)) throw new AuthKeyError(`${setting}: ${path}: kid ${kid} is listed twice`);
    byKid.set(kid, await importPublic(publicJwk));
  }
  return byKid;
}

/**
 * Our own key set: the signing key's public half and the listed keys. SECURITY: a listed key that
 * reuses the signing key's kid for other key material would make verification ambiguous; refused.
 */
export async function verificationKeySet(signing: JwtSigningKey, listed: JwtVerificationKeys): Promise<JwtVerificationKeys> {
  const set = new Map(listed);
  const clash = set.get(signing.kid);
  if (clash && (await exportJWK(clash)).x !== (await exportJWK(signing.publicKey)).x) {
    throw new AuthKeyError(`AUTH_JWT_VERIFY_KEYS_FILE: kid ${signing.kid} names another key than the signing key`);
  }
  set.set(signing.kid, signing.publicKey);
  return set;
}

async function signingKeyFromJwk(jwk: JWK, path: string, setting: string): Promise<JwtSigningKey> {
  const where = `${setting}: ${path}`;
  const publicJwk = publicPart(jwk, where);
  if (typeof jwk.d !== "string" || jwk.d.length === 0) throw new AuthKeyError(`${where}: not an Ed25519 private key (no "d")`);
  const kid = await kidOf(jwk, publicJwk, where);
  let key: JwtSigningKey;
  try {
    const privateKey = (await importJWK({ ...publicJwk, d: jwk.d }, JWT_ALGORITHM)) as CryptoKey;
    key = Object.freeze({ kid, privateKey, publicKey: await importPublic(publicJwk) });
  } catch {
    throw new AuthKeyError(`${where}: the Ed25519 private key does not import`);
  }
  // A JWK whose "x" is not the public half of its "d" would sign tokens nobody can verify.
  if (!(await signsForItsPublicKey(key))) throw new AuthKeyError(`${where}: "x" is not the public key of "d"`);
  return key;
}

async function signsForItsPublicKey(key: JwtSigningKey): Promise<boolean> {
  const probe = new TextEncoder().encode("jwt signing key check");
  try {
    const signature = await crypto.subtle.sign("Ed25519", key.privateKey, probe);
    return await crypto.subtle.verify("Ed25519", key.publicKey, signature, probe);
  } catch {
    return false;
  }
}

async function jwkFromPem(pem: string, path: string, setting: string): Promise<JWK> {
  try {
    return await exportJWK(await importPKCS8(pem, JWT_ALGORITHM, { extractable: true }));
  } catch {
    throw new AuthKeyError(`${setting}: ${path}: not an Ed25519 private key in PKCS#8 PEM`);
  }
}

function parseJwk(text: string, path: string, setting: string): JWK {
  try {
    const parsed: unknown = JSON.parse(text);
    if (isObject(parsed)) return parsed as JWK;
  } catch {
    // reported below
  }
  throw new AuthKeyError(`${setting}: ${path}: expected an Ed25519 private JWK (JSON) or a PKCS#8 PEM`);
}

function publicPart(jwk: Record<string, unknown>, where: string): PublicOkp {
  if (jwk["kty"] !== "OKP" || jwk["crv"] !== "Ed25519" || typeof jwk["x"] !== "string" || !/^[A-Za-z0-9_-]{43}$/.test(jwk["x"])) {
    throw new AuthKeyError(`${where}: not an Ed25519 key (kty "OKP", crv "Ed25519")`);
  }
  if (jwk["alg"] !== undefined && jwk["alg"] !== JWT_ALGORITHM && jwk["alg"] !== "Ed25519") {
    throw new AuthKeyError(`${where}: alg must be EdDSA when given`);
  }
  return { kty: "OKP", crv: "Ed25519", x: jwk["x"] };
}

async function kidOf(jwk: Record<string, unknown>, publicJwk: PublicOkp, where: string): Promise<string> {
  const kid = jwk["kid"];
  if (kid === undefined) return calculateJwkThumbprint(publicJwk);
  if (typeof kid !== "string" || !/^[\x21-\x7e]{1,128}$/.test(kid)) throw new AuthKeyError(`${where}: kid must be 1..128 printable characters`);
  return kid;
}

async function importPublic(publicJwk: PublicOkp): Promise<CryptoKey> {
  return (await importJWK(publicJwk, JWT_ALGORITHM)) as CryptoKey;
}

function readText(path: string, setting: string): string {
  try {
    return readFileSync(path, "utf8");
  } catch {
    throw new AuthKeyError(`${setting}: ${path}: cannot read the file`);
  }
}

function exists(path: string): boolean {
  try {
    statSync(path);
    return true;
  } catch (error) {
    if (isCode(error, "ENOENT")) return false;
    throw new AuthKeyError(`development JWT key: ${path}: cannot read the file`);
  }
}

function tightenMode(path: string): void {
  try {
    if ((statSync(path).mode & 0o077) !== 0) chmodSync(path, 0o600);
  } catch {
    // Best effort, as for the development fee payer: a read-only mount still starts.
  }
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function isCode(error: unknown, code: string): boolean {
  return typeof error === "object" && error !== null && (error as { code?: unknown }).code === code;
}
