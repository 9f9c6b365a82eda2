// The prom-client adapter of the Metrics port and the decorators that instrument the ledger, the
// signers, the store and the settlement service (hand-written fakes of each port; PGlite for SQL).
import { describe, expect, test } from "bun:test";
import type { Address, Signature } from "@solana/kit";
import { type Ledger, LedgerError } from "../../src/application/ports/ledger.ts";
import type { Signer } from "../../src/application/ports/signer.ts";
import type { SettlementService } from "../../src/application/settlement/settle-payment.ts";
import type { SettleResponse } from "../../src/application/settlement/settle-response.ts";
import { instrumentLedger } from "../../src/infrastructure/metrics/instrumented-ledger.ts";
import { instrumentSettlement } from "../../src/infrastructure/metrics/instrumented-settlement.ts";
import { instrumentSigner } from "../../src/infrastructure/metrics/instrumented-signer.ts";
import { statementOf, timedExecutor } from "../../src/infrastructure/metrics/instrumented-store.ts";
import { createPrometheusMetrics } from "../../src/infrastructure/metrics/prometheus-metrics.ts";
import { timed } from "../../src/infrastructure/metrics/timed.ts";
import { createPgliteExecutor } from "../../src/infrastructure/store/pglite-executor.ts";
import { createActors, paymentRequest, requirementsFor } from "../../fixtures/payment-builder.ts";
import { sampleNames } from "./support/observed-service.ts";

const lines = async (metrics: ReturnType<typeof createPrometheusMetrics>, prefix: string) =>
  (await metrics.render()).split("\n").filter((line) => line.startsWith(prefix));

describe("Prometheus adapter (prom-client, one Registry per instance)", () => {
  test("counters, gauges and histograms by name, with the labels of their first use", async () => {
    const metrics = createPrometheusMetrics();
    metrics.increment("jobs_total", "Jobs", { kind: "a" });
    metrics.increment("jobs_total", "Jobs", { kind: "a" }, 2);
    metrics.set("depth", "Depth", { queue: "q" }, 7);
    metrics.observe("job_seconds", "Job time", { kind: "a" }, 0.02);
    expect(await lines(metrics, "jobs_total")).toEqual(['jobs_total{kind="a"} 3']);
    expect(await lines(metrics, "depth")).toEqual(['depth{queue="q"} 7']);
    expect(await lines(metrics, "job_seconds_bucket")).toContain('job_seconds_bucket{le="0.025",kind="a"} 1');
    expect(await lines(metrics, "job_seconds_bucket")).toContain('job_seconds_bucket{le="0.01",kind="a"} 0');
    expect(await lines(metrics, "job_seconds_bucket")).toContain('job_seconds_bucket{le="60",kind="a"} 1');
    expect(metrics.contentType).toStartWith("text/plain; version=0.0.4");
  });

  test("another label set for a known name is a programming error, not a silent new series", () => {
    const metrics = createPrometheusMetrics();
    metrics.increment("jobs_total", "Jobs", { kind: "a" });
    expect(() => metrics.increment("jobs_total", "Jobs", { kind: "a", extra: "x" })).toThrow(/jobs_total/);
  });

  test("a gauge read at scrape time reports the value of that moment, with its labels", async () => {
    const metrics = createPrometheusMetrics();
    let value = 1;
    metrics.gaugeFrom("work_in_flight", "In flight", [], () => [{ labels: {}, value }]);
    metrics.gaugeFrom("per_key", "Per key", ["key"], () => (value > 1 ? [{ labels: { key: "k" }, value }] : []));
    expect(await lines(metrics, "work_in_flight ")).toEqual(["work_in_flight 1"]);
    expect(await lines(metrics, "per_key{")).toEqual([]);
    value = 4;
    expect(await lines(metrics, "work_in_flight ")).toEqual(["work_in_flight 4"]);
    expect(await lines(metrics, "per_key{")).toEqual(['per_key{key="k"} 4']);
  });

  test("registries are independent; process metrics only where asked for", async () => {
    const a = createPrometheusMetrics({ processMetrics: true });
    const b = createPrometheusMetrics();
    a.increment("only_in_a_total", "A", {});
    expect(sampleNames(await b.render()).has("only_in_a_total")).toBe(false);
    expect(sampleNames(await a.render())).toContain("process_cpu_seconds_total");
    expect(sampleNames(await b.render()).has("process_cpu_seconds_total")).toBe(false);
  });
});

