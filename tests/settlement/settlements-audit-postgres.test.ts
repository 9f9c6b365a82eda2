/**
 * Issue 23 §5: `npm run settlements:audit` against real PostgreSQL and the embedded litesvm ledger
 * (real SPL Token) reached over JSON-RPC, through a proxy that records every getSignatureStatuses
 * call. The records come from the real settle path (buildService) and from the store's own claim
 * and finish, in every state: settled and landed, failed and never sent, open, one settled whose
 * transaction the ledger never saw, one failed whose transaction landed, 300 failed ones (so the
 * statuses take more than one read of at most 256), another network's, and older ones.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { resolve } from "node:path";
import { getBase58Decoder } from "@solana/kit";
import type { SettlementDraft } from "../../src/application/ports/settlement-store.ts";
import { auditSettlements } from "../../src/application/settlement/audit-settlements.ts";
import { reconcileSettlements } from "../../src/application/settlement/reconcile-settlements.ts";
import { silentLogger } from "../../src/application/ports/logger.ts";
import { SOLANA_DEVNET, SOLANA_MAINNET } from "../../src/domain/networks.ts";
import { createLocalLedger, type LocalLedger } from "../../src/infrastructure/ledger/local-ledger.ts";
import { createRpcLedger } from "../../src/infrastructure/ledger/rpc-ledger.ts";
import { type OpenedStore, openStore } from "../../src/infrastructure/store/index.ts";
import { createSqlSettlementHistory } from "../../src/infrastructure/store/sql-settlement-history.ts";
import { AUDIT_EXIT, runSettlementsAudit } from "../../src/tools/settlements-audit.ts";
import { failWhenRequired } from "../../fixtures/gate.ts";
import { unusedPort } from "../support/ports.ts";
import { createTestDatabase, postgresGate, type TestDatabase } from "../support/postgres.ts";
import { type LedgerProxy, startLedgerProxy } from "../../fixtures/ledger-proxy.ts";
import { fundedPayment, newFeePayerKey, settlementKeyOfPayment } from "../../fixtures/payments.ts";
import { postJson, startService } from "./support/service-harness.ts";

const gate = await postgresGate("tests/settlement");
failWhenRequired(gate, "PostgreSQL must be reachable in CI");

const ROOT = resolve(import.meta.dir, "../..");
const WRONG_FAILURE = "blockhash expired before the transaction landed";
const FILLERS = 300;

const randomSignature = () => getBase58Decoder().decode(crypto.getRandomValues(new Uint8Array(64)));
const randomKey = () => Buffer.from(crypto.getRandomValues(new Uint8Array(32))).toString("hex");

function draft(overrides: Partial<SettlementDraft> = {}): SettlementDraft {
  return {
    key: randomKey(),
    paymentId: null,
    payer: "Payer111111111111111111111111111111111111111",
    payTo: "PayTo111111111111111111111111111111111111111",
    asset: "4zMMC9srt5Ri5X14GAgXhaHii3GnPAEERYPJgZJDncDU",
    amount: 1_000n,
    network: SOLANA_DEVNET,
    mode: "standard",
    signature: randomSignature(),
    wireTransaction: null,
    lastValidBlockHeight: null,
    ...overrides,
  };
}

(gate.run ? describe : describe.skip)("settlements:audit (real PostgreSQL, embedded ledger over JSON-RPC)", () => {
  let database: TestDatabase;
  let store: OpenedStore;
  let ledger: LocalLedger;
  let proxy: LedgerProxy;
  /** Signatures asked per getSignatureStatuses call, in order. */
  const statusReads: number[] = [];
  let since: Date;
  const records: Record<"landed" | "failedButLanded" | "settledNotLanded" | "open" | "failed" | "otherNetwork" | "older", string> = {
    landed: "",
    failedButLanded: "",
    settledNotLanded: "",
    open: "",
    failed: "",
    otherNetwork: "",
    older: "",
  };

  beforeAll(async () => {
    database = await createTestDatabase();
    store = await openStore({ databaseUrl: database.url, maxConnections: 4 });
    ledger = createLocalLedger();
    proxy = startLedgerProxy(ledger, {
      rule: async (call, forward) => {
        if (call.method === "getSignatureStatuses") statusReads.push(Array.isArray(call.params[0]) ? call.params[0].length : -1);
        return forward();
      },
    });
    const key = await newFeePayerKey();
    await ledger.airdrop(key.address, 10_000_000_000n);

    // An older settled payment, then the window starts.
    const service = await startService({ ROLE: "facilitator", SOLANA_RPC_URL: proxy.url, DATABASE_URL: database.url, FEE_PAYER_PRIVATE_KEY: key.json, RECONCILE_INTERVAL_SECONDS: "3600", RECONCILE_RECHECK_FAILED_MINUTES: "0" });
    try {
      const settle = async () => {
        const payment = await fundedPayment(ledger, key.address);
        const reply = await postJson(service.facilitatorApp, "/settle", payment.body);
        expect(reply.body["success"]).toBe(true);
        return { key: settlementKeyOfPayment(payment), signature: String(reply.body["transaction"]) };
      };
      const older = await settle();
      records.older = older.signature;
      await store.executor.query("UPDATE settlements SET created_at = now() - interval '2 days', updated_at = now() - interval '2 days' WHERE key = $1", [older.key]);
      since = new Date(Date.now() - 60_000);
      records.landed = (await settle()).signature;
      const wronglyFailed = await settle();
      records.failedButLanded = wronglyFailed.signature;
      // Another process failed it while its transaction had landed (what corrections repair).
      await store.executor.query("UPDATE settlements SET state = 'failed', error = $2 WHERE key = $1", [wronglyFailed.key, WRONG_FAILURE]);
    } finally {
      await service.dispose();
    }

    const settlements = store.settlements;
    const claimed = async (overrides: Partial<SettlementDraft> = {}) => {
      const d = draft(overrides);
      expect((await settlements.claim(d)).outcome).toBe("claimed");
      return d;
    };
    const notLanded = await claimed();
    await settlements.finish(notLanded.key, notLanded.signature, { state: "settled" });
    records.settledNotLanded = notLanded.signature;
    records.open = (await claimed()).signature;
    const failed = await claimed();
    await settlements.finish(failed.key, failed.signature, { state: "failed", error: WRONG_FAILURE });
    records.failed = failed.signature;
    const elsewhere = await claimed({ network: SOLANA_MAINNET });
    await settlements.finish(elsewhere.key, elsewhere.signature, { state: "settled" });
    records.otherNetwork = elsewhere.signature;
    const fillers = await Promise.all(Array.from({ length: FILLERS }, () => claimed()));
    await Promise.all(fillers.map((d) => settlements.finish(d.key, d.signature, { state: "failed", error: "transaction failed on-chain: test" })));
  }, 120_000);

  afterAll(async () => {
    await proxy?.stop();
    await store?.close();
    await database?.drop();
  });

  test("in process: every record of the window is compared, each read asks at most 256 signatures, and the two disagreements are reported", async () => {
    statusReads.length = 0;
    const found: { kind: string; signature: string }[] = [];
    const summary = await auditSettlements(
      { history: createSqlSettlementHistory(store.executor), ledger: createRpcLedger({ url: proxy.url }), network: SOLANA_DEVNET },
      since,
      (d) => found.push({ kind: d.comparison.kind, signature: d.record.signature }),
    );
    const examined = 2 + 3 + FILLERS; // the two settled through the service in the window, three claimed on this network, the fillers
    expect(summary).toMatchObject({ examined, agree: examined - 3, open: 1, disagree: 2, byKind: { "failed-but-landed": 1, "settled-not-landed": 1, "settled-failed-on-chain": 0 } });
    expect(found.sort((a, b) => a.kind.localeCompare(b.kind))).toEqual([
      { kind: "failed-but-landed", signature: records.failedButLanded },
      { kind: "settled-not-landed", signature: records.settledNotLanded },
    ]);
    // 305 records: two reads (256 + 49), each within Solana's limit.
    expect(statusReads).toEqual([256, examined - 256]);
    expect(summary.statusReads).toBe(2);
  });

  test("as a child process: exit code 1, one DISAGREE line per disagreement with the record's fields, and the summary", async () => {
    const child = Bun.spawn([process.execPath, "src/tools/settlements-audit.ts", "--since", since.toISOString()], {
      cwd: ROOT,
      env: { PATH: process.env["PATH"] ?? "", NODE_ENV: "test", LOG_LEVEL: "silent", DATABASE_URL: database.url, SOLANA_RPC_URL: proxy.url },
      stdout: "pipe",
      stderr: "pipe",
    });
    const [code, stdout, stderr] = await Promise.all([child.exited, new Response(child.stdout).text(), new Response(child.stderr).text()]);
    expect({ code, stderr }).toEqual({ code: AUDIT_EXIT.disagree, stderr: "" });
    const lines = stdout.trim().split("\n");
    const disagreements = lines.filter((line) => line.startsWith("DISAGREE "));
    expect(disagreements).toHaveLength(2);
    const wronglyFailed = disagreements.find((line) => line.includes(`signature=${records.failedButLanded} `));
    expect(wronglyFailed).toStartWith(`DISAGREE failed-but-landed signature=${records.failedButLanded} key=`);
    expect(wronglyFailed).toContain(" state=failed mode=standard payer=");
    expect(wronglyFailed).toEndWith(`: the record says failed (${WRONG_FAILURE}), but the ledger shows the transaction landed without error (confirmed at slot ${/slot (\d+)\)$/.exec(wronglyFailed ?? "")?.[1]})`);
    expect(disagreements.find((line) => line.includes(`signature=${records.settledNotLanded} `))).toMatch(/^DISAGREE settled-not-landed .* state=settled .*: the record says settled, but the ledger does not know the transaction$/);
    for (const quiet of [records.landed, records.open, records.failed, records.otherNetwork, records.older]) expect(stdout).not.toContain(quiet);
    expect(lines.at(-1)).toBe(
      `summary: 305 record(s) of ${SOLANA_DEVNET} written since ${since.toISOString()}: 302 agree, 1 open (left to the reconciler), 2 disagree (settled-not-landed 1, failed-but-landed 1); 2 getSignatureStatuses read(s) of at most 256 signatures`,
    );
  }, 60_000);

  test("the reconciler corrects by the same comparison: after its pass the audit finds only the settled record the ledger never saw", async () => {
    const rpc = createRpcLedger({ url: proxy.url });
    const report = await reconcileSettlements({ ledger: rpc, store: store.settlements, logger: silentLogger, network: SOLANA_DEVNET, recheckFailedSeconds: 600 }, 1_000);
    expect(report.corrected).toBe(1);
    const lines: string[] = [];
    const env = { NODE_ENV: "test", DATABASE_URL: database.url, SOLANA_RPC_URL: proxy.url };
    expect(await runSettlementsAudit(["--since", since.toISOString()], env, (line) => lines.push(line))).toBe(AUDIT_EXIT.disagree);
    expect(lines.filter((line) => line.startsWith("DISAGREE "))).toEqual([expect.stringMatching(new RegExp(`^DISAGREE settled-not-landed signature=${records.settledNotLanded} `))]);

    // The operator looks into it and fails that record: everything agrees, exit code 0.
    await store.executor.query("UPDATE settlements SET state = 'failed', error = 'audited: never sent' WHERE signature = $1", [records.settledNotLanded]);
    lines.length = 0;
    expect(await runSettlementsAudit(["--since", since.toISOString()], env, (line) => lines.push(line))).toBe(AUDIT_EXIT.agree);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toStartWith("summary: 305 record(s) of");
    expect(lines[0]).toContain(": 304 agree, 1 open (left to the reconciler), 0 disagree; ");
  }, 60_000);

  test("a ledger of another network, or one that does not answer, is exit code 3 naming the problem, never a verdict", async () => {
    const lines: string[] = [];
    const base = { NODE_ENV: "test", DATABASE_URL: database.url, SOLANA_RPC_URL: proxy.url };
    expect(await runSettlementsAudit(["--since", "1h"], { ...base, NETWORK: SOLANA_MAINNET }, (line) => lines.push(line))).toBe(AUDIT_EXIT.incomplete);
    expect(lines[0]).toStartWith(`FAIL ledger: NETWORK is ${SOLANA_MAINNET}, but the ledger's genesis hash`);
    lines.length = 0;
    const closed = `http://127.0.0.1:${await unusedPort()}`;
    expect(await runSettlementsAudit(["--since", "1h"], { ...base, SOLANA_RPC_URL: closed, LEDGER_RPC_TIMEOUT_MS: "1000" }, (line) => lines.push(line))).toBe(AUDIT_EXIT.incomplete);
    expect(lines[0]).toStartWith("FAIL ledger: its network could not be checked");
  }, 30_000);
});
