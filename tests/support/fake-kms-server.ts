import { getPublicKeyAsync, signAsync } from "@noble/ed25519";
import { ed25519Spki } from "../../src/infrastructure/signers/ed25519-public-key.ts";

/**
 * A local stand-in for AWS KMS speaking the AWS JSON 1.1 protocol (`X-Amz-Target:
 * TrentService.<Operation>`), backed by a real ed25519 key, so the real SDK client runs
 * unmodified against it. Used by tests and the signer benchmark; never by the service.
 */
export type RecordedKmsRequest = Readonly<{
  target: string | null;
  contentType: string | null;
  authorization: string | null;
  body: Record<string, unknown>;
}>;

/** What to do with the next request for an operation; consumed in order, then `ok`. */
export type KmsScript = "ok" | "hang" | Readonly<{ error: string; status?: number }>;

export type FakeKms = Readonly<{
  endpoint: string;
  keyId: string;
  publicKey: Uint8Array;
  requests: RecordedKmsRequest[];
  /** Queue behaviours for the next requests of `operation` ("Sign" or "GetPublicKey"). */
  script(operation: string, ...steps: KmsScript[]): void;
  /** Clears scripted steps, recorded requests and the public key override. */
  reset(): void;
  /** Answers GetPublicKey with this SPKI instead of the real key's. */
  overridePublicKey(spki: Uint8Array | null): void;
  stop(): Promise<void>;
}>;

export async function startFakeKms(options: Readonly<{ keyId?: string; seed?: Uint8Array }> = {}): Promise<FakeKms> {
  const keyId = options.keyId ?? "1234abcd-12ab-34cd-56ef-1234567890ab";
  const seed = options.seed ?? crypto.getRandomValues(new Uint8Array(32));
  const publicKey = await getPublicKeyAsync(seed);
  const requests: RecordedKmsRequest[] = [];
  const scripts = new Map<string, KmsScript[]>();
  const hanging = new Set<() => void>();
  let spkiOverride: Uint8Array | null = null;

  const server = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    idleTimeout: 0,
    async fetch(request) {
      const target = request.headers.get("x-amz-target");
      const body = (await request.json().catch(() => ({}))) as Record<string, unknown>;
      requests.push({
        target,
        contentType: request.headers.get("content-type"),
        authorization: request.headers.get("authorization"),
        body,
      });
      const operation = target?.replace(/^TrentService\./, "") ?? "";
      const step = scripts.get(operation)?.shift() ?? "ok";
      if (step === "hang") return new Promise<Response>((resolve) => hanging.add(() => resolve(new Response(null, { status: 504 }))));
      if (step !== "ok") return awsError(step.error, step.status ?? 400);
      if (body.KeyId !== keyId) return awsError("NotFoundException", 400);
      if (operation === "GetPublicKey") return getPublicKey();
      if (operation === "Sign") return sign(body);
      return awsError("UnknownOperationException", 400);
    },
  });

  function getPublicKey(): Response {
    return awsJson({
      KeyId: `arn:aws:kms:us-east-1:111122223333:key/${keyId}`,
      KeySpec: "ECC_NIST_EDWARDS25519",
      KeyUsage: "SIGN_VERIFY",
      PublicKey: Buffer.from(spkiOverride ?? ed25519Spki(publicKey)).toString("base64"),
      SigningAlgorithms: ["ED25519_SHA_512", "ED25519_PH_SHA_512"],
    });
  }

  async function sign(body: Record<string, unknown>): Promise<Response> {
    if (body.SigningAlgorithm !== "ED25519_SHA_512" || body.MessageType !== "RAW" || typeof body.Message !== "string") {
      return awsError("ValidationException", 400);
    }
    const signature = await signAsync(Buffer.from(body.Message, "base64"), seed);
    return awsJson({
      KeyId: `arn:aws:kms:us-east-1:111122223333:key/${keyId}`,
      Signature: Buffer.from(signature).toString("base64"),
      SigningAlgorithm: "ED25519_SHA_512",
    });
  }

  return Object.freeze({
    endpoint: `http://127.0.0.1:${server.port}`,
    keyId,
    publicKey,
    requests,
    script(operation: string, ...steps: KmsScript[]) {
      scripts.set(operation, [...(scripts.get(operation) ?? []), ...steps]);
    },
    reset() {
      scripts.clear();
      requests.splice(0);
      spkiOverride = null;
    },
    overridePublicKey(spki: Uint8Array | null) {
      spkiOverride = spki;
    },
    async stop() {
      for (const release of hanging) release();
      hanging.clear();
      await server.stop(true);
    },
  });
}

function awsJson(payload: unknown): Response {
  return new Response(JSON.stringify(payload), { headers: { "content-type": "application/x-amz-json-1.1" } });
}

function awsError(type: string, status: number): Response {
  return new Response(JSON.stringify({ __type: `com.amazonaws.kms#${type}`, message: `${type} from fake KMS` }), {
    status,
    headers: { "content-type": "application/x-amz-json-1.1", "x-amzn-errortype": type },
  });
}
