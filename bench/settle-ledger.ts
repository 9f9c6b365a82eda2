/**
 * Child process for bench/settle.ts: the embedded ledger behind the JSON-RPC proxy, in its own
 * process as a real cluster would be, so the benchmark measures the facilitator and not the
 * ledger's execution on the same event loop.
 *
 *   bun bench/settle-ledger.ts <confirmAfterMs> [execute|stub]
 *
 * `execute` (default): every transaction runs on the embedded ledger (real SPL Token); the
 * ledger's pubsub (signatureSubscribe) is served on the same port.
 * `stub`: sends are acknowledged and reported confirmed after the delay WITHOUT executing them;
 * only for measuring the facilitator's own ceiling, never for checking balances.
 *
 * Prints one JSON line `{"url": ...}` when listening. Answers the extra method `bench_stats`
 * with `{sends, calls}` (sends that reached the ledger; calls received by method). Exits when
 * stdin closes.
 */
import { createLocalLedger } from "../src/infrastructure/ledger/local-ledger.ts";
import { type FaultRule, firstSignature, rpcResult, startLedgerProxy } from "../fixtures/ledger-proxy.ts";
import { delayConfirmation } from "./settle-delay.ts";

const COUNTED = [
  "sendTransaction", "getSignatureStatuses", "getBlockHeight", "isBlockhashValid", "getLatestBlockhash", "surfnet_setTokenAccount",
  // Read by bench/compare-reference-settle.ts to compare the calls each facilitator makes.
  "simulateTransaction", "getAccountInfo", "getMultipleAccounts", "getBalance", "getTokenAccountBalance",
];
const confirmAfterMs = Number(process.argv[2] ?? "0");
const mode = process.argv[3] === "stub" ? "stub" : "execute";
const ledger = createLocalLedger();
// Confirmations are pushed over the pubsub (signatureSubscribe) as a real node's are, after the
// same delay the status reads get; the stub executes nothing, so it has nothing to push.
// BENCH_LEDGER_PUBSUB=0 leaves it out (a node without pubsub: the facilitator polls only).
const proxy = startLedgerProxy(ledger, { pubsub: mode === "execute" && process.env["BENCH_LEDGER_PUBSUB"] !== "0", signatureNoticeDelayMs: confirmAfterMs });
const rule: FaultRule = mode === "stub" ? stubExecution(confirmAfterMs) : confirmAfterMs > 0 ? delayConfirmation(confirmAfterMs) : (_call, forward) => forward();
proxy.setRule(async (call, forward) => {
  if (call.method === "bench_stats") {
    const calls = Object.fromEntries(COUNTED.map((method) => [method, proxy.received(method)]));
    return rpcResult(call, { sends: proxy.forwarded("sendTransaction"), calls });
  }
  return rule(call, forward);
});
console.log(JSON.stringify({ url: proxy.url }));

/** Acknowledges sends without running them and reports them confirmed `ms` later. */
function stubExecution(ms: number): FaultRule {
  const sentAt = new Map<string, number>();
  return async (call, forward) => {
    if (call.method === "sendTransaction") {
      const signature = firstSignature(call.params[0]);
      if (!sentAt.has(signature)) sentAt.set(signature, performance.now());
      return rpcResult(call, signature);
    }
    if (call.method !== "getSignatureStatuses") return forward();
    const asked = Array.isArray(call.params[0]) ? (call.params[0] as unknown[]) : [];
    const now = performance.now();
    const value = asked.map((signature) => {
      const sent = sentAt.get(String(signature));
      if (sent === undefined || now - sent < ms) return null;
      return { slot: 1, confirmations: 0, err: null, status: { Ok: null }, confirmationStatus: "confirmed" };
    });
    return rpcResult(call, { context: { slot: 1 }, value });
  };
}

// The parent holds our stdin: when it exits (or closes it), so do we.
const stdin = Bun.stdin.stream().getReader();
while (!(await stdin.read()).done) {
  // Nothing is sent on stdin; reading only waits for it to close.
}
await proxy.stop();
process.exit(0);
