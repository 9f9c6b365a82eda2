/**
 * The modes a payment may name in `extensions.mode`, by the spec's names. The closed list the
 * records, the parser and the mode table (src/application/modes/mode-table.ts, which must
 * register a policy for each) are typed against; aliases live with each mode's policy.
 */
export const MODE_NAMES = ["atomic", "attestation", "delegated"] as const;
export type ModeName = (typeof MODE_NAMES)[number];

/** `standard` is the spec's default path: co-sign, submit, confirm. The rest come from `extensions.mode`. */
export const SETTLEMENT_MODES = ["standard", ...MODE_NAMES] as const;
export type SettlementMode = (typeof SETTLEMENT_MODES)[number];
