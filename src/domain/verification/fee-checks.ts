import type { TransactionView } from "../transaction/transaction-view.ts";
import { reject, type Rejection } from "../rejection.ts";
import type { VerificationPolicy } from "./verification-policy.ts";

/** Solana's base fee, charged to the fee payer for every required signature. */
export const LAMPORTS_PER_SIGNATURE = 5_000n;
const MICRO_LAMPORTS_PER_LAMPORT = 1_000_000n;

/** The runtime's implicit compute limit: 200,000 CU per non-ComputeBudget instruction, at most 1.4M. */
const DEFAULT_UNITS_PER_INSTRUCTION = 200_000;
const MAX_UNITS_PER_TRANSACTION = 1_400_000;

/** Fee payer + transfer authority: every further signer costs the fee payer 5,000 lamports. */
export const MAX_REQUIRED_SIGNATURES = 2;

/** What the transaction's ComputeBudget instructions ask for, with the runtime's default filled in. */
export type ComputeBudget = Readonly<{
  units: number;
  /** False when no SetComputeUnitLimit is present and `units` is the runtime's implicit limit. */
  explicitLimit: boolean;
  microLamportsPerUnit: bigint;
}>;

/**
 * SECURITY: unknown ComputeBudget instructions (heap frames, account data limits) and duplicates
 * (which the runtime rejects after charging) are refused; without SetComputeUnitLimit the runtime's
 * implicit limit is what the priority fee is charged on.
 */
export function readComputeBudget(view: TransactionView): ComputeBudget | Rejection {
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
  return Object.freeze({
    units: limit ?? Math.min(MAX_UNITS_PER_TRANSACTION, DEFAULT_UNITS_PER_INSTRUCTION * nonBudgetInstructions),
    explicitLimit: limit !== null,
    microLamportsPerUnit: price ?? 0n,
  });
}

/** limit x price in lamports, rounded up as the runtime rounds it. */
export function priorityFeeLamports(budget: ComputeBudget): bigint {
  const microLamports = BigInt(budget.units) * budget.microLamportsPerUnit;
  return (microLamports + MICRO_LAMPORTS_PER_LAMPORT - 1n) / MICRO_LAMPORTS_PER_LAMPORT;
}

/** Everything the fee payer is charged for this transaction: base fee per signature plus priority fee. */
export function transactionFeeLamports(requiredSignatures: number, budget: ComputeBudget): bigint {
  return LAMPORTS_PER_SIGNATURE * BigInt(requiredSignatures) + priorityFeeLamports(budget);
}

/** SECURITY: limit and price each stay under their caps (the spec's COMPUTE_UNIT_* codes). */
export function checkComputeLimits(budget: ComputeBudget, policy: VerificationPolicy): Rejection | null {
  if (budget.units > policy.maxComputeUnitLimit) {
    const source = budget.explicitLimit ? "compute unit limit" : "implicit compute unit limit (no SetComputeUnitLimit)";
    return reject("COMPUTE_UNIT_LIMIT_TOO_HIGH", `${source} ${budget.units} exceeds the cap ${policy.maxComputeUnitLimit}`);
  }
  if (budget.microLamportsPerUnit > policy.maxComputeUnitPriceMicroLamports) {
    return reject(
      "COMPUTE_UNIT_PRICE_TOO_HIGH",
      `compute unit price ${budget.microLamportsPerUnit} micro-lamports exceeds the cap ${policy.maxComputeUnitPriceMicroLamports}`,
    );
  }
  return null;
}

/**
 * SECURITY: the two caps apart still allow 400,000 CU x 5,000,000 µlamports = 2,000,000 lamports
 * per transaction, paid by us for a payment that may move a single base unit. The product is what
 * the fee payer pays, so the product is capped.
 */
export function checkPriorityFee(budget: ComputeBudget, policy: VerificationPolicy): Rejection | null {
  const fee = priorityFeeLamports(budget);
  return fee <= policy.maxPriorityFeeLamports
    ? null
    : reject(
        "PRIORITY_FEE_TOO_HIGH",
        `priority fee ${fee} lamports (${budget.units} CU x ${budget.microLamportsPerUnit} µlamports) exceeds the cap ${policy.maxPriorityFeeLamports}`,
      );
}

/** SECURITY: each extra required signer (a memo signer, say) costs the fee payer another base fee. */
export function checkSignatureCount(view: TransactionView): Rejection | null {
  const count = view.signatureSlots.length;
  return count <= MAX_REQUIRED_SIGNATURES
    ? null
    : reject("TOO_MANY_SIGNATURES", `transaction requires ${count} signatures; at most ${MAX_REQUIRED_SIGNATURES} (fee payer and transfer authority) are accepted`);
}
