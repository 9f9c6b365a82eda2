/**
 * `bun run signer:check`: reads the signer settings the service would read, builds each
 * signer, signs a test message and verifies it, so operators can check a deployment (KMS
 * permissions, HSM PIN and key label) before it takes traffic. Exit code 0 only if every
 * configured signer signed correctly. Prints addresses and kinds, never secrets.
 *
 * On the embedded defaults (no SOLANA_RPC_URL, not NODE_ENV=production) a role without settings
 * uses the development key the service keeps in DATA_DIR, so that key is what gets checked:
 * `DATA_DIR/fee-payer.json` (created by the service's first start) and, when present,
 * `DATA_DIR/config-authority.json`. The check never creates a key.
 */
import { existsSync } from "node:fs";
import { join } from "node:path";
import { verifyAsync } from "@noble/ed25519";
import { getAddressEncoder } from "@solana/kit";
import type { Signer } from "../application/ports/signer.ts";
import { AppConfigSchema } from "../infrastructure/config/app-config.ts";
import { type SignerDeps, createSigner } from "../infrastructure/signers/create-signer.ts";
import { parseSignerRoles } from "../infrastructure/signers/parse-signer-configs.ts";
import { pinRejectionDirectory } from "../infrastructure/signers/pin-rejections.ts";
import type { Env as SecretEnv } from "../infrastructure/signers/secret-source.ts";
import { type LocalSignerConfig, type Pkcs11SignerConfig, ROLE_PREFIXES, type SignerConfig, type SignerRole } from "../infrastructure/signers/signer-config.ts";
import { SignerError } from "../infrastructure/signers/signer-error.ts";

type Env = Readonly<Record<string, string | undefined>>;
/** One line of output; `status` says whether the line reports a pass, a failure or just a fact. */
export type Print = (line: string, status?: "ok" | "fail" | "note") => void;

/** The file each role's development key lives in, under DATA_DIR (as service.ts and registration-composition.ts name them). */
const DEV_KEY_FILES: Readonly<Record<SignerRole, string>> = Object.freeze({ "fee-payer": "fee-payer.json", "config-authority": "config-authority.json" });

/** `waiting`: roles on the embedded defaults whose development key the service has not generated yet. */
export type SignerCheckReport = Readonly<{ checked: number; failures: number; waiting: number }>;

/** Checks every signer `env` configures (or the development keys standing in for them) and prints one line each. */
export async function checkSigners(env: Env, print: Print, deps: Partial<SignerDeps> = {}): Promise<SignerCheckReport> {
  let failures = 0;
  let checked = 0;
  let waiting = 0;
  // The same parse the service's config makes (service-config.ts), once for both roles.
  const roles = parseSignerRoles(env, deps.readFile);
  for (const [role, prefix] of Object.entries(ROLE_PREFIXES) as [SignerRole, (typeof ROLE_PREFIXES)[SignerRole]][]) {
    const parsed = roles[role];
    if (!parsed.ok) {
      for (const error of parsed.errors) print(`${role}: configuration error: ${error}`, "fail");
      failures += parsed.errors.length;
      continue;
    }
    const dev = parsed.configs.length === 0 ? developmentKey(env, role) : null;
    if (dev?.missing) {
      print(`${role}: no ${prefix} settings, and the development key ${dev.setting} does not exist yet (the service generates it at its first start)`, "note");
      waiting += 1;
    }
    const configs = dev ? (dev.missing ? [] : [dev.config]) : parsed.configs;
    for (const config of configs) {
      checked += 1;
      const ok = await checkOne(config, { ...deps, env }, print);
      if (!ok) failures += 1;
    }
  }
  return { checked, failures, waiting };
}

export async function runSignerCheck(env: Env, print: Print, deps: Partial<SignerDeps> = {}): Promise<number> {
  const { checked, failures, waiting } = await checkSigners(env, print, deps);
  if (checked === 0 && failures === 0) {
    // Embedded defaults before the first start: nothing is wrong, there is just no key yet.
    if (waiting > 0) return 0;
    print("no signer configured (set FEE_PAYER_SIGNER / CONFIG_AUTHORITY_SIGNER; see docs/signers.md)");
    return 1;
  }
  print(failures === 0 ? `all ${checked} signer(s) OK` : `${failures} problem(s) found`);
  return failures === 0 ? 0 : 1;
}

