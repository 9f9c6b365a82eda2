/**
 * `npm run config:check` (in the container, where npm is absent: `bun src/tools/config-check.ts`):
 * checks a deployment's settings the way the service reads them, then reaches every dependency
 * they name, printing one line per check (`ok   <setting>: ...` or `FAIL <setting>: ...`) and
 * exiting 0 only when nothing failed. `warn` and `note` lines do not fail the check: a variable
 * spelled almost like a setting outside production (production refuses it), and a production
 * facilitator open to anonymous callers with PAYTO_POLICY=any and no MIN_PAYMENT_AMOUNT.
 *
 * Settings: every variable (parseAppConfig), the NODE_ENV=production guard, the signer settings of
 * both roles, and the files settings name (payTo allowlist, API keys, categories, ledger programs,
 * token keys). Dependencies: the ledger (getHealth, and its genesis hash against NETWORK), the store (a statement and the schema
 * version; nothing is migrated), each signer (signs and verifies a test message, see
 * signer-check.ts), Redis (PING) when REDIS_URL is set.
 *
 * SECURITY: every line passes through the one redaction list, and any value of a secret-named
 * variable or any part of a URL setting's credentials is removed from it, whatever a driver put in
 * its error message.
 */
import { access, constants } from "node:fs/promises";
import { existsSync } from "node:fs";
import Redis from "ioredis";
import { createCategoryCatalog } from "../domain/registry/categories.ts";
import { loadSigningKey, loadVerificationKeys } from "../infrastructure/auth/jwt-keys.ts";
import { type AppConfig, parseAppConfig } from "../infrastructure/config/app-config.ts";
import { loadApiKeyHashes, loadConfiguredApiKeys, loadPayToAllowlist } from "../infrastructure/config/policy-files.ts";
import { loadConfiguredWebhooks } from "../infrastructure/webhooks/webhooks-file.ts";
import { productionProblems } from "../infrastructure/config/production-guard.ts";
import { describeMisspelling, misspelledSettings } from "../infrastructure/config/setting-names.ts";
import { parseLedgerPrograms } from "@x84/embedded-ledger";
import { createRpcLedger } from "../infrastructure/ledger/rpc-ledger.ts";
import { checkLedgerNetwork, describeNetworkMismatch } from "../application/ledger-network.ts";
import { describeDatabaseUrl, isSecretValue, redactUrl, scrubSecrets } from "../infrastructure/logging/redact.ts";
import { loadCategoryNames } from "../infrastructure/registry/categories-file.ts";
import { LATEST_SCHEMA_VERSION, type SqlExecutor, createPgliteExecutor, createPostgresExecutor, pgliteDirectory, readSchemaVersion } from "../infrastructure/store/index.ts";
import { checkSigners } from "./signer-check.ts";

type Env = Readonly<Record<string, string | undefined>>;
type Print = (line: string) => void;
type Outcome = Readonly<{ ok: boolean; detail: string }>;

/** How long one dependency may take to answer before it counts as unreachable. */
const TIMEOUT_MS = 5_000;

