import { getBase58Encoder, type Address } from "@solana/kit";
import type { LandedInstruction, LandedTransaction } from "../../application/ports/transaction-history.ts";

/** An instruction as getTransaction's `json` encoding gives it: indexes into the account keys, data in base58. */
type RpcCompiledInstruction = Readonly<{ programIdIndex: number | bigint; accounts: readonly (number | bigint)[]; data: string }>;

/** The parts of a `json`-encoded getTransaction answer that name instructions and their accounts. */
export type RpcJsonTransaction = Readonly<{
  meta: Readonly<{
    err: unknown;
    innerInstructions?: readonly Readonly<{ instructions: readonly RpcCompiledInstruction[] }>[] | null;
    loadedAddresses?: Readonly<{ writable: readonly Address[]; readonly: readonly Address[] }> | null;
  }> | null;
  transaction: Readonly<{ message: Readonly<{ accountKeys: readonly Address[]; instructions: readonly RpcCompiledInstruction[] }> }>;
}>;

/**
 * Resolves a `json`-encoded transaction into addresses and bytes: top-level instructions, then the
 * inner ones (CPIs). For a v0 transaction the account keys are the static keys followed by the
 * addresses its lookup tables loaded (writable, then read-only), the order the runtime indexes them
 * in. An instruction whose indexes fall outside the keys, or whose data is not base58, is dropped.
 * `renderErr` turns the node's error JSON into the Ledger's text form.
 */
export function landedTransactionOf(transaction: RpcJsonTransaction, renderErr: (err: unknown) => string): LandedTransaction {
  const meta = transaction.meta;
  const keys: readonly Address[] = [
    ...transaction.transaction.message.accountKeys,
    ...(meta?.loadedAddresses?.writable ?? []),
    ...(meta?.loadedAddresses?.readonly ?? []),
  ];
  const compiled = [...transaction.transaction.message.instructions, ...(meta?.innerInstructions ?? []).flatMap((inner) => inner.instructions)];
  const instructions: LandedInstruction[] = [];
  for (const instruction of compiled) {
    const resolved = resolve(instruction, keys);
    if (resolved) instructions.push(resolved);
  }
  // Without metadata nothing says the transaction succeeded, so it counts as failed.
  const err = meta === null ? "no transaction metadata" : meta.err === null || meta.err === undefined ? null : renderErr(meta.err);
  return Object.freeze({ err, instructions });
}

function resolve(instruction: RpcCompiledInstruction, keys: readonly Address[]): LandedInstruction | null {
  const programAddress = keys[Number(instruction.programIdIndex)];
  const accounts = instruction.accounts.map((index) => keys[Number(index)]);
  if (programAddress === undefined || accounts.some((a) => a === undefined)) return null;
  try {
    return Object.freeze({ programAddress, accounts: accounts as Address[], data: getBase58Encoder().encode(instruction.data) });
  } catch {
    return null;
  }
}