describe("timed", () => {
  test("reports ok for values and resolved promises, the failure's name for throws and rejections, and rethrows", async () => {
    const seen: string[] = [];
    const report = (outcome: string) => seen.push(outcome);
    expect(timed(() => 3, report)).toBe(3);
    expect(await timed(async () => 4, report)).toBe(4);
    expect(() => timed(() => { throw new Error("x"); }, report)).toThrow("x");
    await expect(timed(async () => { throw new TypeError("y"); }, report, (e) => (e instanceof TypeError ? "type" : "error"))).rejects.toThrow("y");
    expect(seen).toEqual(["ok", "ok", "error", "type"]);
  });
});

function fakeLedger(fail: Partial<Record<keyof Ledger, unknown>>): Ledger {
  const run = async <T>(method: keyof Ledger, value: T): Promise<T> => {
    if (fail[method] !== undefined) throw fail[method];
    return value;
  };
  return Object.freeze({
    getLatestBlockhash: () => run("getLatestBlockhash", { blockhash: "h", lastValidBlockHeight: 1n }),
    isBlockhashValid: () => run("isBlockhashValid", true),
    getBlockHeight: () => run("getBlockHeight", 1n),
    getAccount: () => run("getAccount", null),
    getMultipleAccounts: () => run("getMultipleAccounts", []),
    getProgramAccounts: () => run("getProgramAccounts", []),
    simulateTransaction: () => run("simulateTransaction", { ok: true as const, unitsConsumed: 1n, logs: [] }),
    sendTransaction: () => run("sendTransaction", "sig" as Signature),
    getSignatureStatuses: () => run("getSignatureStatuses", []),
    getTransactionEffects: () => run("getTransactionEffects", null),
    ping: () => run("ping", undefined),
    getGenesisHash: () => run("getGenesisHash", "genesis"),
  });
}

describe("instrumented ledger", () => {
  test("every port method is timed under its name, by outcome: ok, rejected, unavailable, error", async () => {
    const metrics = createPrometheusMetrics();
    const ledger = instrumentLedger(
      fakeLedger({ sendTransaction: new LedgerError("rejected", "bad tx"), ping: new LedgerError("unavailable", "down"), getBlockHeight: new Error("bug") }),
      metrics,
    );
    await ledger.getLatestBlockhash();
    await ledger.getMultipleAccounts([]);
    await ledger.sendTransaction(new Uint8Array()).catch(() => undefined);
    await ledger.ping().catch(() => undefined);
    await ledger.getBlockHeight().catch(() => undefined);
    const counts = await lines(metrics, "x402_ledger_request_duration_seconds_count");
    expect(counts.sort()).toEqual(
      [
        'x402_ledger_request_duration_seconds_count{method="getLatestBlockhash",outcome="ok"} 1',
        'x402_ledger_request_duration_seconds_count{method="getMultipleAccounts",outcome="ok"} 1',
        'x402_ledger_request_duration_seconds_count{method="sendTransaction",outcome="rejected"} 1',
        'x402_ledger_request_duration_seconds_count{method="ping",outcome="unavailable"} 1',
        'x402_ledger_request_duration_seconds_count{method="getBlockHeight",outcome="error"} 1',
      ].sort(),
    );
  });

  test("the errors reach the caller unchanged", async () => {
    const refusal = new LedgerError("rejected", "bad tx");
    const ledger = instrumentLedger(fakeLedger({ sendTransaction: refusal }), createPrometheusMetrics());
    expect(await ledger.sendTransaction(new Uint8Array()).catch((e: unknown) => e)).toBe(refusal);
  });
});

describe("instrumented signer", () => {
  test("signing is timed by adapter and outcome; the signer's address, kind and close stay", async () => {
    const metrics = createPrometheusMetrics();
    let closed = false;
    let failNext = false;
    const inner: Signer = {
      address: "11111111111111111111111111111112" as Address,
      kind: "aws-kms",
      signMessages: async (messages) => {
        if (failNext) throw new Error("throttled");
        return messages.map(() => new Uint8Array(64));
      },
      close: async () => void (closed = true),
    };
    const signer = instrumentSigner(inner, metrics);
    expect(signer.address).toBe(inner.address);
    expect(signer.kind).toBe("aws-kms");
    await signer.signMessages([new Uint8Array(3)]);
    failNext = true;
    await signer.signMessages([new Uint8Array(3)]).catch(() => undefined);
    await signer.close?.();
    expect(closed).toBe(true);
    expect((await lines(metrics, "x402_signer_duration_seconds_count")).sort()).toEqual([
      'x402_signer_duration_seconds_count{adapter="aws-kms",outcome="error"} 1',
      'x402_signer_duration_seconds_count{adapter="aws-kms",outcome="ok"} 1',
    ]);
  });
});

