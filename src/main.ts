/**
 * Composition root: the only module that reads the environment. Parses configuration once,
 * builds the service, serves the interfaces ROLE selects, and shuts down within a bound.
 */
import type { FetchHandler, HttpListener, ListeningServer } from "./infrastructure/http-listener/http-listener.ts";
import type { Service } from "./composition/service.ts";
import { compilePgliteWasm } from "./infrastructure/store/pglite-wasm.ts";

// The embedded database's WebAssembly (9 MB) compiles on another thread while every module below
// loads (pglite-wasm.ts), so it is started before them: this file's static imports would load
// first, and the configuration's schema and the logger alone take ~100 ms of a start. Only the
// one setting that decides PGlite is looked at here; a configuration refused below merely leaves
// an unused compile behind (it keeps no process alive).
if (!process.env["DATABASE_URL"]) void compilePgliteWasm().catch(() => undefined);
const [{ adminPortOf }, { parseServiceConfig }, { productionProblems }, { describeMisspelling, misspelledSettings }, { runtimeHttpListener }, { createJsonLogger }, { isCoded }] =
  await Promise.all([
    import("./infrastructure/config/app-config.ts"),
    import("./infrastructure/config/service-config.ts"),
    import("./infrastructure/config/production-guard.ts"),
    import("./infrastructure/config/setting-names.ts"),
    import("./infrastructure/http-listener/runtime-http-listener.ts"),
    import("./infrastructure/logging/json-logger.ts"),
    import("./domain/coded-error.ts"),
  ]);

/**
 * A backstop behind the error layer's 64 KiB cap: the listener itself refuses anything larger
 * (Bun natively; the Deno adapter counts).
 */
const MAX_REQUEST_BODY_BYTES = 1024 * 1024;

// Every setting, the signers of both roles included, parsed here once (service-config.ts).
const parsed = parseServiceConfig(process.env);
if (!parsed.ok && parsed.failed === "app") {
  console.error(JSON.stringify({ level: "error", msg: "invalid configuration", errors: parsed.errors }));
  process.exit(1);
}
// SECURITY: in production a missing setting must stop the boot, not fall back to the embedded
// ledger (whose cheat codes mint balances), the embedded database or a generated key.
const refused = productionProblems(parsed.config, process.env);
if (refused.length > 0) {
  console.error(JSON.stringify({ level: "error", msg: "refusing to start: NODE_ENV=production needs these settings", errors: refused }));
  process.exit(1);
}
const logger = createJsonLogger(parsed.config.LOG_LEVEL);
// Outside production a misspelled setting is a warning (production refuses it above).
for (const misspelled of misspelledSettings(process.env)) logger.warn("unknown setting", { problem: describeMisspelling(misspelled) });
if (!parsed.ok) {
  logger.error("start-up failed", { errors: parsed.errors });
  process.exit(1);
}
const config = parsed.config;
const startedAt = performance.now();

// Idempotent: starts the compile if the early look above did not (a DATABASE_URL of blanks).
if (!config.DATABASE_URL) void compilePgliteWasm().catch(() => undefined);
const { VERSION, buildService, serveLocalLedgerRpc } = await import("./composition/service.ts");

// Bun.serve or Deno.serve, whichever runtime runs this process (`deno task start`, deno.json).
let httpListener: HttpListener;
try {
  httpListener = runtimeHttpListener();
} catch (error) {
  logger.error("start-up failed", { errors: [error instanceof Error ? error.message : String(error)] });
  process.exit(1);
}

let service: Service;
try {
  service = await buildService(config, process.env, logger);
} catch (error) {
  const problems = isCoded(error, "CONFIGURATION_INVALID") ? [error.detail].flat() : [error instanceof Error ? error.message : String(error)];
  logger.error("start-up failed", { errors: problems });
  process.exit(1);
}

type PortSetting = "FACILITATOR_PORT" | "REGISTRY_PORT" | "LOCAL_LEDGER_PORT" | "ADMIN_PORT";

/** What shutdown needs of each listening server. */
type Listener = Readonly<{ name: string; stop(): Promise<void>; forceStop(): void; pendingRequests(): number }>;

const listeners: Listener[] = [];
const urls: Record<string, string> = {};
const embeddedLedger = service.embeddedLedger;
if (embeddedLedger) {
  // SECURITY: the embedded ledger's cheat codes set any balance, so its JSON-RPC never binds
  // to HOST (the image sets 0.0.0.0): it is reachable from this machine only.
  const rpc = listen("ledgerRpc", "LOCAL_LEDGER_PORT", "127.0.0.1", config.LOCAL_LEDGER_PORT, () =>
    serveLocalLedgerRpc(embeddedLedger, { host: "127.0.0.1", port: config.LOCAL_LEDGER_PORT, logger, listener: httpListener }),
  );
  listeners.push({ name: "ledgerRpc", stop: () => rpc.stop(), forceStop: () => void rpc.stop(), pendingRequests: () => 0 });
  urls["ledgerRpc"] = rpc.url;
}
if (config.ROLE !== "registry") serveApp("facilitator", "FACILITATOR_PORT", config.FACILITATOR_PORT, service.facilitatorApp.fetch);
if (config.ROLE !== "facilitator") {
  // The registry limits per client address, which only the listener knows.
  serveApp("registry", "REGISTRY_PORT", config.REGISTRY_PORT, (request, connection) => {
    service.clientAddresses.remember(request, connection.remoteAddress);
    return service.registryApp.fetch(request);
  });
}
// /metrics, /openapi and /docs: the only place they are served in production (docs/deploy.md).
const adminPort = adminPortOf(config);
const admin = service.admin;
if (adminPort !== null && admin) serveApp("admin", "ADMIN_PORT", adminPort, (request) => admin(request));

