import { type Static, Type } from "@sinclair/typebox";
import { Value } from "@sinclair/typebox/value";
import { CAIP2_PATTERN, SOLANA_DEVNET, defaultAssetsOf } from "../../domain/networks.ts";
import { DEFAULT_REGISTRY_PROGRAM_ID } from "../../domain/registry/pdas.ts";

const Base58Address = Type.String({ pattern: "^[1-9A-HJ-NP-Za-km-z]{32,44}$" });
const Port = Type.Integer({ minimum: 0, maximum: 65535 });
/** A web origin as browsers send it: scheme, host (a name or a bracketed IPv6 address), optional port; no path. */
const ORIGIN = "https?://(\\[[0-9A-Fa-f:.]{2,45}\\]|[A-Za-z0-9-]{1,63}(\\.[A-Za-z0-9-]{1,63})*)(:[0-9]{1,5})?";

/** Every environment setting except signers (parsed by the signer config), with its default. */
export const AppConfigSchema = Type.Object({
  ROLE: Type.Union([Type.Literal("all"), Type.Literal("registry"), Type.Literal("facilitator")], { default: "all" }),
  HOST: Type.String({ minLength: 1, default: "127.0.0.1" }),
  REGISTRY_PORT: Type.Integer({ ...Port, default: 3000 }),
  FACILITATOR_PORT: Type.Integer({ ...Port, default: 4020 }),
  LOCAL_LEDGER_PORT: Type.Integer({ ...Port, default: 8899 }),
  /** /metrics, /openapi and /docs (bound to HOST); unset -> 9090 in production, none elsewhere (adminPortOf). */
  ADMIN_PORT: Type.Optional(Type.Integer({ ...Port })),
  DATA_DIR: Type.String({ minLength: 1, default: "./.data" }),
  SOLANA_RPC_URL: Type.Optional(Type.String({ pattern: "^https?://" })),
  DATABASE_URL: Type.Optional(Type.String({ pattern: "^postgres(ql)?://" })),
  DATABASE_POOL_MAX: Type.Integer({ minimum: 1, maximum: 1000, default: 10 }),
  /** Apply pending migrations at boot (a laptop); false: only check the schema is current (`npm run migrate` does it). */
  MIGRATE_ON_BOOT: Type.Boolean({ default: true }),
  RECONCILE_INTERVAL_SECONDS: Type.Integer({ minimum: 1, maximum: 3600, default: 15 }),
  /** Failed settlement records younger than this are asked about again (landed after all? settled); 0 turns it off. */
  RECONCILE_RECHECK_FAILED_MINUTES: Type.Integer({ minimum: 0, maximum: 1440, default: 30 }),
  NETWORK: Type.String({ pattern: CAIP2_PATTERN, default: SOLANA_DEVNET }),
  /**
   * The accepted assets, comma-separated (the first is the one a development ledger funds).
   * Unset -> defaultAssetsOf(NETWORK): on devnet both devnet USDCs (acceptedAssetsOf).
   */
  USDC_MINT: Type.Optional(Type.String({ pattern: "^[1-9A-HJ-NP-Za-km-z]{32,44}(\\s*,\\s*[1-9A-HJ-NP-Za-km-z]{32,44})*$" })),
  VERIFY_SIMULATE: Type.Boolean({ default: true }),
  VERIFY_MAX_COMPUTE_UNIT_LIMIT: Type.Integer({ minimum: 1, maximum: 1_400_000, default: 400_000 }),
  VERIFY_MAX_COMPUTE_UNIT_PRICE: Type.Integer({ minimum: 0, default: 5_000_000 }),
  VERIFY_MAX_INSTRUCTIONS: Type.Integer({ minimum: 1, maximum: 64, default: 8 }),
  REGISTRY_PROGRAM_ID: Type.String({ ...Base58Address, default: DEFAULT_REGISTRY_PROGRAM_ID }),
  REGISTRY_CACHE_TTL_SECONDS: Type.Integer({ minimum: 0, maximum: 86_400, default: 30 }),
  /** Full reads of the registry while its programSubscribe feed is live (docs/registry.md). */
  REGISTRY_RECONCILE_INTERVAL_SECONDS: Type.Integer({ minimum: 10, maximum: 86_400, default: 300 }),
  /** The node's WebSocket pubsub; default: SOLANA_RPC_URL with ws(s):// (same host and port). */
  SOLANA_WS_URL: Type.Optional(Type.String({ pattern: "^wss?://" })),
  REGISTRY_CATEGORIES_FILE: Type.Optional(Type.String({ minLength: 1 })),
  LOG_LEVEL: Type.Union(
    [Type.Literal("debug"), Type.Literal("info"), Type.Literal("warn"), Type.Literal("error"), Type.Literal("silent")],
    { default: "info" },
  ),
  SHUTDOWN_GRACE_SECONDS: Type.Integer({ minimum: 0, maximum: 600, default: 25 }),
  /**
   * `production` refuses the embedded ledger, the embedded database and the development key.
   * SECURITY: only these three spellings: `Production` or `prod` used to boot full development mode.
   */
  NODE_ENV: Type.Optional(Type.Union([Type.Literal("development"), Type.Literal("test"), Type.Literal("production")])),
  /** What a settle after the first for one payment answers: the spec's idempotent success, or a refusal. */
  SETTLE_DUPLICATES: Type.Union([Type.Literal("replay"), Type.Literal("reject")], { default: "replay" }),
  /**
   * How long /settle waits for confirmation before answering `settlement_pending` with the broadcast
   * signature (confirmation goes on); also how long a retry of the same payment waits for it.
   */
  SETTLE_CONFIRM_DEADLINE_MS: Type.Integer({ minimum: 100, maximum: 120_000, default: 15_000 }),
  /**
   * Over JSON-RPC, also ask the node's pubsub (SOLANA_WS_URL) for each settlement's confirmation
   * (`signatureSubscribe`), beside status polling. Off by default until a quiet bench shows it pays
   * for its messages (docs/performance.md, issue 26's third round); some providers bill each
   * subscription.
   */
  SETTLE_CONFIRM_PUSH: Type.Boolean({ default: false }),
  /** Bazaar discovery (docs/discovery.md): catalogue resources declared in settled payments. */
  DISCOVERY_ENABLED: Type.Boolean({ default: true }),
  /** How long a catalogue entry stays listed after the last payment that refreshed it. */
  DISCOVERY_TTL_SECONDS: Type.Integer({ minimum: 60, maximum: 31_536_000, default: 604_800 }),
  /** Largest declaration (its JSON) catalogued; a larger one is ignored and counted. */
  DISCOVERY_MAX_ENTRY_BYTES: Type.Integer({ minimum: 1_024, maximum: 262_144, default: 16_384 }),
  /** Most live catalogue entries one payTo may hold; past it new resources are ignored and counted. */
  DISCOVERY_MAX_ENTRIES_PER_PAY_TO: Type.Integer({ minimum: 1, maximum: 10_000, default: 100 }),
  PAYTO_POLICY: Type.Union([Type.Literal("any"), Type.Literal("allowlist"), Type.Literal("registered-agents")], { default: "any" }),
  PAYTO_ALLOWLIST_FILE: Type.Optional(Type.String({ minLength: 1 })),
  FACILITATOR_API_KEYS_FILE: Type.Optional(Type.String({ minLength: 1 })),
  /** Signed settlement webhooks (docs/settlement.md#webhooks): a JSON array of {url, secret, events, apiKey?}. */
  WEBHOOKS_FILE: Type.Optional(Type.String({ minLength: 1 })),
  /** How long one webhook delivery waits for the receiver's answer before it is retried later. */
  WEBHOOK_TIMEOUT_MS: Type.Integer({ minimum: 100, maximum: 60_000, default: 10_000 }),
  /** The first retry delay of a failed delivery; each further one doubles (up to an hour), for 24 hours. */
  WEBHOOK_RETRY_BASE_MS: Type.Integer({ minimum: 10, maximum: 3_600_000, default: 5_000 }),
  /** How often an idle delivery worker looks for new events. */
  WEBHOOK_POLL_INTERVAL_MS: Type.Integer({ minimum: 10, maximum: 60_000, default: 1_000 }),
  /** With an API keys file: false admits callers without a key as anonymous (they spend only the unreserved fee budget). */
  FACILITATOR_API_KEYS_REQUIRED: Type.Boolean({ default: true }),
  /** Share of each fee payer's budget that only API-key callers may spend, in percent. */
  FEE_BUDGET_RESERVED_FOR_API_KEYS_PERCENT: Type.Integer({ minimum: 0, maximum: 100, default: 0 }),
  /**
   * Smallest payment accepted, in the asset's base units: one number for every accepted asset, or
   * `<mint>=<amount>` pairs, comma-separated (unlisted assets: 0). 0 accepts any non-zero amount.
   */
  MIN_PAYMENT_AMOUNT: Type.String({
    pattern: "^(\\d{1,20}|[1-9A-HJ-NP-Za-km-z]{32,44}=\\d{1,20}(\\s*,\\s*[1-9A-HJ-NP-Za-km-z]{32,44}=\\d{1,20})*)$",
    default: "0",
  }),
  /** Token-2022 mints with a transfer fee: `refuse` (TRANSFER_FEE_NOT_ALLOWED) or `gross-up` (TransferCheckedWithFee, payee receives the amount). */
  TOKEN_2022_TRANSFER_FEE: Type.Union([Type.Literal("refuse"), Type.Literal("gross-up")], { default: "refuse" }),
  /** Token-2022 mints whose permanent delegate is accepted, comma-separated; others: PERMANENT_DELEGATE_NOT_ALLOWED. */
  TOKEN_2022_ALLOW_PERMANENT_DELEGATE: Type.String({ pattern: "^([1-9A-HJ-NP-Za-km-z]{32,44}(\\s*,\\s*[1-9A-HJ-NP-Za-km-z]{32,44})*)?$", default: "" }),
  /** Cap on compute-unit limit x price of one transaction, in lamports. */
  PRIORITY_FEE_MAX_LAMPORTS: Type.Integer({ minimum: 0, maximum: 1_000_000_000, default: 25_000 }),
  /** Lamports our fee payers may spend for one payer, and for each fee payer, per window. */
  FEE_BUDGET_PER_PAYER_LAMPORTS: Type.Integer({ minimum: 1, default: 10_000_000 }),
  FEE_BUDGET_PER_FEE_PAYER_LAMPORTS: Type.Integer({ minimum: 1, default: 1_000_000_000 }),
  FEE_BUDGET_WINDOW_SECONDS: Type.Integer({ minimum: 1, maximum: 86_400, default: 3600 }),
  /** Shared fee-budget counters; unset -> the settlement database holds them. */
  REDIS_URL: Type.Optional(Type.String({ pattern: "^rediss?://" })),
  /** Bounds of every Redis call: past them the limits fail closed (503, FEE_BUDGET_UNAVAILABLE), never hang. */
  REDIS_CONNECT_TIMEOUT_MS: Type.Integer({ minimum: 10, maximum: 10_000, default: 500 }),
  REDIS_COMMAND_TIMEOUT_MS: Type.Integer({ minimum: 10, maximum: 10_000, default: 500 }),
  /** Each JSON-RPC call to SOLANA_RPC_URL; below the HTTP idle timeout (10 s), so a stalled node gets an answer, not a reset. */
  LEDGER_RPC_TIMEOUT_MS: Type.Integer({ minimum: 100, maximum: 9000, default: 3000 }),
  /** Consecutive failed probes of a check before GET /health/ready turns it down (503). */
  READINESS_FAILURE_THRESHOLD: Type.Integer({ minimum: 1, maximum: 20, default: 3 }),
  /** /health is degraded while a fee payer holds fewer lamports than this. */
  FEE_PAYER_MIN_BALANCE_LAMPORTS: Type.Integer({ minimum: 0, default: 50_000_000 }),
  /** Override the on-chain ProtocolConfig's collection and fee treasury in register_agent. */
  REGISTRY_COLLECTION: Type.Optional(Type.String({ ...Base58Address })),
  REGISTRY_FEE_TREASURY: Type.Optional(Type.String({ ...Base58Address })),
  /** POST /agents/register calls per client address per minute (each is a config-authority signature). */
  REGISTER_RATE_LIMIT_PER_MINUTE: Type.Integer({ minimum: 1, maximum: 100_000, default: 10 }),
  /** Take the client address from X-Forwarded-For's last hop: only behind a proxy that sets it. */
  RATE_LIMIT_TRUST_FORWARDED_FOR: Type.Boolean({ default: false }),
  /** Embedded ledger only: program binaries to load, `<programId>=<path.so>,...`. */
  LEDGER_PROGRAMS: Type.Optional(Type.String({ pattern: "^[1-9A-HJ-NP-Za-km-z]{32,44}=[^,]+(,[1-9A-HJ-NP-Za-km-z]{32,44}=[^,]+)*$" })),
  /** Gateway that `ipfs://<cid>/path` metadata URIs are fetched through: https on port 443, no credentials. */
  IPFS_GATEWAY_URL: Type.String({ pattern: "^https://[^/?#@:]+(/[^?#]*)?$", default: "https://ipfs.io/ipfs/" }),
  /**
   * Registration may fetch metadata from `http://127.0.0.1` and `http://localhost` (any port), for a
   * developer serving it on a laptop. Unset -> true with the embedded ledger, false with SOLANA_RPC_URL
   * (metadataLoopbackAllowed); NODE_ENV=production refuses true (production-guard.ts).
   */
  METADATA_ALLOW_LOOPBACK: Type.Optional(Type.Boolean()),
  /** One deadline for a whole metadata fetch: DNS, connect, TLS, redirects and body. */
  METADATA_FETCH_TIMEOUT_MS: Type.Integer({ minimum: 100, maximum: 60_000, default: 5000 }),
  /**
   * Sign-In With Solana (docs/auth.md). The domain and URI written into every challenge come from
   * here, never from a request's Host header, so a hostile Host cannot get a message for another site.
   */
  AUTH_DOMAIN: Type.String({ pattern: "^[A-Za-z0-9.-]{1,253}(:[0-9]{1,5})?$", default: "localhost:3000" }),
  AUTH_URI: Type.String({ pattern: "^https?://[!-~]{1,500}$", default: "http://localhost:3000" }),
  /**
   * Browser origins that may call POST /agents/register, /auth/* and GET /users/me (docs/auth.md,
   * "Browsers"): comma-separated `scheme://host[:port]`, or `*` for any; unset -> AUTH_URI's origin.
   */
  AUTH_ALLOWED_ORIGINS: Type.Optional(Type.String({ pattern: `^(\\*|${ORIGIN}(\\s*,\\s*${ORIGIN})*)$` })),
  AUTH_CHALLENGE_TTL_SECONDS: Type.Integer({ minimum: 10, maximum: 3600, default: 300 }),
  AUTH_TOKEN_TTL_SECONDS: Type.Integer({ minimum: 60, maximum: 86_400, default: 3600 }),
  /** Ed25519 private JWK or PKCS#8 PEM; unset -> a development key in DATA_DIR (refused in production). */
  AUTH_JWT_PRIVATE_KEY_FILE: Type.Optional(Type.String({ minLength: 1 })),
  /** JWKS of extra Ed25519 public keys accepted for verification, selected by kid (key rotation). */
  AUTH_JWT_VERIFY_KEYS_FILE: Type.Optional(Type.String({ minLength: 1 })),
  /** POST /auth/challenge calls per client address per minute, across replicas (each stores a row). */
  AUTH_CHALLENGE_RATE_LIMIT_PER_MINUTE: Type.Integer({ minimum: 1, maximum: 100_000, default: 10 }),
  /** Opt-in protocol-fee split (the x84 client's two transfers): the treasury wallet and its share. */
  PROTOCOL_FEE_TREASURY: Type.Optional(Type.String({ ...Base58Address })),
  PROTOCOL_FEE_BPS: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000 })),
  /**
   * Write the sample agents (and one payable merchant) into the embedded ledger at boot. Unset ->
   * true with the embedded ledger, false with SOLANA_RPC_URL; true with SOLANA_RPC_URL stops the boot.
   */
  SEED_SAMPLE_AGENTS: Type.Optional(Type.Boolean()),
});