describe("instrumented store (PGlite in memory)", () => {
  test("statements are timed by verb, first table and outcome; a transaction and the statements inside it both count", async () => {
    const metrics = createPrometheusMetrics();
    const raw = await createPgliteExecutor();
    try {
      const db = timedExecutor(raw, metrics);
      await db.exec("CREATE TABLE things (id integer primary key)");
      await db.transaction(async (tx) => {
        await tx.query("INSERT INTO things (id) VALUES ($1)", [1]);
      });
      await db.query("SELECT id FROM things");
      await db.query("INSERT INTO things (id) VALUES (1)").catch(() => undefined);
      const counts = (await lines(metrics, "x402_store_query_duration_seconds_count")).sort();
      expect(counts).toEqual(
        [
          'x402_store_query_duration_seconds_count{operation="exec",table="none",outcome="ok"} 1',
          'x402_store_query_duration_seconds_count{operation="transaction",table="none",outcome="ok"} 1',
          'x402_store_query_duration_seconds_count{operation="insert",table="things",outcome="ok"} 1',
          'x402_store_query_duration_seconds_count{operation="select",table="things",outcome="ok"} 1',
          'x402_store_query_duration_seconds_count{operation="insert",table="things",outcome="error"} 1',
        ].sort(),
      );
    } finally {
      await raw.close();
    }
  });

  test("statementOf keeps the label set small: known verbs, else other; the first table named", () => {
    expect(statementOf("  update settlements SET state = $1")).toEqual(["update", "settlements"]);
    expect(statementOf("WITH x AS (SELECT 1) DELETE FROM fee_budget_windows")).toEqual(["with", "fee_budget_windows"]);
    expect(statementOf("SELECT pg_advisory_xact_lock(42)")).toEqual(["select", "none"]);
    expect(statementOf("VACUUM")).toEqual(["other", "none"]);
  });
});

const request = paymentRequest(null, requirementsFor(await createActors()));

describe("instrumented settlement service", () => {
  const answer = (response: Partial<SettleResponse>): SettleResponse => ({ success: false, transaction: "", network: "n", ...response });

  function fakeSettlement(answers: (SettleResponse | Error)[], inFlight: () => number): SettlementService {
    return {
      settle: async () => {
        const next = answers.shift();
        if (next instanceof Error) throw next;
        return next ?? answer({});
      },
      inFlight,
      drain: async () => undefined,
    };
  }

  test("answers are counted and timed by outcome: settled, replayed, the reason code, error for a throw", async () => {
    const metrics = createPrometheusMetrics();
    const settlement = instrumentSettlement(
      fakeSettlement(
        [
          answer({ success: true, transaction: "t" }),
          answer({ success: true, transaction: "t", extensions: { replayed: true } }),
          answer({ errorReason: "INSUFFICIENT_FUNDS" }),
          new Error("store down"),
        ],
        () => 0,
      ),
      metrics,
    );
    for (let i = 0; i < 4; i++) await settlement.settle(request).catch(() => undefined);
    expect((await lines(metrics, "x402_settlements_total")).sort()).toEqual(
      [
        'x402_settlements_total{outcome="settled"} 1',
        'x402_settlements_total{outcome="replayed"} 1',
        'x402_settlements_total{outcome="INSUFFICIENT_FUNDS"} 1',
        'x402_settlements_total{outcome="error"} 1',
      ].sort(),
    );
    expect(await lines(metrics, "x402_settlement_duration_seconds_count")).toHaveLength(4);
  });

  test("the in-flight gauge reads the service at each scrape", async () => {
    const metrics = createPrometheusMetrics();
    let running = 3;
    instrumentSettlement(fakeSettlement([], () => running), metrics);
    expect(await lines(metrics, "x402_settlements_in_flight")).toEqual(["x402_settlements_in_flight 3"]);
    running = 0;
    expect(await lines(metrics, "x402_settlements_in_flight")).toEqual(["x402_settlements_in_flight 0"]);
  });
});
