// Attack: learn the infrastructure from error messages. /settle's answer quoted the store's own
// error ("settlement store unavailable: DATABASE_URL (postgres://10.0.3.7:5432/settlements)...")
// and /health's details quoted the database and the ledger the same way. Clients now get a
// neutral phrase; the operator gets the detail in a log line. Real composition (buildService)
// with the real JSON logger: PostgreSQL through a TCP relay the test cuts, and the embedded
// ledger over JSON-RPC through a proxy the test takes down.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { type Server, type Socket, connect, createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Address } from "@solana/kit";
import { parseServiceConfig } from "../../src/infrastructure/config/service-config.ts";
import { createLocalLedger } from "../../src/infrastructure/ledger/local-ledger.ts";
import { createJsonLogger } from "../../src/infrastructure/logging/json-logger.ts";
import { type Service, buildService } from "../../src/composition/service.ts";
import { startLedgerProxy } from "../../fixtures/ledger-proxy.ts";
import { fundedPayment, newFeePayerKey } from "../../fixtures/payments.ts";
import { ADMIN_URL, type TestDatabase, createTestDatabase, postgresGate } from "../support/postgres.ts";

type Running = Readonly<{ service: Service; logs(): Record<string, unknown>[]; dispose(): Promise<void> }>;

async function start(env: Record<string, string>): Promise<Running> {
  const dataDir = mkdtempSync(join(tmpdir(), "disclosure-"));
  const full = { DATA_DIR: dataDir, SEED_SAMPLE_AGENTS: "false", RECONCILE_INTERVAL_SECONDS: "3600", ...env };
  const parsed = parseServiceConfig(full);
  if (!parsed.ok) throw new Error(parsed.errors.join("; "));
  const lines: string[] = [];
  const service = await buildService(parsed.config, full, createJsonLogger("debug", (line) => lines.push(line)));
  return {
    service,
    logs: () => lines.map((line) => JSON.parse(line) as Record<string, unknown>),
    async dispose() {
      await service.close(2_000).catch(() => undefined);
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

type Handles = Readonly<{ handle(request: Request): Response | Promise<Response> }>;

async function call(app: Handles, path: string, body?: unknown): Promise<Record<string, unknown>> {
  const init = body === undefined ? {} : { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) };
  return (await (await app.handle(new Request(`http://facilitator.test${path}`, init))).json()) as Record<string, unknown>;
}

/** A TCP relay to PostgreSQL that the test can cut: the database then refuses and drops connections. */
async function startRelay(target: URL): Promise<{ port: number; cut(): Promise<void> }> {
  const sockets = new Set<Socket>();
  const server: Server = createServer((client) => {
    const upstream = connect(Number(target.port || 5432), target.hostname);
    for (const socket of [client, upstream]) {
      sockets.add(socket);
      socket.on("error", () => socket.destroy());
      socket.on("close", () => sockets.delete(socket));
    }
    client.pipe(upstream).pipe(client);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  if (address === null || typeof address === "string") throw new Error("no relay port");
  return {
    port: address.port,
    cut: async () => {
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      for (const socket of sockets) socket.destroy();
      await closed;
    },
  };
}

/** What a client must never read: where the database or the ledger is, or the setting naming it. */
function expectNoInfrastructure(text: string, ...also: string[]): void {
  for (const needle of ["127.0.0.1", "localhost", "DATABASE_URL", "SOLANA_RPC_URL", "postgres", ...also]) expect({ needle, found: text.includes(needle) }).toEqual({ needle, found: false });
}

const gate = await postgresGate("infrastructure disclosure");

describe.if(gate.run)("the settlement store goes away (real PostgreSQL behind a relay the test cuts)", () => {
  let database: TestDatabase;
  let relay: Awaited<ReturnType<typeof startRelay>>;
  let running: Running;

  beforeAll(async () => {
    database = await createTestDatabase();
    relay = await startRelay(new URL(ADMIN_URL));
    const url = new URL(database.url);
    url.hostname = "127.0.0.1";
    url.port = String(relay.port);
    running = await start({ DATABASE_URL: url.toString() });
  }, 60_000);

  afterAll(async () => {
    await running?.dispose();
    await database?.drop();
  }, 30_000);

  test("/settle: SETTLEMENT_FAILED with a neutral message; the database's host, port and name only in the log", async () => {
    const ledger = running.service.embeddedLedger;
    const feePayer = running.service.feePayers.addresses[0];
    if (!ledger || !feePayer) throw new Error("expected the embedded ledger and a development fee payer");
    const payment = await fundedPayment(ledger, feePayer as Address);
    await relay.cut();

    const reply = await call(running.service.facilitatorApp, "/settle", payment.body);
    expect(reply).toMatchObject({ success: false, errorReason: "SETTLEMENT_FAILED", errorMessage: "the settlement store is unavailable; nothing was signed or submitted, retry later" });
    expectNoInfrastructure(JSON.stringify(reply), String(relay.port), database.name);

    const logged = running.logs().find((line) => line["msg"] === "settlement store unavailable before signing");
    expect(String(logged?.["error"])).toContain(`127.0.0.1:${relay.port}/${database.name}`);
  }, 30_000);

  test("/health: the store check is down, saying only that the database does not answer; the cause in the log", async () => {
    const health = await call(running.service.facilitatorApp, "/health");
    expect(health).toMatchObject({ status: "down", checks: { store: { status: "down", detail: "the database does not answer" } } });
    expectNoInfrastructure(JSON.stringify(health), String(relay.port), database.name);
    const registry = await call(running.service.registryApp, "/health");
    expect(registry).toMatchObject({ checks: { store: { status: "degraded", detail: "the database does not answer" } } });
    expect(running.logs().some((line) => line["msg"] === "health check failed" && line["check"] === "store" && String(line["error"]).includes(database.name))).toBe(true);
  }, 30_000);
});

describe("the ledger goes away (embedded ledger over JSON-RPC behind a proxy the test takes down, PGlite)", () => {
  const ledger = createLocalLedger();
  const proxy = startLedgerProxy(ledger);
  let running: Running;
  let feePayer: Address;

  beforeAll(async () => {
    const key = await newFeePayerKey();
    feePayer = key.address;
    await ledger.airdrop(feePayer, 10_000_000_000n);
    running = await start({ SOLANA_RPC_URL: proxy.url, FEE_PAYER_PRIVATE_KEY: key.json });
  }, 60_000);

  afterAll(async () => {
    await running?.dispose();
    await proxy.stop();
  }, 30_000);

  test("/settle and /health name no RPC address; the log has the cause", async () => {
    const payment = await fundedPayment(ledger, feePayer);
    await proxy.goDown();
    const reply = await call(running.service.facilitatorApp, "/settle", payment.body);
    expect(reply).toMatchObject({ success: false, errorReason: "SETTLEMENT_FAILED" });
    expect(String(reply["errorMessage"])).toStartWith("the ledger is unavailable; nothing was");
    expectNoInfrastructure(JSON.stringify(reply), String(proxy.port));

    const health = await call(running.service.facilitatorApp, "/health");
    expect(health).toMatchObject({ checks: { ledger: { status: "down", detail: "the ledger does not answer" } } });
    expectNoInfrastructure(JSON.stringify(health), String(proxy.port));
    expect(running.logs().some((line) => line["msg"] === "health check failed" && line["check"] === "ledger")).toBe(true);
  }, 30_000);
});
