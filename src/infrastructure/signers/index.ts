export { createSigner, createSigners, type SignerDeps } from "./create-signer.ts";
export { loadOrCreateDevKeypair, type DevKeypair } from "./dev-keypair.ts";
export { toKitPartialSigner } from "./kit-partial-signer.ts";
export { createLocalSigner } from "./local-signer.ts";
export { parseSignerConfigs, parseSignerRoles, signerSettingNames, type SignerConfigResult, type SignerRoleSettings } from "./parse-signer-configs.ts";
export { ROLE_PREFIXES, type SignerConfig, type SignerPrefix, type SignerRole } from "./signer-config.ts";
export { SignerError, type SignerErrorCode } from "./signer-error.ts";
