import type { SettlementRecord, SettlementStore } from "../ports/settlement-store.ts";
import { type SettlementView, settlementView } from "./settlement-view.ts";

/**
 * Who asks: with API keys configured (`scoped`), a caller sees only the settlements submitted with
 * its own key (`apiKey`, the key's name; null for a caller without one, who sees only those
 * submitted without a key). Without keys, a record is visible to whoever knows its transaction
 * signature or paymentId.
 */
export type SettlementViewer = Readonly<{ scoped: boolean; apiKey: string | null }>;

/** At most this many records answer one paymentId (it is unique per payer, so one per payer). */
export const MAX_PAYMENT_ID_MATCHES = 20;

export type SettlementLookup = Readonly<{
  /** Null when there is none, or the viewer may not see it (the two are not told apart). */
  byTransaction(signature: string, viewer: SettlementViewer): Promise<SettlementView | null>;
  /** Every visible record of this paymentId (one per payer), newest first; empty when none. */
  byPaymentId(paymentId: string, viewer: SettlementViewer): Promise<readonly SettlementView[]>;
}>;

/** GET /settlements: the records of this facilitator's network, read through the one view mapping. */
export function createSettlementLookup(deps: Readonly<{ store: SettlementStore; network: string }>): SettlementLookup {
  return Object.freeze({
    async byTransaction(signature: string, viewer: SettlementViewer): Promise<SettlementView | null> {
      const record = await deps.store.findBySignature(deps.network, signature);
      return record !== null && visibleTo(record, viewer) ? settlementView(record) : null;
    },
    async byPaymentId(paymentId: string, viewer: SettlementViewer): Promise<readonly SettlementView[]> {
      // SECURITY: the key filter runs before the limit, in the store: filtered after it, another key's
      // 20 newer records under the same paymentId would push this key's own record out of the answer.
      const records = await deps.store.findAllByPaymentId(deps.network, paymentId, MAX_PAYMENT_ID_MATCHES, viewer.scoped ? { apiKey: viewer.apiKey } : undefined);
      return records.filter((record) => visibleTo(record, viewer)).map(settlementView);
    },
  });
}

/**
 * SECURITY: with API keys, one resource server must not read another's settlements (payers,
 * amounts, its customers' activity) by guessing or learning signatures: a record is visible only
 * to the key that submitted it, and a hidden record reads exactly like an unknown one.
 */
function visibleTo(record: SettlementRecord, viewer: SettlementViewer): boolean {
  return !viewer.scoped || record.apiKey === viewer.apiKey;
}