function serveApp(name: string, setting: PortSetting, port: number, fetch: FetchHandler): void {
  const server: ListeningServer = listen(name, setting, config.HOST, port, () =>
    httpListener.listen({ hostname: config.HOST, port, maxRequestBodySize: MAX_REQUEST_BODY_BYTES, fetch, onError: unhandled }),
  );
  listeners.push({
    name,
    stop: () => server.stop(),
    forceStop: () => void server.stop(true),
    pendingRequests: () => server.pendingRequests(),
  });
  urls[name] = server.url;
}

/** What escaped an app's error layer: logged by name and message (the client got a bare 500). */
function unhandled(error: unknown): void {
  logger.error("unhandled error in the listener", { error: error instanceof Error ? `${error.name}: ${error.message}` : String(error) });
}

/**
 * Starts a server or stops the boot with one log line naming the setting to fix. SECURITY: the
 * runtime's own error carries the host and port, so neither it nor the values are logged.
 */
function listen<T>(name: string, setting: PortSetting, host: string, port: number, start: () => T): T {
  try {
    return start();
  } catch (error) {
    logger.error("cannot listen", { interface: name, ...listenFailure(error, setting, host, port) });
    process.exit(1);
  }
}

function listenFailure(error: unknown, setting: PortSetting, host: string, port: number): { setting: string; reason: string; code?: string } {
  const raw = error && typeof error === "object" && "code" in error ? String(error.code) : "";
  const code = /^E[A-Z]{2,20}$/.test(raw) ? { code: raw } : {};
  if (raw === "EACCES") return { setting, reason: "permission denied: ports below 1024 need privileges", ...code };
  // Bun also says EADDRINUSE for a hostname it cannot resolve, so the port is only blamed
  // when the same host binds a free port. (Deno says EADDRNOTAVAIL, or gives no code, for a
  // host that is not ours or not resolvable.)
  if (raw === "EADDRINUSE" && port !== 0 && canBind(host)) return { setting, reason: "port already in use", ...code };
  return { setting: "HOST", reason: "cannot bind: not an address of this machine, or not resolvable", ...code };
}

function canBind(host: string): boolean {
  try {
    void httpListener.listen({ hostname: host, port: 0, maxRequestBodySize: 0, fetch: () => new Response(null, { status: 503 }) }).stop(true);
    return true;
  } catch {
    return false;
  }
}

let stopping = false;
/**
 * Stops accepting connections, lets in-flight requests and settlements finish, closes the
 * store. The whole sequence is bounded by SHUTDOWN_GRACE_SECONDS: a hung request must not keep
 * the process past what the orchestrator allows. At the deadline, connections are cut and
 * the exit code is 1, so the cut-off is visible.
 */
async function shutdown(signal: string): Promise<void> {
  if (stopping) return;
  stopping = true;
  const graceMs = config.SHUTDOWN_GRACE_SECONDS * 1000;
  const deadline = Date.now() + graceMs;
  logger.info("shutting down", { signal, graceSeconds: config.SHUTDOWN_GRACE_SECONDS, inFlightSettlements: inFlight() });
  const open = new Set(listeners.map((l) => l.name));
  const sequence = (async () => {
    await Promise.all(listeners.map(async (l) => {
      await l.stop();
      open.delete(l.name);
    }));
    open.add("service");
    await service.close(Math.max(0, deadline - Date.now()));
    open.delete("service");
  })();
  let timer: ReturnType<typeof setTimeout> | undefined;
  const expired = new Promise<"deadline">((resolve) => (timer = setTimeout(() => resolve("deadline"), graceMs)));
  try {
    if ((await Promise.race([sequence.then(() => "done" as const), expired])) === "done") {
      clearTimeout(timer);
      logger.info("stopped");
      process.exit(0);
    }
    logger.error("shutdown deadline passed; closing connections", { graceSeconds: config.SHUTDOWN_GRACE_SECONDS, stillOpen: stillOpen(open) });
  } catch (error) {
    logger.error("shutdown failed", { error: error instanceof Error ? error.message : String(error), stillOpen: stillOpen(open) });
  }
  for (const l of listeners) l.forceStop();
  process.exit(1);
}

function stillOpen(open: ReadonlySet<string>): Record<string, unknown>[] {
  return [...open].map((name) =>
    name === "service"
      ? { name, inFlightSettlements: inFlight() }
      : { name, pendingRequests: listeners.find((l) => l.name === name)?.pendingRequests() ?? 0 },
  );
}

function inFlight(): number {
  return service.settlement?.inFlight() ?? 0;
}

// Handlers are in place before "ready" is announced: a SIGTERM sent right after it would
// otherwise kill the process without a graceful stop.
process.on("SIGTERM", () => void shutdown("SIGTERM"));
process.on("SIGINT", () => void shutdown("SIGINT"));
logger.info("ready", {
  urls,
  version: VERSION,
  runtime: httpListener.runtime,
  role: config.ROLE,
  ledger: service.embeddedLedger ? "embedded" : "rpc",
  store: service.store.kind,
  feePayers: service.feePayers.addresses,
  startupMs: Math.round(performance.now() - startedAt),
});