export type AppConfig = Readonly<Static<typeof AppConfigSchema>>;

export type ConfigResult = Readonly<{ ok: true; config: AppConfig }> | Readonly<{ ok: false; errors: readonly string[] }>;

type Env = Readonly<Record<string, string | undefined>>;

/** ADMIN_PORT when NODE_ENV=production leaves it unset. */
export const DEFAULT_PRODUCTION_ADMIN_PORT = 9090;

/**
 * The port of the operations listener, or null for none. In production the public ports do not
 * serve /metrics, /openapi or /docs, so it always exists there (9090 unless set); elsewhere the
 * public ports serve them and it exists only when ADMIN_PORT is set (docs/deploy.md).
 */
export function adminPortOf(config: Pick<AppConfig, "ADMIN_PORT" | "NODE_ENV">): number | null {
  return config.ADMIN_PORT ?? (config.NODE_ENV === "production" ? DEFAULT_PRODUCTION_ADMIN_PORT : null);
}

/**
 * The accepted assets, in order, without repeats: USDC_MINT, or the network's defaults
 * (defaultAssetsOf). The first is the one a development ledger funds.
 */
export function acceptedAssetsOf(config: Pick<AppConfig, "USDC_MINT" | "NETWORK">): readonly string[] {
  const listed = config.USDC_MINT?.split(",").map((mint) => mint.trim());
  return Object.freeze([...new Set(listed ?? defaultAssetsOf(config.NETWORK))]);
}

