import { afterAll, describe, expect, test } from "bun:test";
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { getPublicKeyAsync, verifyAsync } from "@noble/ed25519";
import {
  appendTransactionMessageInstruction,
  assertIsTransactionWithinSizeLimit,
  type Address,
  compileTransaction,
  createTransactionMessage,
  getAddressDecoder,
  getBase58Decoder,
  pipe,
  setTransactionMessageFeePayer,
  setTransactionMessageLifetimeUsingBlockhash,
  type Blockhash,
} from "@solana/kit";
import type { Signer } from "../../../src/application/ports/signer.ts";
import {
  createSigner,
  loadOrCreateDevKeypair,
  parseSignerConfigs,
  SignerError,
  toKitPartialSigner,
} from "../../../src/infrastructure/signers/index.ts";

const dir = mkdtempSync(join(tmpdir(), "signers-local-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A fixed key so each format can be checked against one expected address. */
const seed = Uint8Array.from({ length: 32 }, (_, i) => (i * 7 + 1) % 256);
const publicKey = await getPublicKeyAsync(seed);
const secretKey = new Uint8Array([...seed, ...publicKey]);
const expectedAddress: Address = getAddressDecoder().decode(publicKey);
const base58 = (bytes: Uint8Array) => getBase58Decoder().decode(bytes);

async function signerFromEnv(env: Record<string, string>): Promise<Signer> {
  const parsed = parseSignerConfigs(env, "FEE_PAYER_");
  if (!parsed.ok) throw new Error(parsed.errors.join("; "));
  const [config] = parsed.configs;
  if (config === undefined) throw new Error("nothing parsed");
  return createSigner(config, { env });
}

async function bootError(env: Record<string, string>): Promise<string> {
  const parsed = parseSignerConfigs(env, "FEE_PAYER_");
  if (!parsed.ok) return parsed.errors.join("\n");
  const [config] = parsed.configs;
  if (config === undefined) throw new Error("nothing parsed");
  const error = await createSigner(config, { env }).then(
    () => null,
    (e: unknown) => e,
  );
  if (!(error instanceof SignerError)) throw new Error(`expected a SignerError, got ${String(error)}`);
  return error.message;
}

describe("local signer (real WebCrypto Ed25519, verified with @noble/ed25519)", () => {
  test("round trip: each signature verifies over its message under the signer's address", async () => {
    const signer = await signerFromEnv({ FEE_PAYER_SIGNER: "local", FEE_PAYER_PRIVATE_KEY: base58(secretKey) });
    expect(signer.kind).toBe("local");
    expect(signer.address).toBe(expectedAddress);
    const messages = [new TextEncoder().encode("pay 1 USDC"), new Uint8Array(1232).fill(9)];
    const signatures = await signer.signMessages(messages);
    expect(signatures).toHaveLength(2);
    for (const [i, message] of messages.entries()) {
      const signature = signatures[i] ?? new Uint8Array();
      expect(signature).toHaveLength(64);
      expect(await verifyAsync(signature, message, publicKey)).toBe(true);
      expect(await verifyAsync(signature, new TextEncoder().encode("other"), publicKey)).toBe(false);
    }
  });

  const keyFile = join(dir, "id.json");
  writeFileSync(keyFile, JSON.stringify(Array.from(secretKey)));
  const formats: ReadonlyArray<readonly [string, Record<string, string>]> = [
    ["Solana CLI JSON file (KEYPAIR_PATH)", { FEE_PAYER_SIGNER: "local", FEE_PAYER_KEYPAIR_PATH: keyFile }],
    ["JSON byte array in env", { FEE_PAYER_SIGNER: "local", FEE_PAYER_PRIVATE_KEY: JSON.stringify(Array.from(secretKey)) }],
    ["base58 64-byte secret key", { FEE_PAYER_SIGNER: "local", FEE_PAYER_PRIVATE_KEY: base58(secretKey) }],
    ["base58 32-byte seed", { FEE_PAYER_SIGNER: "local", FEE_PAYER_PRIVATE_KEY: base58(seed) }],
    ["JSON 32-byte seed", { FEE_PAYER_PRIVATE_KEY: JSON.stringify(Array.from(seed)) }],
  ];
  for (const [name, env] of formats) {
    test(`accepts ${name} and derives the same address`, async () => {
      const signer = await signerFromEnv(env);
      expect(signer.address).toBe(expectedAddress);
      const [signature] = await signer.signMessages([new Uint8Array([1, 2, 3])]);
      expect(await verifyAsync(signature ?? new Uint8Array(), new Uint8Array([1, 2, 3]), publicKey)).toBe(true);
    });
  }

  const tamperedPublicHalf = new Uint8Array(secretKey);
  tamperedPublicHalf[40] = (tamperedPublicHalf[40] ?? 0) ^ 0xff;
  const badFormats: ReadonlyArray<readonly [string, string]> = [
    ["base58 with characters outside the alphabet", `0OIl${base58(secretKey).slice(4)}`],
    ["base58 of the wrong length", base58(secretKey.slice(0, 40))],
    ["JSON array with a value above 255", JSON.stringify([...Array.from(seed.slice(1)), 300])],
    ["JSON that is not an array", JSON.stringify({ secret: base58(seed) })],
    ["a 64-byte key whose public half does not match", base58(tamperedPublicHalf)],
  ];
  for (const [name, value] of badFormats) {
    test(`rejects ${name}, naming FEE_PAYER_PRIVATE_KEY and never echoing the value`, async () => {
      const message = await bootError({ FEE_PAYER_SIGNER: "local", FEE_PAYER_PRIVATE_KEY: value });
      expect(message).toContain("FEE_PAYER_PRIVATE_KEY");
      expect(message).not.toContain(value);
      expect(message).not.toContain(value.slice(4, 24));
    });
  }

  test("a key file with bad contents is reported by FEE_PAYER_KEYPAIR_PATH without its contents", async () => {
    const badFile = join(dir, "bad.json");
    const contents = `[${Array.from(seed).join(",")}`; // truncated JSON
    writeFileSync(badFile, contents);
    const message = await bootError({ FEE_PAYER_KEYPAIR_PATH: badFile });
    expect(message).toContain("FEE_PAYER_KEYPAIR_PATH");
    expect(message).not.toContain(contents.slice(1, 20));
  });

  test("a missing key file is reported by FEE_PAYER_KEYPAIR_PATH", async () => {
    const message = await bootError({ FEE_PAYER_KEYPAIR_PATH: join(dir, "missing.json") });
    expect(message).toContain("FEE_PAYER_KEYPAIR_PATH");
    expect(message).toContain("ENOENT");
  });

  test("FEE_PAYER_ADDRESS must match the key", async () => {
    const ok = await signerFromEnv({ FEE_PAYER_PRIVATE_KEY: base58(seed), FEE_PAYER_ADDRESS: expectedAddress });
    expect(ok.address).toBe(expectedAddress);
    const other = getAddressDecoder().decode(await getPublicKeyAsync(new Uint8Array(32).fill(5)));
    const message = await bootError({ FEE_PAYER_PRIVATE_KEY: base58(seed), FEE_PAYER_ADDRESS: other });
    expect(message).toContain("FEE_PAYER_ADDRESS");
  });
});

describe("development keypair (real file system)", () => {
  test("is generated once with mode 0600 in Solana CLI format and reused on the next start", async () => {
    const path = join(dir, "nested", "dev-fee-payer.json");
    const first = await loadOrCreateDevKeypair(path);
    expect(first.created).toBe(true);
    expect(statSync(path).mode & 0o777).toBe(0o600);
    const bytes: unknown = JSON.parse(readFileSync(path, "utf8"));
    expect(Array.isArray(bytes) && bytes.length).toBe(64);
    const stored = Uint8Array.from(bytes as number[]);
    expect(getAddressDecoder().decode(stored.slice(32))).toBe(first.signer.address);

    const second = await loadOrCreateDevKeypair(path);
    expect(second.created).toBe(false);
    expect(second.signer.address).toBe(first.signer.address);
    const [signature] = await second.signer.signMessages([new Uint8Array([7])]);
    expect(await verifyAsync(signature ?? new Uint8Array(), new Uint8Array([7]), stored.slice(32))).toBe(true);
  });

  test("concurrent first starts agree on one key", async () => {
    const path = join(dir, "race", "dev.json");
    const results = await Promise.all([loadOrCreateDevKeypair(path), loadOrCreateDevKeypair(path)]);
    expect(new Set(results.map((r) => r.signer.address)).size).toBe(1);
  });
});

describe("toKitPartialSigner (real kit transaction compile, local signer)", () => {
  test("returns one signature dictionary per transaction, signing the compiled message bytes", async () => {
    const signer = await signerFromEnv({ FEE_PAYER_PRIVATE_KEY: base58(secretKey) });
    const kitSigner = toKitPartialSigner(signer);
    const memoProgram = "MemoSq4gqABAXKb96qnH8TysNcWxMyWCqXgDLGmfcHr" as Address;
    const transaction = compileTransaction(
      pipe(
        createTransactionMessage({ version: 0 }),
        (m) => setTransactionMessageFeePayer(signer.address, m),
        (m) =>
          setTransactionMessageLifetimeUsingBlockhash(
            { blockhash: "EtWTRABZaYq6iMfeYKouRu166VU2xqa1wcuWFUBDuyi" as Blockhash, lastValidBlockHeight: 100n },
            m,
          ),
        (m) => appendTransactionMessageInstruction({ programAddress: memoProgram, data: new TextEncoder().encode("hi") }, m),
      ),
    );
    assertIsTransactionWithinSizeLimit(transaction);
    const [dictionary] = await kitSigner.signTransactions([transaction]);
    const signature = dictionary?.[signer.address];
    expect(signature).toBeDefined();
    expect(await verifyAsync(signature ?? new Uint8Array(), new Uint8Array(transaction.messageBytes), publicKey)).toBe(true);
  });
});
