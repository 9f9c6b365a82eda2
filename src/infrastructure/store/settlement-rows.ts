import type { FeeReservation, SettlementBacklog, SettlementDraft, SettlementRecord, SettlementState } from "../../application/ports/settlement-store.ts";
import type { SettlementMode } from "../../domain/settlement/settlement-mode.ts";
import { SETTLEMENT_MODES } from "../../domain/settlement/settlement-mode.ts";
import type { SqlRow } from "./sql-executor.ts";

/**
 * Columns every settlement read selects. 64-bit values come back as text because PGlite
 * parses int8 into a JS number (lossy above 2^53) and numeric into a string; text is the
 * one form both drivers return identically.
 */
export const SETTLEMENT_COLUMNS = settlementColumns();

/**
 * SETTLEMENT_COLUMNS qualified by a table alias, for statements that join another relation with
 * columns of the same names (an UPDATE ... FROM unnest(...) AS f(key, ...)).
 */
export function settlementColumns(alias?: string, options: Readonly<{ withoutWireTransaction?: boolean }> = {}): string {
  const c = (column: string) => (alias === undefined ? column : `${alias}.${column}`);
  const plain = ["key", "payment_id", "payer", "pay_to", "asset"].map(c);
  // The signed bytes (up to ~1.6 KB of base64) are needed by recovery only, never by a view.
  const wire = options.withoutWireTransaction === true ? "NULL::text AS wire_transaction" : c("wire_transaction");
  const rest = [...["network", "mode", "signature"].map(c), wire];
  const after = ["state", "error", "attempts", "created_at", "updated_at", "fee_charge", "api_key", "submitted_at", "pending_at", "finished_at", "corrected_at", "replayed_at", "replays"].map(c);
  return `
  ${plain.join(", ")}, ${c("amount")}::text AS amount, ${rest.join(", ")},
  ${c("last_valid_block_height")}::text AS last_valid_block_height, ${c("slot")}::text AS slot, ${after.join(", ")}`;
}

const STATES: readonly SettlementState[] = ["pending", "submitted", "settled", "failed"];

/** Turns a row into a record, failing loudly on anything the schema should have prevented. */
export function settlementFromRow(row: SqlRow): SettlementRecord {
  return Object.freeze({
    key: text(row, "key"),
    paymentId: nullableText(row, "payment_id"),
    payer: text(row, "payer"),
    payTo: text(row, "pay_to"),
    asset: text(row, "asset"),
    amount: integer(row, "amount"),
    network: text(row, "network"),
    mode: oneOf<SettlementMode>(row, "mode", SETTLEMENT_MODES),
    signature: text(row, "signature"),
    wireTransaction: nullableText(row, "wire_transaction"),
    lastValidBlockHeight: nullableInteger(row, "last_valid_block_height"),
    state: oneOf<SettlementState>(row, "state", STATES),
    error: nullableText(row, "error"),
    attempts: smallInteger(row, "attempts"),
    createdAt: timestamp(row, "created_at"),
    updatedAt: timestamp(row, "updated_at"),
    feeCharge: feeChargeOf(row),
    apiKey: nullableText(row, "api_key"),
    slot: nullableInteger(row, "slot"),
    submittedAt: nullableTimestamp(row, "submitted_at"),
    pendingAt: nullableTimestamp(row, "pending_at"),
    finishedAt: nullableTimestamp(row, "finished_at"),
    correctedAt: nullableTimestamp(row, "corrected_at"),
    replayedAt: nullableTimestamp(row, "replayed_at"),
    replays: smallInteger(row, "replays"),
  });
}

/** A fee charge as the `fee_charge` column keeps it: JSON, lamports as a decimal string. */
export function feeChargeText(charge: FeeReservation | null): string | null {
  if (charge === null) return null;
  return JSON.stringify({ payer: charge.payer, feePayer: charge.feePayer, lamports: charge.lamports.toString(), window: charge.window });
}

