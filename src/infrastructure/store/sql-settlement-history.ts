import type { HistoryCursor, HistoryPage, SettlementHistory } from "../../application/ports/settlement-history.ts";
import { SETTLEMENT_COLUMNS, settlementFromRow } from "./settlement-rows.ts";
import type { SqlQueryable } from "./sql-executor.ts";

/**
 * Keyset pages in insertion order (`seq`, unique), so a page never repeats or skips a row while
 * settlements go on. The cursor is read as text (`seq_text`: PGlite parses int8 into a lossy
 * number), under another name than `seq`, which ORDER BY would otherwise take for the text. `updated_at` moves with every write and `created_at` is the first claim, so
 * the pair catches a record claimed in the window and one claimed earlier but finished, corrected
 * or retaken in it. No index serves the time filter: an audit walks the table from `after` on the
 * `seq` index, which is fine for an offline tool and costs the payment path no index upkeep.
 */
const WRITTEN_SINCE = `
  SELECT ${SETTLEMENT_COLUMNS}, seq::text AS seq_text
    FROM settlements
   WHERE network = $1 AND (created_at >= $2::timestamptz OR updated_at >= $2::timestamptz) AND seq > $3::bigint
   ORDER BY seq
   LIMIT $4`;

export function createSqlSettlementHistory(db: SqlQueryable): SettlementHistory {
  return Object.freeze({
    async writtenSince(network: string, since: Date, after: HistoryCursor | null, limit: number): Promise<HistoryPage> {
      const rows = await db.query(WRITTEN_SINCE, [network, since.toISOString(), (after?.seq ?? 0n).toString(), limit]);
      const last = rows.at(-1);
      const next = rows.length === limit && last !== undefined ? { seq: BigInt(String(last["seq_text"])) } : null;
      return Object.freeze({ records: rows.map(settlementFromRow), next });
    },
  });
}
