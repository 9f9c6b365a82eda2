import { afterAll, afterEach, beforeAll, describe, expect, test } from "bun:test";
import { getPublicKeyAsync, verifyAsync } from "@noble/ed25519";
import { getAddressDecoder } from "@solana/kit";
import type { Signer } from "../../src/application/ports/signer.ts";
import { ed25519Spki } from "../../src/infrastructure/signers/ed25519-public-key.ts";
import { createSigner, parseSignerConfigs, SignerError } from "../../src/infrastructure/signers/index.ts";
import { type FakeKms, startFakeKms } from "../../fixtures/fake-kms-server.ts";
import { kmsSignerEnv } from "../support/kms-rig.ts";

const SECRET_ACCESS_KEY = "fakeSecretAccessKeyThatMustNeverAppear000";
const credentials = { accessKeyId: "AKIAFAKETESTKEY00000", secretAccessKey: SECRET_ACCESS_KEY };

let kms: FakeKms;
const opened: Signer[] = [];

beforeAll(async () => {
  kms = await startFakeKms();
});
afterEach(async () => {
  await Promise.all(opened.splice(0).map((s) => s.close?.()));
  kms.reset();
});
afterAll(async () => {
  await kms.stop();
});

function kmsEnv(overrides: Record<string, string> = {}): Record<string, string> {
  return kmsSignerEnv(kms, { FEE_PAYER_KMS_TIMEOUT_MS: "400", FEE_PAYER_KMS_MAX_ATTEMPTS: "3", ...overrides });
}

async function bootKmsSigner(overrides: Record<string, string> = {}): Promise<Signer> {
  const env = kmsEnv(overrides);
  const parsed = parseSignerConfigs(env, "FEE_PAYER_");
  if (!parsed.ok) throw new Error(parsed.errors.join("; "));
  const [config] = parsed.configs;
  if (config === undefined) throw new Error("no config parsed");
  const signer = await createSigner(config, { env, kms: { credentials } });
  opened.push(signer);
  return signer;
}

async function bootFailure(overrides: Record<string, string> = {}): Promise<SignerError> {
  const error = await bootKmsSigner(overrides).then(
    () => null,
    (e: unknown) => e,
  );
  if (!(error instanceof SignerError)) throw new Error(`expected a SignerError, got ${String(error)}`);
  return error;
}

function signRequests() {
  return kms.requests.filter((r) => r.target === "TrentService.Sign");
}