/** Null for rows written before the column existed, or without a charge; an unreadable value is treated the same (the budget stays charged). */
function feeChargeOf(row: SqlRow): FeeReservation | null {
  const value = row["fee_charge"];
  if (typeof value !== "string") return null;
  try {
    const parsed = JSON.parse(value) as Record<string, unknown>;
    const { payer, feePayer, lamports, window } = parsed;
    if (typeof payer !== "string" || typeof feePayer !== "string" || typeof lamports !== "string" || !/^\d+$/.test(lamports) || !Number.isSafeInteger(window)) return null;
    return Object.freeze({ payer, feePayer, lamports: BigInt(lamports), window: window as number });
  } catch {
    return null;
  }
}

/**
 * The record a claim just inserted: the draft as sent, in its first attempt, with the database's
 * timestamps from RETURNING. Saves sending every column (the signed bytes among them) back.
 */
export function claimedRecordOf(draft: SettlementDraft, row: SqlRow): SettlementRecord {
  const { key, paymentId, payer, payTo, asset, amount, network, mode, signature, wireTransaction, lastValidBlockHeight, feeCharge = null, apiKey = null } = draft;
  return Object.freeze({
    key,
    paymentId,
    payer,
    payTo,
    asset,
    amount,
    network,
    mode,
    signature,
    wireTransaction,
    lastValidBlockHeight,
    feeCharge,
    apiKey,
    state: "pending" as const,
    error: null,
    attempts: 1,
    createdAt: timestamp(row, "created_at"),
    updatedAt: timestamp(row, "updated_at"),
    slot: null,
    submittedAt: null,
    pendingAt: null,
    finishedAt: null,
    correctedAt: null,
    replayedAt: null,
    replays: 0,
  });
}

/** A state read from any column (the state a record left, say). */
export function stateOf(row: SqlRow, column: string): SettlementState {
  return oneOf<SettlementState>(row, column, STATES);
}

/** The rows of the backlog query (one per open state present) as counts and the oldest claim. */
export function backlogOf(rows: readonly SqlRow[]): SettlementBacklog {
  const open = { pending: 0, submitted: 0 };
  let oldest: Date | null = null;
  for (const row of rows) {
    const state = oneOf(row, "state", ["pending", "submitted"] as const);
    const records = row["records"];
    if (typeof records !== "number" || !Number.isSafeInteger(records)) throw corrupt("count", "an integer");
    open[state] = records;
    const claimed = timestamp(row, "oldest");
    if (oldest === null || claimed < oldest) oldest = claimed;
  }
  return Object.freeze({ open: Object.freeze(open), oldestCreatedAt: oldest });
}

function text(row: SqlRow, column: string): string {
  const value = row[column];
  if (typeof value !== "string") throw corrupt(column, "text");
  return value;
}

function nullableText(row: SqlRow, column: string): string | null {
  return row[column] === null ? null : text(row, column);
}

function integer(row: SqlRow, column: string): bigint {
  const value = text(row, column);
  if (!/^-?\d+$/.test(value)) throw corrupt(column, "an integer");
  return BigInt(value);
}

function nullableInteger(row: SqlRow, column: string): bigint | null {
  return row[column] === null ? null : integer(row, column);
}

function smallInteger(row: SqlRow, column: string): number {
  const value = row[column];
  if (typeof value !== "number" || !Number.isSafeInteger(value)) throw corrupt(column, "an integer");
  return value;
}

function timestamp(row: SqlRow, column: string): Date {
  const value = row[column];
  const date = value instanceof Date ? value : typeof value === "string" ? new Date(value) : null;
  if (date === null || Number.isNaN(date.getTime())) throw corrupt(column, "a timestamp");
  return date;
}

function nullableTimestamp(row: SqlRow, column: string): Date | null {
  return row[column] === null || row[column] === undefined ? null : timestamp(row, column);
}

function oneOf<const T extends string>(row: SqlRow, column: string, allowed: readonly T[]): T {
  const value = text(row, column);
  const match = allowed.find((candidate) => candidate === value);
  if (match === undefined) throw corrupt(column, `one of ${allowed.join(", ")}`);
  return match;
}

function corrupt(column: string, expected: string): Error {
  return new Error(`settlements.${column} is not ${expected}`);
}
