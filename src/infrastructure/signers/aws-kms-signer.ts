import { GetPublicKeyCommand, KMSClient, type KMSClientConfig, SignCommand } from "@aws-sdk/client-kms";
import type { Signer } from "../../application/ports/signer.ts";
import { mapKmsError } from "./aws-kms-errors.ts";
import { addressFromPublicKey, ed25519KeyFromSpki } from "./ed25519-public-key.ts";
import { remoteSigner } from "./remote-signer.ts";
import { createSignatureVerifier, type SignatureVerifier } from "./signature-verifier.ts";
import type { AwsKmsSignerConfig } from "./signer-config.ts";
import { SignerError } from "./signer-error.ts";

export type AwsKmsDeps = Readonly<{
  /** Omit in production: the SDK's default chain (env, web identity, IMDS/ECS role) is used. */
  credentials?: KMSClientConfig["credentials"];
}>;

const KEY_SPEC = "ECC_NIST_EDWARDS25519";
const SIGNING_ALGORITHM = "ED25519_SHA_512";

/**
 * A signer whose Ed25519 key never leaves AWS KMS. The address comes from GetPublicKey
 * and, when configured, must equal `expectedAddress` or boot fails.
 * Every request has a timeout; throttling and transient errors are retried by the SDK's
 * standard strategy up to `maxAttempts`, so a call is bounded in time.
 */
export async function createAwsKmsSigner(config: AwsKmsSignerConfig, deps: AwsKmsDeps = {}): Promise<Signer> {
  const client = createKmsClient(config, deps);
  try {
    const publicKey = await fetchPublicKey(client, config.keyId);
    const address = addressFromPublicKey(publicKey);
    if (config.expectedAddress !== null && config.expectedAddress !== address) {
      throw new SignerError(
        "ADDRESS_MISMATCH",
        `${config.origin}ADDRESS does not match the public key of KMS key ${config.keyId} (${address})`,
      );
    }
    const verify = await createSignatureVerifier(publicKey);
    return kmsSigner(client, config.keyId, address, verify);
  } catch (error) {
    client.destroy();
    throw error;
  }
}

function createKmsClient(config: AwsKmsSignerConfig, deps: AwsKmsDeps): KMSClient {
  return new KMSClient({
    region: config.region,
    ...(config.endpoint !== null ? { endpoint: config.endpoint } : {}),
    ...(deps.credentials !== undefined ? { credentials: deps.credentials } : {}),
    maxAttempts: config.maxAttempts,
    retryMode: "standard",
    requestHandler: {
      requestTimeout: config.timeoutMs,
      // Without this the SDK only logs a warning and the request waits forever.
      throwOnRequestTimeout: true,
      connectionTimeout: Math.min(config.timeoutMs, 3_000),
    },
  });
}

async function fetchPublicKey(client: KMSClient, keyId: string): Promise<Uint8Array> {
  let response;
  try {
    response = await client.send(new GetPublicKeyCommand({ KeyId: keyId }));
  } catch (error) {
    throw mapKmsError(error, keyId, "GetPublicKey");
  }
  if (response.KeySpec !== undefined && response.KeySpec !== KEY_SPEC) {
    throw new SignerError("KEY_INVALID", `aws-kms key ${keyId} has key spec ${response.KeySpec}; expected ${KEY_SPEC}`);
  }
  if (response.KeyUsage !== undefined && response.KeyUsage !== "SIGN_VERIFY") {
    throw new SignerError("KEY_INVALID", `aws-kms key ${keyId} has key usage ${response.KeyUsage}; expected SIGN_VERIFY`);
  }
  const raw = response.PublicKey === undefined ? null : ed25519KeyFromSpki(response.PublicKey);
  if (raw === null) throw new SignerError("KEY_INVALID", `aws-kms key ${keyId}: GetPublicKey did not return an Ed25519 key`);
  return raw;
}

function kmsSigner(client: KMSClient, keyId: string, address: Signer["address"], verify: SignatureVerifier): Signer {
  return remoteSigner({
    address,
    kind: "aws-kms",
    label: `aws-kms signer for key ${keyId}`,
    sign: async (message) => {
      try {
        const response = await client.send(new SignCommand({ KeyId: keyId, Message: message, MessageType: "RAW", SigningAlgorithm: SIGNING_ALGORITHM }));
        return response.Signature === undefined ? undefined : new Uint8Array(response.Signature);
      } catch (error) {
        throw mapKmsError(error, keyId, "Sign");
      }
    },
    verify,
    mismatch: `aws-kms Sign for key ${keyId}: the signature does not verify under ${address}`,
    release: () => client.destroy(),
  });
}
