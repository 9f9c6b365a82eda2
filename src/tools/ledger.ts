/**
 * `npm run ledger` (development only): the embedded ledger's Solana JSON-RPC alone, in its own
 * process, so the service can run in its production shape against it (`SOLANA_RPC_URL` pointing
 * here, NODE_ENV=production allowed) instead of carrying the ledger in its own process.
 *
 * Settings: LOCAL_LEDGER_PORT (default 8899; 0 picks a free port), LEDGER_SEED (64 hex digits:
 * the same seed gives the same faucet key and blockhash sequence; random by default),
 * LEDGER_PROGRAMS (program binaries to deploy, as for the service), USDC_MINT (the mints created
 * at boot), SEED_SAMPLE_AGENTS (true: write the development sample registry, as `npm start`
 * does), LOG_LEVEL. Logs JSON lines; `ledger ready` carries the URL. SIGTERM or SIGINT stops it.
 *
 * SECURITY: the ledger's cheat codes set any balance: it binds 127.0.0.1 only, and refuses to
 * start with NODE_ENV=production (a container's default), where nothing should trust it.
 */
import type { Address } from "@solana/kit";
import { parseLedgerPrograms } from "@x84/embedded-ledger";
import { acceptedAssetsOf, parseAppConfig } from "../infrastructure/config/app-config.ts";
import { createLocalLedger, serveLocalLedgerRpc } from "../infrastructure/ledger/local-ledger.ts";
import { createJsonLogger } from "../infrastructure/logging/json-logger.ts";
import { seedSampleAgents } from "../infrastructure/registry/sample-agents/seed-sample-agents.ts";

type Env = Readonly<Record<string, string | undefined>>;

const SEED_PATTERN = /^[0-9a-fA-F]{64}$/;

/** Starts the ledger; resolves with its URL and a stop function, or rejects naming the setting to fix. */
export async function startLedger(env: Env): Promise<Readonly<{ url: string; stop(): Promise<void> }>> {
  if (env["NODE_ENV"] === "production") throw new Error("NODE_ENV=production: the embedded ledger is for development (its cheat codes mint balances); unset NODE_ENV to run it");
  const parsed = parseAppConfig(env);
  if (!parsed.ok) throw new Error(parsed.errors.join("; "));
  const config = parsed.config;
  const seedSetting = env["LEDGER_SEED"]?.trim();
  if (seedSetting && !SEED_PATTERN.test(seedSetting)) throw new Error("LEDGER_SEED: expected 64 hexadecimal digits (32 bytes)");
  const logger = createJsonLogger(config.LOG_LEVEL);
  const mints = [...acceptedAssetsOf(config)] as Address[];
  const ledger = createLocalLedger({
    logger: logger.child({ component: "ledger" }),
    programs: parseLedgerPrograms(config.LEDGER_PROGRAMS),
    mints,
    ...(seedSetting ? { seed: Uint8Array.from(Buffer.from(seedSetting, "hex")) } : {}),
  });
  if (config.SEED_SAMPLE_AGENTS === true) {
    logger.info("seeded sample agents", await seedSampleAgents(ledger, { programId: config.REGISTRY_PROGRAM_ID as Address, usdcMint: mints[0]! }));
  }
  let server;
  try {
    server = serveLocalLedgerRpc(ledger, { host: "127.0.0.1", port: config.LOCAL_LEDGER_PORT, logger });
  } catch (error) {
    const code = typeof error === "object" && error !== null && "code" in error ? ` (${String(error.code)})` : "";
    throw new Error(`LOCAL_LEDGER_PORT: cannot listen on 127.0.0.1:${config.LOCAL_LEDGER_PORT}${code}`);
  }
  logger.info("ledger ready", { url: server.url, seedFrom: seedSetting ? "LEDGER_SEED" : "random" });
  return server;
}

if (import.meta.main) {
  try {
    const server = await startLedger(process.env);
    const stop = () => void server.stop().then(() => process.exit(0), () => process.exit(1));
    process.on("SIGTERM", stop);
    process.on("SIGINT", stop);
  } catch (error) {
    // Messages name settings, never values (parseAppConfig and the ledger's program loader).
    console.error(JSON.stringify({ level: "error", msg: "ledger start-up failed", error: error instanceof Error ? error.message : String(error) }));
    process.exit(1);
  }
}
