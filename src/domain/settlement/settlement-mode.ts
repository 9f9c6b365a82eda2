/** `standard` is the spec's default path: co-sign, submit, confirm. The rest come from `extensions.mode`. */
export const SETTLEMENT_MODES = ["standard", "atomic", "attestation", "delegated"] as const;
export type SettlementMode = (typeof SETTLEMENT_MODES)[number];

/** Extension identifiers advertised in /supported. */
export const MODE_EXTENSION_IDS = ["svc-atomic", "svc-attestation", "svc-delegated"] as const;

/**
 * What `extensions.mode` may say for each mode: the spec's name, the extension id advertised in
 * /supported, and the x84 docs' id. Everything downstream sees only the spec's name.
 */
const MODE_ALIASES: Readonly<Record<string, "atomic" | "attestation" | "delegated">> = Object.freeze({
  "svc-atomic": "atomic",
  "svc-attestation": "attestation",
  "svc-delegated": "delegated",
  "x84-atomic": "atomic",
  "x84-attestation": "attestation",
  "x84-delegated": "delegated",
});

/** The spec's mode name for an alias; any other value is returned as is, for the mode checks to judge. */
export function canonicalModeName(value: unknown): unknown {
  return typeof value === "string" && Object.hasOwn(MODE_ALIASES, value) ? MODE_ALIASES[value] : value;
}
