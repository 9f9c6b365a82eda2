import type { Signature } from "@solana/kit";
import type { Ledger, SignatureStatus } from "../ports/ledger.ts";
import type { HistoryCursor, SettlementHistory } from "../ports/settlement-history.ts";
import type { SettlementRecord } from "../ports/settlement-store.ts";
import { DISAGREEMENT_KINDS, type DisagreementKind, type LedgerComparison, compareWithLedger } from "./ledger-comparison.ts";

/** Solana's `getSignatureStatuses` takes at most 256 signatures per call. */
export const MAX_SIGNATURES_PER_STATUS_READ = 256;

export type AuditDeps = Readonly<{
  history: SettlementHistory;
  ledger: Pick<Ledger, "getSignatureStatuses">;
  /** NETWORK: only its records are audited, against its ledger. */
  network: string;
  /** Records per store page and signatures per status read; at most 256. */
  batchSize?: number;
}>;

/** One record the ledger contradicts. */
export type AuditDisagreement = Readonly<{
  record: SettlementRecord;
  status: SignatureStatus | null;
  comparison: Extract<LedgerComparison, { verdict: "disagree" }>;
}>;

export type AuditSummary = Readonly<{
  network: string;
  since: Date;
  examined: number;
  agree: number;
  /** Not final yet (pending, or the legacy submitted): the reconciler's to finish, not judged. */
  open: number;
  disagree: number;
  byKind: Readonly<Record<DisagreementKind, number>>;
  /** getSignatureStatuses calls made (each with at most MAX_SIGNATURES_PER_STATUS_READ signatures). */
  statusReads: number;
}>;

/**
 * Compares every record of `network` written since `since` with the ledger, through the
 * comparison the reconciler corrects by (ledger-comparison.ts). Records are read a page at a time
 * and each page's signatures in one `getSignatureStatuses` call, so memory and the call size stay
 * bounded whatever the window holds. Each disagreement is handed to `report` as it is found.
 * Reads only: nothing is corrected here (the reconciler does that, within its re-check window).
 * Throws what the store or the ledger throw when they cannot answer.
 */
export async function auditSettlements(deps: AuditDeps, since: Date, report: (disagreement: AuditDisagreement) => void): Promise<AuditSummary> {
  const batchSize = Math.min(deps.batchSize ?? MAX_SIGNATURES_PER_STATUS_READ, MAX_SIGNATURES_PER_STATUS_READ);
  const byKind = Object.fromEntries(DISAGREEMENT_KINDS.map((kind) => [kind, 0])) as Record<DisagreementKind, number>;
  let examined = 0;
  let agree = 0;
  let open = 0;
  let statusReads = 0;
  let cursor: HistoryCursor | null = null;
  do {
    const page = await deps.history.writtenSince(deps.network, since, cursor, batchSize);
    cursor = page.next;
    if (page.records.length === 0) break;
    const statuses = await deps.ledger.getSignatureStatuses(page.records.map((record) => record.signature as Signature));
    statusReads += 1;
    page.records.forEach((record, index) => {
      const status = statuses[index] ?? null;
      const comparison = compareWithLedger(record, status);
      examined += 1;
      if (comparison.verdict === "agree") agree += 1;
      else if (comparison.verdict === "open") open += 1;
      else {
        byKind[comparison.kind] += 1;
        report({ record, status, comparison });
      }
    });
  } while (cursor !== null);
  const disagree = DISAGREEMENT_KINDS.reduce((sum, kind) => sum + byKind[kind], 0);
  return Object.freeze({ network: deps.network, since, examined, agree, open, disagree, byKind: Object.freeze(byKind), statusReads });
}
