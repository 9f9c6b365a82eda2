import type { Address } from "@solana/kit";

/** Which job a signer does; each role has its own environment prefix. */
export type SignerRole = "fee-payer" | "config-authority";

export const ROLE_PREFIXES: Readonly<Record<SignerRole, SignerPrefix>> = Object.freeze({
  "fee-payer": "FEE_PAYER_",
  "config-authority": "CONFIG_AUTHORITY_",
});

export type SignerPrefix = "FEE_PAYER_" | "CONFIG_AUTHORITY_";

/**
 * Where a secret lives. The configuration carries this reference, never the secret, so a
 * config object can be logged or printed without leaking anything.
 * `setting` is the name an operator recognises (`FEE_PAYER_PRIVATE_KEY`,
 * `FEE_PAYER_SIGNERS_FILE[1].PKCS11_PIN`) and is the only thing error messages mention.
 */
export type SecretSource =
  | Readonly<{ from: "env"; variable: string; setting: string }>
  | Readonly<{ from: "file"; path: string; setting: string }>
  | Readonly<{ from: "signers-file"; path: string; index: number; field: string; setting: string }>;

type Common = Readonly<{
  role: SignerRole;
  /** Prefix of every setting of this signer, for messages: `FEE_PAYER_` or `FEE_PAYER_SIGNERS_FILE[0].`. */
  origin: string;
  /** When set, boot fails unless the backend's public key is this address. */
  expectedAddress: Address | null;
}>;

export type LocalSignerConfig = Common &
  Readonly<{
    kind: "local";
    /** Solana CLI JSON byte array, or base58 (64-byte secret key or 32-byte seed). */
    key: SecretSource;
  }>;

export type AwsKmsSignerConfig = Common &
  Readonly<{
    kind: "aws-kms";
    keyId: string;
    region: string;
    endpoint: string | null;
    timeoutMs: number;
    maxAttempts: number;
  }>;

export type Pkcs11KeySelector = Readonly<{ label: string }> | Readonly<{ id: Uint8Array }>;

export type Pkcs11SignerConfig = Common &
  Readonly<{
    kind: "pkcs11";
    modulePath: string;
    tokenLabel: string;
    key: Pkcs11KeySelector;
    pin: SecretSource;
    /** Sessions opened on the token; bounds concurrent signing operations. */
    sessions: number;
  }>;

/** Tagged union validated at boot; see `parseSignerConfigs`. */
export type SignerConfig = LocalSignerConfig | AwsKmsSignerConfig | Pkcs11SignerConfig;

export type SignerKind = SignerConfig["kind"];

export const SIGNER_KINDS: readonly SignerKind[] = Object.freeze(["local", "aws-kms", "pkcs11"]);
