import type { LedgerJson, TransactionErrorCode } from "../../application/ports/ledger.ts";

/** A Rust enum variant name as serde writes it; anything else is not a variant we can name. */
const VARIANT_NAME = /^[A-Z][A-Za-z0-9]{0,63}$/;

/** Copies a JSON value with kit's bigints as numbers, so both adapters give identical codes. */
function plainJson(value: unknown): LedgerJson {
  if (typeof value === "bigint") return Number.isSafeInteger(Number(value)) ? Number(value) : value.toString();
  if (value === null || typeof value === "string" || typeof value === "number" || typeof value === "boolean") return value;
  if (Array.isArray(value)) return Object.freeze(value.map(plainJson));
  if (typeof value === "object") {
    return Object.freeze(Object.fromEntries(Object.entries(value as Record<string, unknown>).map(([k, v]) => [k, plainJson(v)])));
  }
  return null;
}

function indexOf(value: unknown): number | null {
  const index = typeof value === "bigint" ? Number(value) : value;
  return typeof index === "number" && Number.isSafeInteger(index) && index >= 0 ? index : null;
}

function code(name: string, instructionIndex: number | null, detail: LedgerJson): TransactionErrorCode {
  return Object.freeze({ name, instructionIndex, detail });
}

/** `{"InstructionError":[index, inner]}`; null when the pair is not shaped as the RPC writes it. */
function instructionError(payload: unknown): TransactionErrorCode | null {
  if (!Array.isArray(payload) || payload.length !== 2) return null;
  const index = indexOf(payload[0]);
  return index === null ? null : code("InstructionError", index, plainJson(payload[1]));
}

/**
 * The structured code of a transaction error in the JSON shape Solana's RPC uses (`data.err` of a
 * preflight failure, `err` of a simulation or status): a unit variant is its name as a string,
 * any other variant an object with its name as the single key. Returns null for anything else.
 *
 * SECURITY: this reads the error object only. Messages and logs are never parsed: a payer writes
 * log lines (a Memo instruction logs its text), so text could claim any error it likes.
 */
export function transactionErrorCodeOf(err: unknown): TransactionErrorCode | null {
  if (typeof err === "string") return VARIANT_NAME.test(err) ? code(err, null, null) : null;
  if (typeof err !== "object" || err === null || Array.isArray(err)) return null;
  const entries = Object.entries(err as Record<string, unknown>);
  if (entries.length !== 1) return null;
  const [name, payload] = entries[0] as [string, unknown];
  if (!VARIANT_NAME.test(name)) return null;
  return name === "InstructionError" ? instructionError(payload) : code(name, null, plainJson(payload));
}

/** The structured code inside a JSON-RPC error's `data` (a simulation result: `{err, logs, ...}`). */
export function transactionErrorCodeOfData(data: unknown): TransactionErrorCode | null {
  if (typeof data !== "object" || data === null) return null;
  return transactionErrorCodeOf((data as { err?: unknown }).err);
}
