import type { Address, Signature } from "@solana/kit";
import type { FeedbackDetailUri, FeedbackDetailUriStore, StoredFeedbackDetail } from "../../application/ports/feedback-detail-uri-store.ts";
import type { SqlQueryable } from "./sql-executor.ts";

// The addresses travel as one JSON array in a text parameter (typed text, so no driver re-encodes it as
// JSON); no array literal is built by hand.
const FIND = `
  SELECT address, detail_uri, signature, payment_receipt, payment_receipt_read FROM feedback_detail_uris
   WHERE address IN (SELECT jsonb_array_elements_text($1::text::jsonb))`;

// A row from before receipts were read keeps its URI and gets its receipt; any other row stays as it is.
const SAVE = `
  INSERT INTO feedback_detail_uris (address, detail_uri, signature, fetched_at, payment_receipt, payment_receipt_read)
  VALUES ($1, $2, $3, $4::timestamptz, $5, true)
  ON CONFLICT (address) DO UPDATE SET payment_receipt = EXCLUDED.payment_receipt, payment_receipt_read = true
   WHERE NOT feedback_detail_uris.payment_receipt_read`;

/** Addresses per lookup: keeps one statement's parameter small whatever the registry's size. */
const FIND_BATCH = 500;

/** The feedback_detail_uris table (migrations 6 and 13) on PostgreSQL or PGlite. */
export function createSqlFeedbackDetailUriStore(db: SqlQueryable): FeedbackDetailUriStore {
  return Object.freeze({
    async find(addresses: readonly Address[]): Promise<ReadonlyMap<Address, StoredFeedbackDetail>> {
      const found = new Map<Address, StoredFeedbackDetail>();
      for (let i = 0; i < addresses.length; i += FIND_BATCH) {
        const rows = await db.query(FIND, [JSON.stringify(addresses.slice(i, i + FIND_BATCH))]);
        for (const row of rows) {
          const receipt = row["payment_receipt"];
          const paymentReceipt = row["payment_receipt_read"] !== true ? undefined : typeof receipt === "string" ? (receipt as Address) : null;
          found.set(String(row["address"]) as Address, Object.freeze({ detailUri: String(row["detail_uri"]), signature: String(row["signature"]) as Signature, paymentReceipt }));
        }
      }
      return found;
    },
    async save(record: FeedbackDetailUri): Promise<void> {
      await db.query(SAVE, [record.address, record.detailUri, record.signature, new Date(record.fetchedAtMs).toISOString(), record.paymentReceipt]);
    },
  });
}
