import { type Static, Type } from "@sinclair/typebox";
import { Value } from "@sinclair/typebox/value";
import { DEVNET_USDC_MINT, SOLANA_DEVNET } from "../../domain/networks.ts";
import { DEFAULT_REGISTRY_PROGRAM_ID } from "../../domain/registry/pdas.ts";

const Base58Address = Type.String({ pattern: "^[1-9A-HJ-NP-Za-km-z]{32,44}$" });
const Port = Type.Integer({ minimum: 0, maximum: 65535 });

/** Every environment setting except signers (parsed by the signer config), with its default. */
export const AppConfigSchema = Type.Object({
  ROLE: Type.Union([Type.Literal("all"), Type.Literal("registry"), Type.Literal("facilitator")], { default: "all" }),
  HOST: Type.String({ minLength: 1, default: "127.0.0.1" }),
  REGISTRY_PORT: Type.Integer({ ...Port, default: 3000 }),
  FACILITATOR_PORT: Type.Integer({ ...Port, default: 4020 }),
  LOCAL_LEDGER_PORT: Type.Integer({ ...Port, default: 8899 }),
  DATA_DIR: Type.String({ minLength: 1, default: "./.data" }),
  SOLANA_RPC_URL: Type.Optional(Type.String({ pattern: "^https?://" })),
  DATABASE_URL: Type.Optional(Type.String({ pattern: "^postgres(ql)?://" })),
  DATABASE_POOL_MAX: Type.Integer({ minimum: 1, maximum: 1000, default: 10 }),
  RECONCILE_INTERVAL_SECONDS: Type.Integer({ minimum: 1, maximum: 3600, default: 15 }),
  NETWORK: Type.String({ pattern: "^[-a-z0-9]{3,8}:[-_a-zA-Z0-9]{1,32}$", default: SOLANA_DEVNET }),
  /** The accepted assets, comma-separated (the first is the one a development ledger funds). */
  USDC_MINT: Type.String({ pattern: "^[1-9A-HJ-NP-Za-km-z]{32,44}(\\s*,\\s*[1-9A-HJ-NP-Za-km-z]{32,44})*$", default: DEVNET_USDC_MINT }),
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
  /** `production` refuses the embedded ledger, the embedded database and the development key. */
  NODE_ENV: Type.Optional(Type.String({ minLength: 1 })),
  /** What a settle after the first for one payment answers: the spec's idempotent success, or a refusal. */
  SETTLE_DUPLICATES: Type.Union([Type.Literal("replay"), Type.Literal("reject")], { default: "replay" }),
  PAYTO_POLICY: Type.Union([Type.Literal("any"), Type.Literal("allowlist"), Type.Literal("registered-agents")], { default: "any" }),
  PAYTO_ALLOWLIST_FILE: Type.Optional(Type.String({ minLength: 1 })),
  FACILITATOR_API_KEYS_FILE: Type.Optional(Type.String({ minLength: 1 })),
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
  /** Cap on compute-unit limit x price of one transaction, in lamports. */
  PRIORITY_FEE_MAX_LAMPORTS: Type.Integer({ minimum: 0, maximum: 1_000_000_000, default: 25_000 }),
  /** Lamports our fee payers may spend for one payer, and for each fee payer, per window. */
  FEE_BUDGET_PER_PAYER_LAMPORTS: Type.Integer({ minimum: 1, default: 10_000_000 }),
  FEE_BUDGET_PER_FEE_PAYER_LAMPORTS: Type.Integer({ minimum: 1, default: 1_000_000_000 }),
  FEE_BUDGET_WINDOW_SECONDS: Type.Integer({ minimum: 1, maximum: 86_400, default: 3600 }),
  /** Shared fee-budget counters; unset -> the settlement database holds them. */
  REDIS_URL: Type.Optional(Type.String({ pattern: "^rediss?://" })),
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
  /** One deadline for a whole metadata fetch: DNS, connect, TLS, redirects and body. */
  METADATA_FETCH_TIMEOUT_MS: Type.Integer({ minimum: 100, maximum: 60_000, default: 5000 }),
  /**
   * Sign-In With Solana (docs/auth.md). The domain and URI written into every challenge come from
   * here, never from a request's Host header, so a hostile Host cannot get a message for another site.
   */
  AUTH_DOMAIN: Type.String({ pattern: "^[A-Za-z0-9.-]{1,253}(:[0-9]{1,5})?$", default: "localhost:3000" }),
  AUTH_URI: Type.String({ pattern: "^https?://[!-~]{1,500}$", default: "http://localhost:3000" }),
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
    errors.push(`${error.path.slice(1)}: ${error.message}`);
  }
  if (errors.length > 0) return { ok: false, errors: [...new Set(errors)] };
  return { ok: true, config: Object.freeze(withDefaults as Static<typeof AppConfigSchema>) };
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
