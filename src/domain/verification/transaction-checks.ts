import { COMPUTE_BUDGET_PROGRAM, TOKEN_PROGRAM, isMemoProgram } from "../transaction/programs.ts";
import type { TransactionView, TransferChecked } from "../transaction/transaction-view.ts";
import { reject, type Rejection } from "./rejection.ts";
import type { VerificationPolicy } from "./verification-policy.ts";

/** The runtime's implicit compute limit: 200,000 CU per non-ComputeBudget instruction, at most 1.4M. */
const DEFAULT_UNITS_PER_INSTRUCTION = 200_000;
const MAX_UNITS_PER_TRANSACTION = 1_400_000;

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
 * SECURITY: only SPL Token, ComputeBudget and Memo may run. Any other program (System transfer,
 * ATA create, a custom program) could spend the fee payer's lamports or rent.
 */
export function checkProgramsAllowed(view: TransactionView): Rejection | null {
  for (const instruction of view.instructions) {
    const program = instruction.programAddress;
    if (program === TOKEN_PROGRAM || program === COMPUTE_BUDGET_PROGRAM || isMemoProgram(program)) continue;
    return reject("DISALLOWED_PROGRAM", `instruction ${instruction.index} calls program ${program}, which is not allowed`);
  }
  return null;
}

/**
 * SECURITY: the fee payer pays limit x price as priority fee. Unknown ComputeBudget instructions
 * (heap frames, account data limits) and duplicates (which the runtime rejects after charging) are
 * refused, and both values are capped. Without SetComputeUnitLimit the runtime's implicit limit counts.
 */
export function checkComputeBudget(view: TransactionView, policy: VerificationPolicy): Rejection | null {
  let limit: number | null = null;
  let price: bigint | null = null;
  let nonBudgetInstructions = 0;
  for (const instruction of view.instructions) {
    const meaning = instruction.meaning;
    if (meaning.kind === "compute-budget-other") {
      return reject("COMPUTE_BUDGET_INVALID", `instruction ${instruction.index} is an unknown or malformed ComputeBudget instruction`);
    }
    if (meaning.kind === "compute-unit-limit") {
      if (limit !== null) return reject("COMPUTE_BUDGET_INVALID", "SetComputeUnitLimit appears more than once");
      limit = meaning.units;
    } else if (meaning.kind === "compute-unit-price") {
      if (price !== null) return reject("COMPUTE_BUDGET_INVALID", "SetComputeUnitPrice appears more than once");
      price = meaning.microLamports;
    } else {
      nonBudgetInstructions++;
    }
  }
  const effectiveLimit = limit ?? Math.min(MAX_UNITS_PER_TRANSACTION, DEFAULT_UNITS_PER_INSTRUCTION * nonBudgetInstructions);
  if (effectiveLimit > policy.maxComputeUnitLimit) {
    const source = limit === null ? "implicit compute unit limit (no SetComputeUnitLimit)" : "compute unit limit";
    return reject("COMPUTE_UNIT_LIMIT_TOO_HIGH", `${source} ${effectiveLimit} exceeds the cap ${policy.maxComputeUnitLimit}`);
  }
  if (price !== null && price > policy.maxComputeUnitPriceMicroLamports) {
    return reject(
      "COMPUTE_UNIT_PRICE_TOO_HIGH",
      `compute unit price ${price} micro-lamports exceeds the cap ${policy.maxComputeUnitPriceMicroLamports}`,
    );
  }
  return null;
}

export type TransferFound = Readonly<{ ok: true; transfer: TransferChecked }> | Readonly<{ ok: false; rejection: Rejection }>;

/**
 * SECURITY: exactly one SPL Token instruction, and it is TransferChecked. Approve, SetAuthority,
 * CloseAccount (whose rent could go anywhere) or a second transfer are refused.
 */
export function findSingleTransfer(view: TransactionView): TransferFound {
  const transfers: TransferChecked[] = [];
  for (const instruction of view.instructions) {
    const meaning = instruction.meaning;
    if (meaning.kind === "token-other") {
      const name = meaning.discriminator === null ? "an empty token instruction" : `token instruction ${meaning.discriminator}`;
      return { ok: false, rejection: reject("UNEXPECTED_TOKEN_INSTRUCTION", `instruction ${instruction.index} is ${name} (${meaning.note})`) };
    }
    if (meaning.kind === "transfer-checked") transfers.push(meaning);
  }
  const [transfer] = transfers;
  if (transfers.length !== 1 || !transfer) {
    return {
      ok: false,
      rejection: reject("TRANSFER_INSTRUCTION_COUNT", `transaction has ${transfers.length} TransferChecked instructions, expected exactly 1`),
    };
  }
  return { ok: true, transfer };
}