describe("aws-kms signer (mock AWS KMS endpoint, real SDK)", () => {
  test("boot reads the address from GetPublicKey over AWS JSON 1.1 with SigV4", async () => {
    const signer = await bootKmsSigner();
    expect(signer.kind).toBe("aws-kms");
    expect(signer.address).toBe(getAddressDecoder().decode(kms.publicKey));
    const [request] = kms.requests;
    expect(request?.target).toBe("TrentService.GetPublicKey");
    expect(request?.contentType).toBe("application/x-amz-json-1.1");
    expect(request?.authorization).toStartWith("AWS4-HMAC-SHA256 Credential=AKIAFAKETESTKEY00000/");
    expect(request?.body.KeyId).toBe(kms.keyId);
  });

  test("signs with ED25519_SHA_512 over the RAW message, and the signature verifies", async () => {
    const signer = await bootKmsSigner();
    const messages = [new TextEncoder().encode("first message"), new TextEncoder().encode("second message")];
    const signatures = await signer.signMessages(messages);
    expect(signatures).toHaveLength(2);
    for (const [i, message] of messages.entries()) {
      expect(await verifyAsync(signatures[i] ?? new Uint8Array(), message, kms.publicKey)).toBe(true);
    }
    const requests = signRequests();
    expect(requests).toHaveLength(2);
    for (const request of requests) {
      expect(request.body.KeyId).toBe(kms.keyId);
      expect(request.body.SigningAlgorithm).toBe("ED25519_SHA_512");
      expect(request.body.MessageType).toBe("RAW");
    }
    const sent = requests.map((r) => Buffer.from(String(r.body.Message), "base64").toString()).sort();
    expect(sent).toEqual(["first message", "second message"]);
  });

  test("FEE_PAYER_ADDRESS equal to the key's address boots; a different one fails with ADDRESS_MISMATCH", async () => {
    const address = getAddressDecoder().decode(kms.publicKey);
    expect((await bootKmsSigner({ FEE_PAYER_ADDRESS: address })).address).toBe(address);
    const other = getAddressDecoder().decode(await getPublicKeyAsync(new Uint8Array(32).fill(7)));
    const error = await bootFailure({ FEE_PAYER_ADDRESS: other });
    expect(error.code).toBe("ADDRESS_MISMATCH");
    expect(error.message).toContain("FEE_PAYER_ADDRESS");
  });

  test("an unknown key id maps NotFoundException to KEY_NOT_FOUND", async () => {
    const error = await bootFailure({ FEE_PAYER_KMS_KEY_ID: "alias/does-not-exist" });
    expect(error.code).toBe("KEY_NOT_FOUND");
    expect(error.message).toContain("alias/does-not-exist");
    expect(error.message).toContain("NotFoundException");
  });

  test("AccessDeniedException on Sign maps to ACCESS_DENIED without leaking credentials or AWS text", async () => {
    const signer = await bootKmsSigner();
    kms.script("Sign", { error: "AccessDeniedException" });
    const error = await signer.signMessages([new Uint8Array([1, 2, 3])]).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SignerError);
    if (!(error instanceof SignerError)) return;
    expect(error.code).toBe("ACCESS_DENIED");
    expect(error.message).toContain("kms:Sign");
    expect(error.message).not.toContain(SECRET_ACCESS_KEY);
    expect(error.message).not.toContain("from fake KMS");
  });

  test("ThrottlingException twice then success: the SDK retries and the third attempt signs", async () => {
    const signer = await bootKmsSigner({ FEE_PAYER_KMS_MAX_ATTEMPTS: "3" });
    kms.script("Sign", { error: "ThrottlingException" }, { error: "ThrottlingException" });
    const message = new TextEncoder().encode("retry me");
    const [signature] = await signer.signMessages([message]);
    expect(await verifyAsync(signature ?? new Uint8Array(), message, kms.publicKey)).toBe(true);
    expect(signRequests()).toHaveLength(3);
  });

  test("throttling beyond the attempt budget fails with THROTTLED after exactly max attempts", async () => {
    const signer = await bootKmsSigner({ FEE_PAYER_KMS_MAX_ATTEMPTS: "2" });
    kms.script("Sign", { error: "ThrottlingException" }, { error: "ThrottlingException" });
    const error = await signer.signMessages([new Uint8Array([9])]).catch((e: unknown) => e);
    expect(error instanceof SignerError && error.code).toBe("THROTTLED");
    expect(signRequests()).toHaveLength(2);
  });

  test("an endpoint that never answers gives a bounded TIMEOUT failure after max attempts", async () => {
    const signer = await bootKmsSigner({ FEE_PAYER_KMS_TIMEOUT_MS: "300", FEE_PAYER_KMS_MAX_ATTEMPTS: "2" });
    kms.script("Sign", "hang", "hang");
    const error = await signer.signMessages([new Uint8Array([4])]).catch((e: unknown) => e);
    expect(error instanceof SignerError && error.code).toBe("TIMEOUT");
    expect(signRequests()).toHaveLength(2);
  });

  test("a key whose public key is not Ed25519 is refused at boot", async () => {
    const p256LikeSpki = new Uint8Array(91).fill(0x30);
    kms.overridePublicKey(p256LikeSpki);
    const error = await bootFailure();
    expect(error.code).toBe("KEY_INVALID");
  });

  test("a signature that does not verify under the advertised key is never returned", async () => {
    const otherKey = await getPublicKeyAsync(new Uint8Array(32).fill(3));
    kms.overridePublicKey(ed25519Spki(otherKey));
    const signer = await bootKmsSigner();
    const error = await signer.signMessages([new Uint8Array([5])]).catch((e: unknown) => e);
    expect(error instanceof SignerError && error.code).toBe("BACKEND_ERROR");
  });

  test("an unreachable endpoint maps to BACKEND_UNAVAILABLE or TIMEOUT, never a raw SDK error", async () => {
    const closed = Bun.serve({ port: 0, hostname: "127.0.0.1", fetch: () => new Response() });
    const endpoint = `http://127.0.0.1:${closed.port}`;
    await closed.stop(true);
    const error = await bootFailure({ FEE_PAYER_KMS_ENDPOINT: endpoint, FEE_PAYER_KMS_MAX_ATTEMPTS: "1" });
    expect(["BACKEND_UNAVAILABLE", "TIMEOUT"]).toContain(error.code);
    expect(error.message).toContain(kms.keyId);
  });
});
