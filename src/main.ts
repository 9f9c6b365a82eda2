/**
 * Composition root: the only module that reads the environment. Parses configuration once,
 * builds the service, serves the interfaces ROLE selects, and shuts down gracefully.
 */
import { parseAppConfig } from "./infrastructure/config/app-config.ts";
import { productionProblems } from "./infrastructure/config/production-guard.ts";
import { createJsonLogger } from "./infrastructure/logging/json-logger.ts";
import { ConfigurationError, VERSION, buildService, serveLedgerRpc } from "./service.ts";

const parsed = parseAppConfig(process.env);
if (!parsed.ok) {
  console.error(JSON.stringify({ level: "error", msg: "invalid configuration", errors: parsed.errors }));
  process.exit(1);
}
const config = parsed.config;
// SECURITY: in production a missing setting must stop the boot, not fall back to the embedded
// ledger (whose cheat codes mint balances), the embedded database or a generated key.
const refused = productionProblems(config, process.env);
if (refused.length > 0) {
  console.error(JSON.stringify({ level: "error", msg: "refusing to start: NODE_ENV=production needs these settings", errors: refused }));
  process.exit(1);
}
const logger = createJsonLogger(config.LOG_LEVEL);
const startedAt = performance.now();

let service: Awaited<ReturnType<typeof buildService>>;
try {
  service = await buildService(config, process.env, logger);
} catch (error) {
  const problems = error instanceof ConfigurationError ? error.problems : [error instanceof Error ? error.message : String(error)];
  logger.error("start-up failed", { errors: problems });
  process.exit(1);
}

const servers: { stop(): Promise<void> | void }[] = [];
const urls: Record<string, string> = {};
if (service.embeddedLedger) {
  // SECURITY: the embedded ledger's cheat codes set any balance, so its JSON-RPC never binds
  // to HOST (the image sets 0.0.0.0): it is reachable from this machine only.
  const rpc = serveLedgerRpc(service.embeddedLedger, { host: "127.0.0.1", port: config.LOCAL_LEDGER_PORT, logger });
  servers.push(rpc);
  urls["ledgerRpc"] = rpc.url;
}
if (config.ROLE !== "registry") {
  const server = Bun.serve({ hostname: config.HOST, port: config.FACILITATOR_PORT, fetch: service.facilitatorApp.fetch });
  servers.push({ stop: () => server.stop() });
  urls["facilitator"] = server.url.origin;
}
if (config.ROLE !== "facilitator") {
  const server = Bun.serve({ hostname: config.HOST, port: config.REGISTRY_PORT, fetch: service.registryApp.fetch });
  servers.push({ stop: () => server.stop() });
  urls["registry"] = server.url.origin;
}
logger.info("ready", {
  urls,
  version: VERSION,
  role: config.ROLE,
  ledger: service.embeddedLedger ? "embedded" : "rpc",
  store: service.store.kind,
  feePayers: service.feePayers.addresses,
  startupMs: Math.round(performance.now() - startedAt),
});

let stopping = false;
async function shutdown(signal: string): Promise<void> {
  if (stopping) return;
  stopping = true;
  logger.info("shutting down", { signal, inFlightSettlements: service.settlement?.inFlight() ?? 0 });
  // Stop accepting connections first; in-flight requests and settlements then finish.
  await Promise.all(servers.map((s) => s.stop()));
  await service.close();
  logger.info("stopped");
  process.exit(0);
}
process.on("SIGTERM", () => void shutdown("SIGTERM"));
process.on("SIGINT", () => void shutdown("SIGINT"));
