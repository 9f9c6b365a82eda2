import type { Signer } from "../../application/ports/signer.ts";
import type { AwsKmsDeps } from "./aws-kms-signer.ts";
import { createLocalSignerFromSource } from "./local-signer.ts";
import { createPkcs11Signer } from "./pkcs11-signer.ts";
import { type Env, type ReadTextFile, readTextFileSync } from "./secret-source.ts";
import type { SignerConfig } from "./signer-config.ts";
import { SignerError } from "./signer-error.ts";

export type SignerDeps = Readonly<{
  /** Where inline secrets (`<P>PRIVATE_KEY`, `<P>PKCS11_PIN`) are read; main passes process.env. */
  env: Env;
  /** Reads key, PIN and signers files. Defaults to a synchronous UTF-8 file read. */
  readFile?: ReadTextFile;
  kms?: AwsKmsDeps;
}>;

/**
 * Builds the signer a config describes: reads its secrets, reaches its backend, derives
 * its address and, if `<P>ADDRESS` is set, checks it. Throws {@link SignerError} with a
 * message naming settings only.
 */
export async function createSigner(config: SignerConfig, deps: SignerDeps): Promise<Signer> {
  const secrets = { env: deps.env, readFile: deps.readFile ?? readTextFileSync };
  switch (config.kind) {
    case "local": {
      const signer = await createLocalSignerFromSource(config.key, secrets);
      if (config.expectedAddress !== null && config.expectedAddress !== signer.address) {
        throw new SignerError("ADDRESS_MISMATCH", `${config.origin}ADDRESS does not match the key's public key (${signer.address})`);
      }
      return signer;
    }
    case "aws-kms": {
      // Loaded only for a KMS key: the AWS SDK is the largest module graph here (docs/performance.md).
      const { createAwsKmsSigner } = await import("./aws-kms-signer.ts");
      return createAwsKmsSigner(config, deps.kms);
    }
    case "pkcs11":
      return createPkcs11Signer(config, secrets);
  }
}

/**
 * Builds every config in order; if one fails, those already built are closed so no HSM
 * session or KMS client outlives a failed boot.
 */
export async function createSigners(configs: readonly SignerConfig[], deps: SignerDeps): Promise<readonly Signer[]> {
  const built: Signer[] = [];
  try {
    for (const config of configs) built.push(await createSigner(config, deps));
    return built;
  } catch (error) {
    await Promise.allSettled(built.map((signer) => signer.close?.()));
    throw error;
  }
}