export async function runConfigCheck(env: Env, print: Print): Promise<number> {
  const safe = secretScrubber(env);
  let failed = 0;
  const report = (ok: boolean, subject: string, detail: string) => {
    if (!ok) failed += 1;
    print(safe(`${ok ? "ok  " : "FAIL"} ${subject}: ${detail}`));
  };

  const parsed = parseAppConfig(env);
  if (!parsed.ok) {
    // Each error starts with the variable's name; values are never part of them.
    for (const error of parsed.errors) report(false, "settings", error);
    print("config:check stopped: fix the settings above, then run it again to reach the dependencies");
    return 1;
  }
  const config = parsed.config;
  report(true, "settings", `every variable parses (ROLE=${config.ROLE}, ${config.NODE_ENV === "production" ? "NODE_ENV=production" : "development defaults allowed"})`);
  const refused = productionProblems(config, env);
  for (const problem of refused) report(false, "production guard", problem);
  if (config.NODE_ENV === "production" && refused.length === 0) report(true, "production guard", "every embedded default is replaced");
  // In production the guard above already refused them; elsewhere the service starts and warns.
  if (config.NODE_ENV !== "production") for (const misspelled of misspelledSettings(env)) print(safe(`warn settings: ${describeMisspelling(misspelled)}`));
  const open = openFacilitatorWarning(config, env);
  if (open) print(`warn facilitator: ${open}`);

  for (const [subject, check] of fileChecks(config)) {
    const outcome = await settle(check);
    report(outcome.ok, subject, outcome.detail);
  }

  const signers = await checkSigners(env, (line, status) => {
    if (status === "note") print(safe(`note signer: ${line}`));
    else report(status === "ok", "signer", line);
  });
  if (signers.checked === 0 && signers.failures === 0 && signers.waiting === 0) {
    const needed = config.ROLE !== "registry";
    print(`${needed ? "note" : "ok  "} signer: no signer configured${needed ? ": /settle answers 500 until FEE_PAYER_SIGNER is set" : ""}`);
  }

  for (const [subject, check] of dependencyChecks(config)) {
    const outcome = await settle(check);
    report(outcome.ok, subject, outcome.detail);
  }

  print(failed === 0 ? "config:check: everything checked is OK" : `config:check: ${failed} problem(s) found`);
  return failed === 0 ? 0 : 1;
}

type Check = () => Promise<Outcome>;

/**
 * A production facilitator that anyone may call (no API keys), paying for transfers to any
 * address (PAYTO_POLICY=any) of any amount (no MIN_PAYMENT_AMOUNT) spends its fee payers'
 * lamports on whoever asks, up to the fee budget. Allowed, but said out loud. MIN_PAYMENT_AMOUNT
 * is read raw: set means present, not empty and not 0.
 */
function openFacilitatorWarning(config: AppConfig, env: Env): string | null {
  if (config.NODE_ENV !== "production" || config.ROLE === "registry") return null;
  const minimum = env["MIN_PAYMENT_AMOUNT"]?.trim() ?? "";
  const minimumSet = minimum !== "" && !/^0+(\.0*)?$/.test(minimum);
  if (config.FACILITATOR_API_KEYS_FILE || config.PAYTO_POLICY !== "any" || minimumSet) return null;
  return (
    "open to anonymous callers: no FACILITATOR_API_KEYS_FILE, PAYTO_POLICY=any and no MIN_PAYMENT_AMOUNT, so anyone may have the fee payers " +
    "pay the fees of payments of any amount to any address (bounded only by the fee budget); set at least one of them"
  );
}

/** The files settings name, read and validated by the same loaders the service uses. */
function fileChecks(config: AppConfig): [string, Check][] {
  const checks: [string, Check][] = [];
  if (config.PAYTO_POLICY === "allowlist") {
    checks.push([
      "PAYTO_ALLOWLIST_FILE",
      async () => {
        if (!config.PAYTO_ALLOWLIST_FILE) return { ok: false, detail: "required by PAYTO_POLICY=allowlist" };
        return { ok: true, detail: `${(await loadPayToAllowlist(config.PAYTO_ALLOWLIST_FILE)).length} payTo address(es)` };
      },
    ]);
  }
  const apiKeys = config.FACILITATOR_API_KEYS_FILE;
  if (apiKeys) checks.push(["FACILITATOR_API_KEYS_FILE", async () => ({ ok: true, detail: `${(await loadApiKeyHashes(apiKeys)).length} API key hash(es)` })]);
  if (config.WEBHOOKS_FILE) {
    checks.push(["WEBHOOKS_FILE", async () => ({ ok: true, detail: `${(await loadConfiguredWebhooks(config, await loadConfiguredApiKeys(config))).length} webhook(s)` })]);
  }
  const categories = config.REGISTRY_CATEGORIES_FILE;
  if (categories) {
    checks.push(["REGISTRY_CATEGORIES_FILE", async () => ({ ok: true, detail: `${createCategoryCatalog(await loadCategoryNames(categories)).list.length} categories` })]);
  }
  const programs = parseLedgerPrograms(config.LEDGER_PROGRAMS);
  if (programs.length > 0) {
    checks.push([
      "LEDGER_PROGRAMS",
      async () => {
        if (config.SOLANA_RPC_URL) return { ok: false, detail: "only the embedded ledger loads programs; unset it with SOLANA_RPC_URL" };
        for (const [index, program] of programs.entries()) {
          const readable = await access(program.path, constants.R_OK).then(() => true, () => false);
          if (!readable) return { ok: false, detail: `entry ${index + 1} (${program.programId}): the program file cannot be read` };
        }
        return { ok: true, detail: `${programs.length} program file(s) readable` };
      },
    ]);
  }
  if (config.ROLE !== "facilitator") {
    const signingKey = config.AUTH_JWT_PRIVATE_KEY_FILE;
    if (signingKey) checks.push(["AUTH_JWT_PRIVATE_KEY_FILE", async () => ({ ok: true, detail: `token-signing key ${(await loadSigningKey(signingKey)).kid}` })]);
    const verifyKeys = config.AUTH_JWT_VERIFY_KEYS_FILE;
    if (verifyKeys) checks.push(["AUTH_JWT_VERIFY_KEYS_FILE", async () => ({ ok: true, detail: `${(await loadVerificationKeys(verifyKeys)).size} verification key(s)` })]);
  }
  return checks;
}

