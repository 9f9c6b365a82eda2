import type { ReasonCode } from "../../domain/reason-codes.ts";
import type { SettlementRecord } from "../ports/settlement-store.ts";

/** The spec's settle response: `transaction` and `network` are always present. */
export type SettleResponse = Readonly<{
  success: boolean;
  transaction: string;
  network: string;
  errorReason?: ReasonCode;
  errorMessage?: string;
  payer?: string;
  extensions?: Readonly<Record<string, unknown>>;
}>;

export function settleFailure(network: string, reason: ReasonCode, message: string, payer?: string): SettleResponse {
  return { success: false, transaction: "", network, errorReason: reason, errorMessage: message, ...(payer ? { payer } : {}) };
}

/**
 * Not final yet: the transaction was broadcast (`transaction` is its signature) and its
 * confirmation is still awaited. `settlement_pending` is the non-terminal reason the stock x402
 * packages (@x402/core 2.24 and later) retry once on; the same payment sent again answers from
 * its record and never submits twice.
 */
export function settlementPending(network: string, signature: string, payer?: string): SettleResponse {
  return {
    success: false,
    transaction: signature,
    network,
    errorReason: "settlement_pending",
    errorMessage: "the transaction was broadcast and is not confirmed yet; retry with the same payment for its final result",
    ...(payer ? { payer } : {}),
  };
}

/** The answer for a record, new or replayed: final, or still pending. */
export function settleResultOf(record: SettlementRecord, replayed: boolean): SettleResponse {
  if (record.state === "settled") {
    return {
      success: true,
      transaction: record.signature,
      network: record.network,
      payer: record.payer,
      extensions: { mode: record.mode, ...(record.paymentId ? { paymentId: record.paymentId } : {}), ...(replayed ? { replayed: true } : {}) },
    };
  }
  if (record.state === "failed") {
    return settleFailure(record.network, "SETTLEMENT_FAILED", record.error ?? "settlement failed", record.payer);
  }
  return settlementPending(record.network, record.signature, record.payer);
}

/**
 * SECURITY: one payment answers for one paymentId. A transaction already settled (or settling)
 * under another paymentId is refused, or a resource server keyed on paymentId would deliver
 * twice for a single transfer.
 */
export function settledUnderOtherPaymentId(network: string, payer: string): SettleResponse {
  return settleFailure(network, "ALREADY_SETTLED", "this payment was already settled or is settling under another paymentId", payer);
}

/**
 * How answers name a payment's id. Mode payments keep their paymentId in the record key, not in
 * the paymentId column, so theirs reads as "this payment's id" instead of "paymentId null".
 */
export function describePaymentId(paymentId: string | null): string {
  return paymentId === null ? "this payment's id" : `paymentId ${paymentId}`;
}

/**
 * SECURITY: what clients read about an unavailable dependency. The store's and the ledger's own
 * messages name the database (host, port, name) or the RPC endpoint; they go to the log, and the
 * client gets these words only.
 */
export const LEDGER_UNAVAILABLE = "the ledger is unavailable";
export const STORE_UNAVAILABLE = "the settlement store is unavailable";
