import type { Address } from "@solana/kit";
import type { TransactionView } from "../transaction/transaction-view.ts";
import { reject, type Rejection } from "../rejection.ts";

/**
 * SECURITY: the transaction's fee payer must be one of our signers, and the one the resource
 * server named in `extra.feePayer` when it named one; otherwise we would co-sign for someone else
 * or under a key the requirements did not promise.
 */
export function checkFeePayerIsOurs(
  view: TransactionView,
  feePayers: readonly Address[],
  requiredFeePayer: unknown,
): Rejection | null {
  if (!feePayers.includes(view.feePayer)) {
    return reject("FEE_PAYER_MISMATCH", `fee payer ${view.feePayer} is not a signer of this facilitator`);
  }
  if (typeof requiredFeePayer === "string" && requiredFeePayer !== view.feePayer) {
    return reject("FEE_PAYER_MISMATCH", `fee payer ${view.feePayer} differs from extra.feePayer ${requiredFeePayer}`);
  }
  return null;
}

/** SECURITY: a filled fee-payer slot means a replayed or foreign-signed transaction (rule 8). */
export function checkFeePayerSlotEmpty(view: TransactionView): Rejection | null {
  return view.signatureSlots[0]?.signature == null
    ? null
    : reject("ALREADY_SIGNED", "the fee payer's signature slot is already filled");
}

/**
 * SECURITY: our keys must not appear in any instruction: not as transfer authority or source
 * (draining our token accounts), and not hidden as an extra account of a memo or any other
 * instruction, where a signature we add would authorise something we never checked.
 */
export function checkFeePayerNotInInstructions(view: TransactionView, feePayers: readonly Address[]): Rejection | null {
  for (const instruction of view.instructions) {
    for (const account of instruction.accounts) {
      if (account === view.feePayer || feePayers.includes(account)) {
        return reject(
          "FEE_PAYER_IN_INSTRUCTION",
          `facilitator signer ${account} appears in the accounts of instruction ${instruction.index}`,
        );
      }
    }
  }
  return null;
}
