import type { Address } from "@solana/kit";

/** Program ids the facilitator recognises. Everything else is "other" and disallowed. */
export const TOKEN_PROGRAM = "TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA" as Address;
export const COMPUTE_BUDGET_PROGRAM = "ComputeBudget111111111111111111111111111111" as Address;
export const ASSOCIATED_TOKEN_PROGRAM = "ATokenGPvbdGVxr1b2hvZbsiqW5xWH25efTNsLJA8knL" as Address;

/** The current Memo program, the legacy v1 one, and the one named in design.md. */
export const MEMO_PROGRAMS: readonly Address[] = Object.freeze([
  "MemoSq4gqABAXKb96qnH8TysNcWxMyWCqXgDLGmfcHr" as Address,
  "Memo1UhkJRfHyvLMcVucJwxXeuD728EqVDDwQDxFMNo" as Address,
  "Memo4c2pN8afCj432Lb7RMVKi9PbQnnW7ewFFaV3oAH" as Address,
]);

const MEMO_PROGRAM_SET: ReadonlySet<string> = new Set(MEMO_PROGRAMS);

export function isMemoProgram(program: string): boolean {
  return MEMO_PROGRAM_SET.has(program);
}

/** SPL Token instruction discriminators this code names (the rest are just "other token"). */
export const TOKEN_TRANSFER_CHECKED = 12;
/** ComputeBudget discriminators: 2 SetComputeUnitLimit(u32), 3 SetComputeUnitPrice(u64). */
export const COMPUTE_UNIT_LIMIT_DISCRIMINATOR = 2;
export const COMPUTE_UNIT_PRICE_DISCRIMINATOR = 3;