/**
 * Whether registration fetches loopback metadata URIs: METADATA_ALLOW_LOOPBACK, unset meaning "only
 * with the embedded ledger" (a laptop, as SEED_SAMPLE_AGENTS). SECURITY: never in production, even
 * if the guard were bypassed: there it would let any caller make the service GET its own loopback ports.
 */
export function metadataLoopbackAllowed(config: Pick<AppConfig, "METADATA_ALLOW_LOOPBACK" | "SOLANA_RPC_URL" | "NODE_ENV">): boolean {
  if (config.NODE_ENV === "production") return false;
  return config.METADATA_ALLOW_LOOPBACK ?? config.SOLANA_RPC_URL === undefined;
}

/**
 * Parses the environment once at boot. Errors name the variable and the expectation but
 * never echo the value, because a misplaced secret must not reach the log.
 */
export function parseAppConfig(env: Env): ConfigResult {
  const raw: Record<string, unknown> = {};
  const errors: string[] = [];
  for (const [name, schema] of Object.entries(AppConfigSchema.properties)) {
    const value = env[name];
    if (value === undefined || value === "") continue;
    const coerced = coerce(value, schema.type as string | undefined);
    if (coerced === undefined) errors.push(`${name}: expected ${schema.type}`);
    else raw[name] = coerced;
  }
  const withDefaults = Value.Default(AppConfigSchema, raw);
  for (const error of Value.Errors(AppConfigSchema, withDefaults)) {
    const name = error.path.slice(1);
    const choices = literalChoices(AppConfigSchema.properties[name as keyof typeof AppConfigSchema.properties]);
    errors.push(choices ? `${name}: expected one of ${choices.join(", ")}` : `${name}: ${error.message}`);
  }
  if (errors.length === 0) errors.push(...allowedOriginProblems(withDefaults as Record<string, unknown>));
  if (errors.length > 0) return { ok: false, errors: [...new Set(errors)] };
  return { ok: true, config: Object.freeze(withDefaults as Static<typeof AppConfigSchema>) };
}