function dependencyChecks(config: AppConfig): [string, Check][] {
  return [
    ["SOLANA_RPC_URL", () => checkLedger(config)],
    ["DATABASE_URL", () => checkStore(config)],
    ["REDIS_URL", () => checkRedis(config)],
  ];
}

async function checkLedger(config: AppConfig): Promise<Outcome> {
  const url = config.SOLANA_RPC_URL;
  if (!url) return { ok: true, detail: "unset: the embedded ledger runs inside the service (nothing to reach)" };
  const started = performance.now();
  const ledger = createRpcLedger({ url, timeoutMs: TIMEOUT_MS });
  try {
    await ledger.ping();
  } catch (error) {
    return { ok: false, detail: `${redactUrl(url)} does not answer getHealth: ${messageOf(error)}` };
  }
  const answered = `${redactUrl(url)} answers getHealth (${elapsed(started)})`;
  // The service refuses to start on a ledger that is another network than NETWORK says.
  const network = await checkLedgerNetwork(ledger, config.NETWORK);
  if (network.kind === "mismatch") return { ok: false, detail: `${answered}, but ${describeNetworkMismatch(config.NETWORK, network)}` };
  if (network.kind === "unreachable") return { ok: false, detail: `${answered}, but not getGenesisHash (NETWORK cannot be checked): ${network.error}` };
  return { ok: true, detail: `${answered}; its genesis hash names NETWORK ${config.NETWORK}` };
}

async function checkStore(config: AppConfig): Promise<Outcome> {
  const url = config.DATABASE_URL;
  if (url) {
    const target = describeDatabaseUrl(url);
    const started = performance.now();
    let executor: SqlExecutor | null = null;
    try {
      executor = createPostgresExecutor({ databaseUrl: url, maxConnections: 1, connectTimeoutSeconds: TIMEOUT_MS / 1000 });
      await executor.query("SELECT 1");
      return { ok: true, detail: `${target} answers (${elapsed(started)}); ${await schemaOf(executor)}` };
    } catch (error) {
      return { ok: false, detail: `${target} cannot be reached: ${messageOf(error)}` };
    } finally {
      await executor?.close().catch(() => undefined);
    }
  }
  const directory = pgliteDirectory(config.DATA_DIR);
  if (!existsSync(directory)) return { ok: true, detail: "unset: embedded PGlite, created in DATA_DIR/pglite at the first start" };
  let executor: SqlExecutor | null = null;
  try {
    executor = await createPgliteExecutor({ directory });
    return { ok: true, detail: `unset: embedded PGlite in DATA_DIR/pglite; ${await schemaOf(executor)}` };
  } catch (error) {
    // PGlite serves one process: a running service holds its directory.
    if (/in use by process/.test(messageOf(error))) return { ok: true, detail: "unset: embedded PGlite in DATA_DIR/pglite, open in the running service" };
    return { ok: false, detail: `embedded PGlite in DATA_DIR/pglite cannot be opened: ${messageOf(error)}` };
  } finally {
    await executor?.close().catch(() => undefined);
  }
}

