/**
 * The one configuration a service is built from, parsed once at boot: every app setting
 * (app-config.ts) and both signer roles (signer-settings.ts schemas). The signer part holds
 * references to secrets, never secrets: a local key or PIN is read when its signer is built.
 */
import { parseSignerRoles } from "../signers/parse-signer-configs.ts";
import type { ReadTextFile } from "../signers/secret-source.ts";
import type { SignerConfig } from "../signers/signer-config.ts";
import { type AppConfig, parseAppConfig } from "./app-config.ts";

type Env = Readonly<Record<string, string | undefined>>;

export type ServiceSigners = Readonly<{
  /** FEE_PAYER_* then each FEE_PAYER_SIGNERS_FILE entry; empty: the development key (embedded ledger) or none. */
  feePayers: readonly SignerConfig[];
  /** CONFIG_AUTHORITY_*; null: the development key (embedded ledger) or registration off. */
  configAuthority: SignerConfig | null;
}>;

export type ServiceConfig = AppConfig & Readonly<{ signers: ServiceSigners }>;

/**
 * `app`: a setting does not parse (the signers are not read); `signers`: the settings parse but a
 * signer's do not, and `config` is there for the production guard, which main.ts runs first.
 */
export type ServiceConfigResult =
  | Readonly<{ ok: true; config: ServiceConfig }>
  | Readonly<{ ok: false; failed: "app"; errors: readonly string[] }>
  | Readonly<{ ok: false; failed: "signers"; config: AppConfig; errors: readonly string[] }>;

/** SECURITY: errors name the variable and what it expects, never its value (both parsers promise it). */
export function parseServiceConfig(env: Env, readFile?: ReadTextFile): ServiceConfigResult {
  const app = parseAppConfig(env);
  if (!app.ok) return { ok: false, failed: "app", errors: app.errors };
  const signers = parseSignerRoles(env, readFile);
  const feePayers = signers["fee-payer"];
  const configAuthority = signers["config-authority"];
  if (!feePayers.ok || !configAuthority.ok) {
    return { ok: false, failed: "signers", config: app.config, errors: [...(feePayers.ok ? [] : feePayers.errors), ...(configAuthority.ok ? [] : configAuthority.errors)] };
  }
  return { ok: true, config: Object.freeze({ ...app.config, signers: Object.freeze({ feePayers: feePayers.configs, configAuthority: configAuthority.configs[0] ?? null }) }) };
}
