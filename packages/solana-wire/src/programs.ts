import type { Address } from "@solana/kit";

/**
 * Program ids that @solana-program/* does not export (SPL Token, Associated Token and Compute
 * Budget come from there).
 */
export const SYSTEM_PROGRAM = "11111111111111111111111111111111" as Address;

/** The current Memo program, the legacy v1 one, and the one named in design.md. */
export const MEMO_PROGRAMS: readonly Address[] = Object.freeze([
  "MemoSq4gqABAXKb96qnH8TysNcWxMyWCqXgDLGmfcHr" as Address,
  "Memo1UhkJRfHyvLMcVucJwxXeuD728EqVDDwQDxFMNo" as Address,
  "Memo4c2pN8afCj432Lb7RMVKi9PbQnnW7ewFFaV3oAH" as Address,
]);

/** The Memo program new transactions use. */
export const MEMO_PROGRAM = MEMO_PROGRAMS[0] as Address;

const MEMO_PROGRAM_SET: ReadonlySet<string> = new Set(MEMO_PROGRAMS);

export function isMemoProgram(program: string): boolean {
  return MEMO_PROGRAM_SET.has(program);
}
