import type { AppConfig } from "./app-config.ts";
import { describeMisspelling, misspelledSettings } from "./setting-names.ts";

type Env = Readonly<Record<string, string | undefined>>;

/**
 * SECURITY: the embedded defaults are for a laptop. In production they fail open: a ledger
 * with cheat codes that mint balances, a database inside the container, a generated key.
 * With `NODE_ENV=production` every one of them must be replaced explicitly; this lists each
 * missing setting by name (never a value), empty when the process may start. A registry-only
 * process (ROLE=registry) signs nothing as fee payer, so it needs no fee-payer signer. A
 * variable spelled almost like a setting (setting-names.ts) is refused too: the protection it
 * meant to turn on would be silently off.
 */
export function productionProblems(
  config: Pick<AppConfig, "NODE_ENV" | "ROLE" | "SOLANA_RPC_URL" | "DATABASE_URL" | "AUTH_JWT_PRIVATE_KEY_FILE"> &
    Partial<Pick<AppConfig, "AUTH_DOMAIN" | "AUTH_URI" | "METADATA_ALLOW_LOOPBACK">>,
  env: Env,
): string[] {
  if (config.NODE_ENV !== "production") return [];
  const problems: string[] = [];
  if (!config.SOLANA_RPC_URL) problems.push("SOLANA_RPC_URL: required when NODE_ENV=production (the embedded ledger is for development)");
  if (!config.DATABASE_URL) problems.push("DATABASE_URL: required when NODE_ENV=production (the embedded database is for development)");
  const servesFacilitator = config.ROLE !== "registry";
  if (servesFacilitator && !present(env["FEE_PAYER_SIGNER"]) && !present(env["FEE_PAYER_SIGNERS_FILE"])) {
    problems.push("FEE_PAYER_SIGNER or FEE_PAYER_SIGNERS_FILE: required when NODE_ENV=production (no development key)");
  }
  // A generated key would differ per replica and be lost with the container: tokens would fail at random.
  if (config.ROLE !== "facilitator" && !present(config.AUTH_JWT_PRIVATE_KEY_FILE)) {
    problems.push("AUTH_JWT_PRIVATE_KEY_FILE: required when NODE_ENV=production (no development token-signing key)");
  }
  // SECURITY: sign-in messages name this domain; a wallet shows it to the user, and tokens carry the URI as
  // issuer and audience. The development defaults would have users sign messages for "localhost".
  if (config.ROLE !== "facilitator" && (isLocal(config.AUTH_DOMAIN) || isLocal(config.AUTH_URI))) {
    problems.push("AUTH_DOMAIN and AUTH_URI: set them to the domain and URL users sign in to when NODE_ENV=production (the defaults name localhost)");
  }
  // SECURITY: loopback metadata URIs would let any caller of POST /agents/register make the service
  // GET whatever listens on its own loopback interface (an admin port, a sidecar, a metadata agent).
  if (config.METADATA_ALLOW_LOOPBACK === true) {
    problems.push("METADATA_ALLOW_LOOPBACK: must not be true when NODE_ENV=production (loopback metadata URIs are for a laptop)");
  }
  for (const misspelled of misspelledSettings(env)) problems.push(describeMisspelling(misspelled));
  return problems;
}

const present = (value: string | undefined) => value !== undefined && value.trim() !== "";
const isLocal = (value: string | undefined) => value === undefined || /^(https?:\/\/)?(localhost|127\.0\.0\.1)([:/]|$)/i.test(value);