/** The allowed values of a setting that is a union of literals (ROLE, NODE_ENV...), else null. */
function literalChoices(schema: unknown): string[] | null {
  const anyOf = (schema as { anyOf?: { const?: unknown }[] } | undefined)?.anyOf;
  if (!anyOf || !anyOf.every((member) => typeof member.const === "string")) return null;
  return anyOf.map((member) => String(member.const));
}

function coerce(value: string, type: string | undefined): unknown {
  if (type === "integer") return /^-?\d+$/.test(value.trim()) ? Number(value.trim()) : undefined;
  if (type === "boolean") {
    const v = value.trim().toLowerCase();
    if (["true", "1", "yes", "on"].includes(v)) return true;
    if (["false", "0", "no", "off"].includes(v)) return false;
    return undefined;
  }
  return value.trim();
}

/**
 * The origins allowed to call the registry's write and sign-in routes from a browser, as browsers
 * write them (lower-case host, no default port): AUTH_ALLOWED_ORIGINS, or AUTH_URI's origin.
 */
export function authAllowedOrigins(config: AppConfig): readonly string[] | "*" {
  const setting = config.AUTH_ALLOWED_ORIGINS?.trim();
  if (setting === "*") return "*";
  const entries = setting ? setting.split(",").map((entry) => entry.trim()) : [config.AUTH_URI];
  return [...new Set(entries.map((entry) => new URL(entry).origin))];
}

/** What the patterns cannot say: each origin, and AUTH_URI when it is the default, must parse (a port up to 65535, a valid host). */
function allowedOriginProblems(settings: Readonly<Record<string, unknown>>): string[] {
  const origins = settings["AUTH_ALLOWED_ORIGINS"];
  if (typeof origins === "string") {
    if (origins.trim() === "*" || origins.split(",").every((entry) => URL.canParse(entry.trim()))) return [];
    return ["AUTH_ALLOWED_ORIGINS: each entry must be an origin such as https://wallet.example (scheme, host, optional port up to 65535)"];
  }
  const uri = settings["AUTH_URI"];
  return typeof uri === "string" && !URL.canParse(uri) ? ["AUTH_URI: must be a URL (its origin is the default of AUTH_ALLOWED_ORIGINS)"] : [];
}
