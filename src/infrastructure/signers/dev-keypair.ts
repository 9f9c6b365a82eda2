import { chmodSync, mkdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";
import type { Signer } from "../../application/ports/signer.ts";
import { createLocalSigner } from "./local-signer.ts";
import { decodePrivateKeyText } from "./private-key-format.ts";
import { SignerError } from "./signer-error.ts";

export type DevKeypair = Readonly<{ signer: Signer; created: boolean }>;

/**
 * The development fee payer used when nothing is configured: generated once, kept at
 * `path` in the Solana CLI format (JSON array of 64 bytes) with mode 0600, and reused on
 * every later start so funded balances survive restarts.
 */
export async function loadOrCreateDevKeypair(path: string): Promise<DevKeypair> {
  const existing = readExisting(path);
  if (existing !== null) {
    tightenMode(path);
    return { signer: await createLocalSigner(existing, path), created: false };
  }
  const secret = await generateSecretKey();
  if (!writeNew(path, secret)) {
    // Another process created it first; use theirs so both agree on one key.
    const theirs = readExisting(path);
    if (theirs === null) throw new SignerError("KEY_INVALID", `${path}: development key file is unreadable`);
    secret.fill(0);
    return { signer: await createLocalSigner(theirs, path), created: false };
  }
  return { signer: await createLocalSigner(secret, path), created: true };
}

function readExisting(path: string): Uint8Array | null {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (error) {
    if (isCode(error, "ENOENT")) return null;
    throw new SignerError("CONFIG_INVALID", `${path}: cannot read the development key file`);
  }
  const decoded = decodePrivateKeyText(text);
  if (!decoded.ok) throw new SignerError("KEY_INVALID", `${path}: development key file ${decoded.reason}`);
  return decoded.bytes;
}

/**
 * WebCrypto's native Ed25519, not a JavaScript one: the first key derived in JavaScript builds a
 * precomputation table, a visible part of a first start (docs/performance.md). createLocalSigner
 * then checks that the two halves belong together.
 */
async function generateSecretKey(): Promise<Uint8Array> {
  const pair = (await crypto.subtle.generateKey({ name: "Ed25519" }, true, ["sign", "verify"])) as CryptoKeyPair;
  const pkcs8 = new Uint8Array(await crypto.subtle.exportKey("pkcs8", pair.privateKey));
  const publicKey = new Uint8Array(await crypto.subtle.exportKey("raw", pair.publicKey));
  // An Ed25519 PKCS#8 document is a fixed 16-byte header and the 32-byte seed (RFC 8410).
  if (pkcs8.length !== 48 || publicKey.length !== 32) throw new SignerError("KEY_INVALID", "the generated development key has an unexpected shape");
  const secret = new Uint8Array(64);
  secret.set(pkcs8.subarray(16), 0);
  secret.set(publicKey, 32);
  pkcs8.fill(0);
  return secret;
}

/** Returns false when the file already exists (created concurrently). */
function writeNew(path: string, secret: Uint8Array): boolean {
  mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
  try {
    // SECURITY: `wx` never overwrites an existing key (losing funds) and mode 0600 keeps
    // other local users from reading it.
    writeFileSync(path, JSON.stringify(Array.from(secret)), { flag: "wx", mode: 0o600 });
    return true;
  } catch (error) {
    if (isCode(error, "EEXIST")) return false;
    throw new SignerError("CONFIG_INVALID", `${path}: cannot write the development key file`);
  }
}

function tightenMode(path: string): void {
  try {
    if ((statSync(path).mode & 0o077) !== 0) chmodSync(path, 0o600);
  } catch {
    // Best effort: a read-only mount still lets the service start with its key.
  }
}

function isCode(error: unknown, code: string): boolean {
  return typeof error === "object" && error !== null && (error as { code?: unknown }).code === code;
}