/**
 * SECURITY: development keys stand in only where the service itself would use them: the embedded
 * ledger, outside production (the production guard refuses them there).
 */
function usesDevelopmentKeys(env: Env): boolean {
  return !present(env["SOLANA_RPC_URL"]) && env["NODE_ENV"] !== "production";
}

type DevelopmentKey = Readonly<{ setting: string; missing: true }> | Readonly<{ setting: string; missing: false; config: LocalSignerConfig }>;

/** The development key standing in for `role`'s missing settings, or null where the service would use none. */
function developmentKey(env: Env, role: SignerRole): DevelopmentKey | null {
  if (!usesDevelopmentKeys(env)) return null;
  const setting = `DATA_DIR/${DEV_KEY_FILES[role]}`;
  const path = join(present(env["DATA_DIR"]) ? String(env["DATA_DIR"]) : AppConfigSchema.properties.DATA_DIR.default, DEV_KEY_FILES[role]);
  if (!existsSync(path)) return { setting, missing: true };
  return { setting, missing: false, config: { role, kind: "local", origin: `development key ${setting}`, expectedAddress: null, key: { from: "file", path, setting } } };
}

async function checkOne(config: SignerConfig, deps: SignerDeps, print: Print): Promise<boolean> {
  const label = `${config.role} ${config.kind} (${config.origin.replace(/\.$/, "")})`;
  let signer: Signer | null = null;
  try {
    signer = await createSigner(config, deps);
    const message = new TextEncoder().encode(`x402 facilitator signer check ${signer.address} ${new Date().toISOString()}`);
    const [signature] = await signer.signMessages([message]);
    const publicKey = new Uint8Array(getAddressEncoder().encode(signer.address));
    const valid = signature !== undefined && (await verifyAsync(signature, message, publicKey));
    print(`${label} ${signer.address} ${valid ? "OK: test signature verifies" : "FAILED: test signature does not verify"}`, valid ? "ok" : "fail");
    return valid;
  } catch (error) {
    // SignerError messages are written to name settings only; anything else is reduced to its type.
    const reason = error instanceof SignerError ? `${error.code}: ${error.message}` : `unexpected ${errorName(error)}`;
    print(`${label} FAILED: ${reason}`, "fail");
    if (config.kind === "pkcs11" && error instanceof SignerError && error.code === "ACCESS_DENIED") printPinWarning(config, deps.env, print);
    return false;
  } finally {
    await signer?.close?.();
  }
}

/**
 * SECURITY: said loudly because the usual reflex, restarting until it works, is what locks an HSM:
 * each failed login counts toward its limit, and only its security officer can unlock it.
 */
function printPinWarning(config: Pkcs11SignerConfig, env: SecretEnv, print: Print): void {
  const directory = pinRejectionDirectory(env);
  const lines = [
    `HSM PIN REJECTED for the ${config.role} (${config.pin.setting}). Do not retry with this PIN: every failed login counts toward`,
    "the HSM's lockout limit (a few attempts), after which only its security officer can unlock the user or partition.",
    directory === null
      ? "Nothing records this rejection here (PKCS11_PIN_REJECTION_DIR unset outside production): a restart WILL try the same PIN again."
      : `Recorded in ${directory}: no process sharing that directory (in Kubernetes: no restart of this pod) tries this PIN again.`,
    "Fix the PIN's Secret (or file), then start a new pod (kubectl delete pod <this pod>; a changed PIN file is tried once).",
  ];
  for (const line of lines) print(`!!! ${line}`, "fail");
}

function errorName(error: unknown): string {
  return error instanceof Error ? error.name : typeof error;
}

const present = (value: string | undefined) => value !== undefined && value.trim() !== "";

if (import.meta.main) {
  const code = await runSignerCheck(process.env, (line) => console.log(line));
  process.exit(code);
}
