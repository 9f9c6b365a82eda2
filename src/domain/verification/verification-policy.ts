/**
 * Limits that bound what one accepted transaction can cost the fee payer. Parsed once at
 * boot (see `parseVerificationPolicy`), then passed to every verification.
 */
export type VerificationPolicy = Readonly<{
  /** SetComputeUnitLimit cap; also applied to the runtime's implicit limit when none is set. */
  maxComputeUnitLimit: number;
  /** SetComputeUnitPrice cap in micro-lamports per compute unit. */
  maxComputeUnitPriceMicroLamports: bigint;
  /**
   * Cap on the priority fee one transaction makes the fee payer pay: compute-unit limit x price,
   * in lamports. Limit and price are capped apart too, but their product is what costs money.
   */
  maxPriorityFeeLamports: bigint;
  /** Top-level instructions allowed. The official client sends 4 (limit, price, transfer, memo). */
  maxInstructions: number;
  /** Wire size cap; Solana's packet limit is 1232 bytes. */
  maxTransactionBytes: number;
}>;

export const DEFAULT_VERIFICATION_POLICY: VerificationPolicy = Object.freeze({
  maxComputeUnitLimit: 400_000,
  maxComputeUnitPriceMicroLamports: 5_000_000n,
  maxPriorityFeeLamports: 25_000n,
  maxInstructions: 8,
  maxTransactionBytes: 1232,
});

/** Solana's hard packet limit: a policy may lower the size cap, never raise it past this. */
export const SOLANA_PACKET_BYTES = 1232;

/**
 * Builds a policy from optional overrides (e.g. parsed config), rejecting nonsense values so a
 * typo can never switch a cap off. Throws at boot, not per request.
 */
export function createVerificationPolicy(overrides: Partial<VerificationPolicy> = {}): VerificationPolicy {
  const policy = { ...DEFAULT_VERIFICATION_POLICY, ...overrides };
  if (!Number.isSafeInteger(policy.maxComputeUnitLimit) || policy.maxComputeUnitLimit < 1) {
    throw new RangeError("maxComputeUnitLimit must be a positive integer");
  }
  if (policy.maxComputeUnitPriceMicroLamports < 0n) {
    throw new RangeError("maxComputeUnitPriceMicroLamports must not be negative");
  }
  if (policy.maxPriorityFeeLamports < 0n) {
    throw new RangeError("maxPriorityFeeLamports must not be negative");
  }
  if (!Number.isSafeInteger(policy.maxInstructions) || policy.maxInstructions < 1) {
    throw new RangeError("maxInstructions must be a positive integer");
  }
  if (
    !Number.isSafeInteger(policy.maxTransactionBytes) ||
    policy.maxTransactionBytes < 1 ||
    policy.maxTransactionBytes > SOLANA_PACKET_BYTES
  ) {
    throw new RangeError(`maxTransactionBytes must be between 1 and ${SOLANA_PACKET_BYTES}`);
  }
  return Object.freeze(policy);
}
