/** `standard` is the spec's default path: co-sign, submit, confirm. The rest come from `extensions.mode`. */
export const SETTLEMENT_MODES = ["standard", "atomic", "attestation", "delegated"] as const;
export type SettlementMode = (typeof SETTLEMENT_MODES)[number];

/** Extension identifiers advertised in /supported. */
export const MODE_EXTENSION_IDS = ["svc-atomic", "svc-attestation", "svc-delegated"] as const;
