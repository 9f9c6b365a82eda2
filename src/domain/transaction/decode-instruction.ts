import type { Address } from "@solana/kit";
import {
  COMPUTE_BUDGET_PROGRAM_ADDRESS,
  SET_COMPUTE_UNIT_LIMIT_DISCRIMINATOR,
  SET_COMPUTE_UNIT_PRICE_DISCRIMINATOR,
} from "@solana-program/compute-budget";
import { TOKEN_PROGRAM_ADDRESS, TRANSFER_CHECKED_DISCRIMINATOR } from "@solana-program/token";
import {
  TOKEN_2022_PROGRAM_ADDRESS,
  TRANSFER_CHECKED_WITH_FEE_DISCRIMINATOR,
  TRANSFER_CHECKED_WITH_FEE_TRANSFER_FEE_DISCRIMINATOR,
} from "@solana-program/token-2022";
import { isMemoProgram } from "@x84/solana-wire";
import type { InstructionMeaning } from "./transaction-view.ts";

/** Gives one instruction its meaning from the program id, the accounts and the data bytes. */
export function decodeInstructionMeaning(
  program: Address,
  accounts: readonly Address[],
  data: Uint8Array,
): InstructionMeaning {
  if (program === TOKEN_PROGRAM_ADDRESS || program === TOKEN_2022_PROGRAM_ADDRESS) return decodeTokenInstruction(program, accounts, data);
  if (program === COMPUTE_BUDGET_PROGRAM_ADDRESS) return decodeComputeBudgetInstruction(accounts, data);
  if (isMemoProgram(program)) return { kind: "memo", byteLength: data.byteLength };
  return { kind: "other" };
}

/** TransferCheckedWithFee: Token-2022's transfer-fee instruction (26), sub-instruction 1. */
function isTransferCheckedWithFee(program: Address, data: Uint8Array): boolean {
  return program === TOKEN_2022_PROGRAM_ADDRESS && data[0] === TRANSFER_CHECKED_WITH_FEE_DISCRIMINATOR && data[1] === TRANSFER_CHECKED_WITH_FEE_TRANSFER_FEE_DISCRIMINATOR;
}

function decodeTokenInstruction(program: Address, accounts: readonly Address[], data: Uint8Array): InstructionMeaning {
  const discriminator = data[0] ?? null;
  const withFee = isTransferCheckedWithFee(program, data);
  if (discriminator !== TRANSFER_CHECKED_DISCRIMINATOR && !withFee) {
    return { kind: "token-other", discriminator, note: "not TransferChecked" };
  }
  // SECURITY: only the canonical single-authority layout counts as the transfer. Extra accounts
  // (multisig signers, transfer-hook accounts) or trailing data bytes, which the token program would
  // tolerate, are refused so what we checked is exactly what executes.
  const expectedBytes = withFee ? 19 : 10;
  const name = withFee ? "TransferCheckedWithFee" : "TransferChecked";
  if (data.byteLength !== expectedBytes) {
    return { kind: "token-other", discriminator, note: `malformed ${name}: ${data.byteLength} data bytes, expected ${expectedBytes}` };
  }
  const [source, mint, destination, authority] = accounts;
  if (accounts.length !== 4 || !source || !mint || !destination || !authority) {
    return { kind: "token-other", discriminator, note: `malformed ${name}: ${accounts.length} accounts, expected 4` };
  }
  const view = new DataView(data.buffer, data.byteOffset, data.byteLength);
  // TransferCheckedWithFee's data: [26, 1, amount u64, decimals u8, fee u64]; TransferChecked's: [12, amount u64, decimals u8].
  const offset = withFee ? 2 : 1;
  return {
    kind: "transfer-checked",
    program,
    source,
    mint,
    destination,
    authority,
    amount: view.getBigUint64(offset, true),
    decimals: view.getUint8(offset + 8),
    fee: withFee ? view.getBigUint64(offset + 9, true) : null,
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
