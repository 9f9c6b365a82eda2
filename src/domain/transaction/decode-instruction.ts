import type { Address } from "@solana/kit";
import {
  COMPUTE_BUDGET_PROGRAM_ADDRESS,
  SET_COMPUTE_UNIT_LIMIT_DISCRIMINATOR,
  SET_COMPUTE_UNIT_PRICE_DISCRIMINATOR,
} from "@solana-program/compute-budget";
import { TOKEN_PROGRAM_ADDRESS, TRANSFER_CHECKED_DISCRIMINATOR } from "@solana-program/token";
import { isMemoProgram } from "@x84/solana-wire";
import type { InstructionMeaning } from "./transaction-view.ts";

/** Gives one instruction its meaning from the program id, the accounts and the data bytes. */
export function decodeInstructionMeaning(
  program: Address,
  accounts: readonly Address[],
  data: Uint8Array,
): InstructionMeaning {
  if (program === TOKEN_PROGRAM_ADDRESS) return decodeTokenInstruction(accounts, data);
  if (program === COMPUTE_BUDGET_PROGRAM_ADDRESS) return decodeComputeBudgetInstruction(accounts, data);
  if (isMemoProgram(program)) return { kind: "memo", byteLength: data.byteLength };
  return { kind: "other" };
}

function decodeTokenInstruction(accounts: readonly Address[], data: Uint8Array): InstructionMeaning {
  const discriminator = data[0] ?? null;
  if (discriminator !== TRANSFER_CHECKED_DISCRIMINATOR) {
    return { kind: "token-other", discriminator, note: "not TransferChecked" };
  }
  // SECURITY: only the canonical single-authority layout counts as the transfer. Extra accounts
  // (multisig signers) or trailing data bytes, which the token program would tolerate, are refused
  // so what we checked is exactly what executes.
  if (data.byteLength !== 10) {
    return { kind: "token-other", discriminator, note: `malformed TransferChecked: ${data.byteLength} data bytes, expected 10` };
  }
  const [source, mint, destination, authority] = accounts;
  if (accounts.length !== 4 || !source || !mint || !destination || !authority) {
    return { kind: "token-other", discriminator, note: `malformed TransferChecked: ${accounts.length} accounts, expected 4` };
  }
  const view = new DataView(data.buffer, data.byteOffset, data.byteLength);
  return {
    kind: "transfer-checked",
    source,
    mint,
    destination,
    authority,
    amount: view.getBigUint64(1, true),
    decimals: view.getUint8(9),
  };
}

function decodeComputeBudgetInstruction(accounts: readonly Address[], data: Uint8Array): InstructionMeaning {
  const discriminator = data[0] ?? null;
  // ComputeBudget instructions take no accounts; any listed account is smuggled in.
  if (accounts.length !== 0) return { kind: "compute-budget-other", discriminator };
  const view = new DataView(data.buffer, data.byteOffset, data.byteLength);
  if (discriminator === SET_COMPUTE_UNIT_LIMIT_DISCRIMINATOR && data.byteLength === 5) {
    return { kind: "compute-unit-limit", units: view.getUint32(1, true) };
  }
  if (discriminator === SET_COMPUTE_UNIT_PRICE_DISCRIMINATOR && data.byteLength === 9) {
    return { kind: "compute-unit-price", microLamports: view.getBigUint64(1, true) };
  }
  return { kind: "compute-budget-other", discriminator };
}
