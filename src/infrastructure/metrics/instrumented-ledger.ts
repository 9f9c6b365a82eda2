import { type Ledger, isLedgerError } from "../../application/ports/ledger.ts";
import type { Metrics } from "../../application/ports/metrics.ts";
import { timedMethods } from "./timed.ts";

export const LEDGER_DURATION = "x402_ledger_request_duration_seconds";

/**
 * The ledger with every call timed by method and outcome: `ok`, `rejected` (the ledger answered
 * and refused), `unavailable` (transport failure, 5xx, timeout) or `error` (anything else). On a
 * JSON-RPC ledger a method is one RPC round trip or a few (batched account reads).
 */
export function instrumentLedger<L extends Ledger>(ledger: L, metrics: Metrics): L {
  return timedMethods(
    ledger,
    (method, outcome, seconds) => metrics.observe(LEDGER_DURATION, "Ledger (Solana RPC) call latency, by method and outcome", { method, outcome }, seconds),
    (error) => (isLedgerError(error) ? error.kind : "error"),
  );
}
