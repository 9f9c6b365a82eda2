import type { Address } from "@solana/kit";
import type { FeedbackDetailUri, FeedbackDetailUriStore } from "../../application/ports/feedback-detail-uri-store.ts";
import type { SqlQueryable } from "./sql-executor.ts";

// The addresses travel as one JSON array in a text parameter (typed text, so no driver re-encodes it as
// JSON); no array literal is built by hand.
const FIND = `
  SELECT address, detail_uri FROM feedback_detail_uris
   WHERE address IN (SELECT jsonb_array_elements_text($1::text::jsonb))`;

const SAVE = `
  INSERT INTO feedback_detail_uris (address, detail_uri, signature, fetched_at)
  VALUES ($1, $2, $3, $4::timestamptz)
  ON CONFLICT (address) DO NOTHING`;

/** Addresses per lookup: keeps one statement's parameter small whatever the registry's size. */
const FIND_BATCH = 500;

/** The feedback_detail_uris table (migration 6) on PostgreSQL or PGlite. */
export function createSqlFeedbackDetailUriStore(db: SqlQueryable): FeedbackDetailUriStore {
  return Object.freeze({
    async find(addresses: readonly Address[]): Promise<ReadonlyMap<Address, string>> {
      const found = new Map<Address, string>();
      for (let i = 0; i < addresses.length; i += FIND_BATCH) {
        const rows = await db.query(FIND, [JSON.stringify(addresses.slice(i, i + FIND_BATCH))]);
        for (const row of rows) found.set(String(row["address"]) as Address, String(row["detail_uri"]));
      }
      return found;
    },
    async save(record: FeedbackDetailUri): Promise<void> {
      await db.query(SAVE, [record.address, record.detailUri, record.signature, new Date(record.fetchedAtMs).toISOString()]);
    },
  });
}
