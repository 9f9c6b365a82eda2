import { COMPUTE_BUDGET_PROGRAM_ADDRESS } from "@solana-program/compute-budget";
import type { Address } from "@solana/kit";
import { TOKEN_PROGRAM_ADDRESS } from "@solana-program/token";
import { TOKEN_2022_PROGRAM_ADDRESS } from "@solana-program/token-2022";
import { isMemoProgram } from "@x84/solana-wire";
import type { TransactionView, TransferChecked } from "../transaction/transaction-view.ts";
import { reject, type Rejection } from "../rejection.ts";
import type { VerificationPolicy } from "./verification-policy.ts";

/** SECURITY: a packet over the limit is refused by the network; over our cap it wastes our work. */
export function checkTransactionSize(wire: Uint8Array, policy: VerificationPolicy): Rejection | null {
  return wire.byteLength <= policy.maxTransactionBytes
    ? null
    : reject("TRANSACTION_TOO_LARGE", `transaction is ${wire.byteLength} bytes, the limit is ${policy.maxTransactionBytes}`);
}

/**
 * SECURITY: accounts loaded from a lookup table are invisible to every account rule here
 * (the fee payer could hide in one), and resolving them would need trusted ledger reads.
 */
export function checkNoLookupTables(view: TransactionView): Rejection | null {
  return view.lookupTables.length === 0
    ? null
    : reject("ADDRESS_LOOKUP_TABLE_NOT_ALLOWED", `transaction uses ${view.lookupTables.length} address lookup table(s)`);
}

/** SECURITY: bounds the work (and the implicit compute limit) of one transaction. */
export function checkInstructionCount(view: TransactionView, policy: VerificationPolicy): Rejection | null {
  return view.instructions.length <= policy.maxInstructions
    ? null
    : reject("TOO_MANY_INSTRUCTIONS", `transaction has ${view.instructions.length} instructions, the limit is ${policy.maxInstructions}`);
}

/**
 * SECURITY: only the asset's token program (SPL Token or Token-2022, as the mint's owner on the
 * ledger says), ComputeBudget and Memo may run. Any other program (System transfer, ATA create, a
 * custom program) could spend the fee payer's lamports or rent; the other token program cannot
 * move this mint, so its transfer would only fail after our fee is charged.
 */
export function checkProgramsAllowed(view: TransactionView, tokenProgram: Address = TOKEN_PROGRAM_ADDRESS): Rejection | null {
  for (const instruction of view.instructions) {
    const program = instruction.programAddress;
    if (program === tokenProgram || program === COMPUTE_BUDGET_PROGRAM_ADDRESS || isMemoProgram(program)) continue;
    if (program === TOKEN_PROGRAM_ADDRESS || program === TOKEN_2022_PROGRAM_ADDRESS) {
      return reject("DISALLOWED_PROGRAM", `instruction ${instruction.index} calls token program ${program}, but the asset is a mint of ${tokenProgram}`);
    }
    return reject("DISALLOWED_PROGRAM", `instruction ${instruction.index} calls program ${program}, which is not allowed`);
  }
  return null;
}

export type TransfersFound =
  | Readonly<{ ok: true; transfers: readonly TransferChecked[] }>
  /** `transferCount` is set when the count was wrong (not for another token instruction). */
  | Readonly<{ ok: false; rejection: Rejection; transferCount?: number }>;

/**
 * SECURITY: token instructions are TransferChecked (or TransferCheckedWithFee) and nothing else, and there are exactly
 * `expected` of them (1; 2 with a protocol-fee split). Approve, SetAuthority, CloseAccount (whose
 * rent could go anywhere) or a transfer riding along are refused.
 */
export function findTransfers(view: TransactionView, expected: 1 | 2): TransfersFound {
  const transfers: TransferChecked[] = [];
  for (const instruction of view.instructions) {
    const meaning = instruction.meaning;
    if (meaning.kind === "token-other") {
      const name = meaning.discriminator === null ? "an empty token instruction" : `token instruction ${meaning.discriminator}`;
      return { ok: false, rejection: reject("UNEXPECTED_TOKEN_INSTRUCTION", `instruction ${instruction.index} is ${name} (${meaning.note})`) };
    }
    if (meaning.kind === "transfer-checked") transfers.push(meaning);
  }
  if (transfers.length !== expected) {
    const what = expected === 1 ? "exactly 1" : "exactly 2 (the payment, then the protocol fee)";
    return {
      ok: false,
      rejection: reject("TRANSFER_INSTRUCTION_COUNT", `transaction has ${transfers.length} TransferChecked instructions, expected ${what}`),
      transferCount: transfers.length,
    };
  }
  return { ok: true, transfers };
}