/** The schema version against this release's; the service migrates forward at start, never back. */
async function schemaOf(executor: SqlExecutor): Promise<string> {
  const exists = await executor.query("SELECT to_regclass('schema_migrations') IS NOT NULL AS present");
  if (exists[0]?.["present"] !== true) return `empty database: the service creates schema v${LATEST_SCHEMA_VERSION} at start`;
  const version = await readSchemaVersion(executor);
  if (version === LATEST_SCHEMA_VERSION) return `schema v${version} (current)`;
  if (version < LATEST_SCHEMA_VERSION) return `schema v${version}: the service migrates it to v${LATEST_SCHEMA_VERSION} at start`;
  return `schema v${version} is newer than this release's v${LATEST_SCHEMA_VERSION} (a rollback?): the service runs, logging a warning`;
}

async function checkRedis(config: AppConfig): Promise<Outcome> {
  const url = config.REDIS_URL;
  if (!url) return { ok: true, detail: "unset: the shared window counters live in the database" };
  const redis = new Redis(url, { lazyConnect: true, connectTimeout: TIMEOUT_MS, maxRetriesPerRequest: 0, enableOfflineQueue: false, retryStrategy: () => null });
  // The client reports the cause (ECONNREFUSED, NOAUTH...) as an event and rejects with a generic
  // "Connection is closed"; keep the cause for the line.
  let cause: unknown = null;
  redis.on("error", (error: unknown) => void (cause = error));
  const started = performance.now();
  try {
    await withTimeout(redis.connect(), TIMEOUT_MS);
    const answer = await withTimeout(redis.ping(), TIMEOUT_MS);
    return { ok: answer === "PONG", detail: `${redactUrl(url)} answers PING (${elapsed(started)})` };
  } catch (error) {
    return { ok: false, detail: `${redactUrl(url)} cannot be reached: ${messageOf(cause ?? error)}` };
  } finally {
    redis.disconnect();
  }
}

/**
 * SECURITY: what a driver says about a failure may quote the URL it was given or a secret; every
 * line is scrubbed of each URL setting's credentials, of every secret-named variable's value
 * (keys, PINs, passwords) and of credentials anywhere in URLs (the one redaction list).
 */
function secretScrubber(env: Env): (text: string) => string {
  const urls = ["SOLANA_RPC_URL", "SOLANA_WS_URL", "DATABASE_URL", "REDIS_URL"].map((name) => env[name]);
  const secrets = Object.entries(env)
    .filter(([name, value]) => isSecretValue(name, value))
    .map(([, value]) => String(value).trim())
    .sort((a, b) => b.length - a.length);
  return (text) => {
    let out = scrubSecrets(text, urls);
    for (const secret of secrets) out = out.split(secret).join("***");
    return out;
  };
}

async function settle(check: Check): Promise<Outcome> {
  try {
    return await check();
  } catch (error) {
    return { ok: false, detail: messageOf(error) };
  }
}

function withTimeout<T>(work: Promise<T>, ms: number): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const expired = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms)));
  return Promise.race([work, expired]).finally(() => clearTimeout(timer));
}

function messageOf(error: unknown): string {
  if (error instanceof Error) {
    const code = "code" in error && typeof error.code === "string" ? ` (${error.code})` : "";
    return `${error.message}${code}`.replace(/\s+/g, " ").slice(0, 300);
  }
  return String(error).slice(0, 300);
}

function elapsed(started: number): string {
  return `${Math.round(performance.now() - started)} ms`;
}

if (import.meta.main) {
  const code = await runConfigCheck(process.env, (line) => console.log(line));
  process.exit(code);
}
