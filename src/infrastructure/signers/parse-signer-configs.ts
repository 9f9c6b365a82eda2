import { hexToBytes } from "@noble/hashes/utils.js";
import type { Address } from "@solana/kit";
import { decodePrivateKeyText } from "./private-key-format.ts";
import { type Env, type ReadTextFile, readTextFileSync } from "./secret-source.ts";
import {
  SIGNER_KINDS,
  type SecretSource,
  type SignerConfig,
  type SignerKind,
  type SignerPrefix,
  type SignerRole,
} from "./signer-config.ts";
import { SIGNER_SETTINGS_BY_KIND, SIGNER_SETTING_KEYS, checkSetting, settingDefault } from "./signer-settings.ts";

export type SignerConfigResult =
  | Readonly<{ ok: true; configs: readonly SignerConfig[] }>
  | Readonly<{ ok: false; errors: readonly string[] }>;

/** Settings of one signer, without the role prefix (their schemas: signer-settings.ts). */
const ALL_KEYS: ReadonlySet<string> = new Set(SIGNER_SETTING_KEYS);
const keysOf = (kind: SignerKind): readonly string[] => Object.keys(SIGNER_SETTINGS_BY_KIND[kind].properties);

/**
 * Every environment variable the signer settings read: `<prefix><key>` for both roles, the fee
 * payers' signers file, and the AWS SDK's region fallback.
 */
export function signerSettingNames(): readonly string[] {
  const prefixes: readonly SignerPrefix[] = ["FEE_PAYER_", "CONFIG_AUTHORITY_"];
  return [...prefixes.flatMap((prefix) => [...ALL_KEYS].map((key) => prefix + key)), "FEE_PAYER_SIGNERS_FILE", "AWS_REGION"];
}

/** One signer's settings plus how to name them and where its secrets come from. */
type EntryInput = Readonly<{
  role: SignerRole;
  origin: string;
  get(key: string): string | undefined;
  /** A secret given inline (env variable or signers-file field). */
  inlineSecret(key: string): SecretSource;
  /** Every AWS setting may fall back to the SDK's own region variable. */
  defaultRegion: string | undefined;
}>;

type Errors = string[];

/**
 * Reads the signers of one role from the environment: `<P>SIGNER` and its settings, plus,
 * for fee payers, `FEE_PAYER_SIGNERS_FILE` (a JSON array of the same settings without the
 * prefix). Pure apart from `readFile`, which is only called for the signers file.
 * Nothing configured gives `{ ok: true, configs: [] }`; the caller picks a default.
 * SECURITY: errors name the variable and the expectation, never the value, so a secret
 * pasted into the wrong variable does not end up in boot logs.
 */
export function parseSignerConfigs(
  env: Env,
  prefix: SignerPrefix,
  readFile: ReadTextFile = readTextFileSync,
): SignerConfigResult {
  const role: SignerRole = prefix === "FEE_PAYER_" ? "fee-payer" : "config-authority";
  const errors: Errors = [];
  const configs: SignerConfig[] = [];
  const defaultRegion = nonEmpty(env.AWS_REGION);

  const fromEnv = parseEnvEntry(env, prefix, role, defaultRegion, errors);
  if (fromEnv !== null) configs.push(fromEnv);

  const filePath = nonEmpty(env[`${prefix}SIGNERS_FILE`]);
  if (filePath !== undefined) {
    if (role !== "fee-payer") errors.push(`${prefix}SIGNERS_FILE is not supported: the config authority is one key`);
    else configs.push(...parseSignersFile(filePath, `${prefix}SIGNERS_FILE`, role, defaultRegion, readFile, errors));
  }
  return errors.length > 0 ? { ok: false, errors } : { ok: true, configs };
}

function parseEnvEntry(
  env: Env,
  prefix: SignerPrefix,
  role: SignerRole,
  defaultRegion: string | undefined,
  errors: Errors,
): SignerConfig | null {
  const get = (key: string) => nonEmpty(env[prefix + key]);
  if (![...ALL_KEYS].some((key) => get(key) !== undefined)) return null;
  return parseEntry(
    {
      role,
      origin: prefix,
      get,
      inlineSecret: (key) => ({ from: "env", variable: prefix + key, setting: prefix + key }),
      defaultRegion,
    },
    errors,
  );
}

function parseSignersFile(
  path: string,
  setting: string,
  role: SignerRole,
  defaultRegion: string | undefined,
  readFile: ReadTextFile,
  errors: Errors,
): SignerConfig[] {
  const entries = readSignersFile(path, setting, readFile, errors);
  const configs: SignerConfig[] = [];
  entries.forEach((entry, index) => {
    const origin = `${setting}[${index}].`;
    if (typeof entry !== "object" || entry === null || Array.isArray(entry)) {
      errors.push(`${setting}[${index}]: expected an object of settings`);
      return;
    }
    const record = entry as Record<string, unknown>;
    for (const [key, value] of Object.entries(record)) {
      if (!ALL_KEYS.has(key)) errors.push(`${origin}${key}: unknown setting`);
      else if (typeof value !== "string") errors.push(`${origin}${key}: expected a string`);
    }
    const get = (key: string) => {
      const value = record[key];
      return typeof value === "string" ? nonEmpty(value) : undefined;
    };
    const inlineSecret = (key: string): SecretSource => ({
      from: "signers-file",
      path,
      index,
      field: key,
      setting: origin + key,
    });
    const config = parseEntry({ role, origin, get, inlineSecret, defaultRegion }, errors);
    if (config !== null) configs.push(config);
  });
  return configs;
}

function readSignersFile(path: string, setting: string, readFile: ReadTextFile, errors: Errors): unknown[] {
  let text: string;
  try {
    text = readFile(path);
  } catch {
    errors.push(`${setting}: cannot read the file it names`);
    return [];
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    errors.push(`${setting}: the file is not valid JSON`);
    return [];
  }
  if (!Array.isArray(parsed) || parsed.length === 0) {
    errors.push(`${setting}: expected a non-empty JSON array of signer settings`);
    return [];
  }
  return parsed;
}

function parseEntry(input: EntryInput, errors: Errors): SignerConfig | null {
  const kind = entryKind(input, errors);
  if (kind === null) return null;
  rejectForeignSettings(input, kind, errors);
  const before = errors.length;
  const expectedAddress = optionalAddress(input, errors);
  const config = buildConfig(input, kind, expectedAddress, errors);
  return errors.length > before ? null : config;
}

function entryKind(input: EntryInput, errors: Errors): SignerKind | null {
  const raw = input.get("SIGNER");
  if (raw === undefined) {
    // A bare keypair setting is unambiguous; anything else needs an explicit backend.
    if (input.get("KEYPAIR_PATH") !== undefined || input.get("PRIVATE_KEY") !== undefined) return "local";
    errors.push(`${input.origin}SIGNER is not set but other ${input.origin}* signer settings are`);
    return null;
  }
  const kind = SIGNER_KINDS.find((k) => k === raw.toLowerCase());
  if (kind === undefined) {
    errors.push(`${input.origin}SIGNER: expected one of ${SIGNER_KINDS.join(", ")}`);
    return null;
  }
  return kind;
}

function rejectForeignSettings(input: EntryInput, kind: SignerKind, errors: Errors): void {
  for (const other of SIGNER_KINDS) {
    if (other === kind) continue;
    for (const key of keysOf(other)) {
      if (input.get(key) !== undefined) {
        errors.push(`${input.origin}${key} applies to ${other} signers, but ${input.origin}SIGNER is ${kind}`);
      }
    }
  }
}

function buildConfig(
  input: EntryInput,
  kind: SignerKind,
  expectedAddress: Address | null,
  errors: Errors,
): SignerConfig | null {
  const common = { role: input.role, origin: input.origin, expectedAddress };
  switch (kind) {
    case "local": {
      const key = localKeySource(input, errors);
      return key === null ? null : { kind, ...common, key };
    }
    case "aws-kms":
      return awsKmsConfig(input, common, errors);
    case "pkcs11":
      return pkcs11Config(input, common, errors);
  }
}

function localKeySource(input: EntryInput, errors: Errors): SecretSource | null {
  const path = input.get("KEYPAIR_PATH");
  const inline = input.get("PRIVATE_KEY");
  const name = (key: string) => input.origin + key;
  if (path !== undefined && inline !== undefined) {
    errors.push(`${name("KEYPAIR_PATH")} and ${name("PRIVATE_KEY")} are both set; set one`);
    return null;
  }
  if (path !== undefined) return { from: "file", path, setting: name("KEYPAIR_PATH") };
  if (inline === undefined) {
    errors.push(`${name("KEYPAIR_PATH")} or ${name("PRIVATE_KEY")} is required for a local signer`);
    return null;
  }
  const decoded = decodePrivateKeyText(inline);
  if (!decoded.ok) {
    errors.push(`${name("PRIVATE_KEY")} ${decoded.reason}`);
    return null;
  }
  decoded.bytes.fill(0);
  return input.inlineSecret("PRIVATE_KEY");
}

type CommonFields = Readonly<{ role: SignerRole; origin: string; expectedAddress: Address | null }>;

function awsKmsConfig(input: EntryInput, common: CommonFields, errors: Errors): SignerConfig | null {
  const name = (key: string) => input.origin + key;
  const keyId = required(input, "KMS_KEY_ID", errors);
  const region = checked(input, "KMS_REGION", errors, input.get("KMS_REGION") ?? input.defaultRegion);
  if (region === undefined) errors.push(`${name("KMS_REGION")} is required (or AWS_REGION)`);
  const endpoint = optionalUrl(input, "KMS_ENDPOINT", errors);
  const timeoutMs = optionalInteger(input, "KMS_TIMEOUT_MS", errors);
  const maxAttempts = optionalInteger(input, "KMS_MAX_ATTEMPTS", errors);
  if (keyId === undefined || typeof region !== "string") return null;
  return { kind: "aws-kms", ...common, keyId, region, endpoint, timeoutMs, maxAttempts };
}

function pkcs11Config(input: EntryInput, common: CommonFields, errors: Errors): SignerConfig | null {
  const name = (key: string) => input.origin + key;
  const modulePath = required(input, "PKCS11_MODULE", errors);
  const tokenLabel = required(input, "PKCS11_TOKEN_LABEL", errors);
  const keyLabel = input.get("PKCS11_KEY_LABEL");
  const keyIdHex = input.get("PKCS11_KEY_ID");
  let key: Readonly<{ label: string }> | Readonly<{ id: Uint8Array }> | null = null;
  if (keyLabel !== undefined && keyIdHex !== undefined) {
    errors.push(`${name("PKCS11_KEY_LABEL")} and ${name("PKCS11_KEY_ID")} are both set; set one`);
  } else if (keyLabel !== undefined) {
    key = { label: keyLabel };
  } else if (keyIdHex !== undefined) {
    const hex = checked(input, "PKCS11_KEY_ID", errors, keyIdHex);
    if (typeof hex === "string") key = { id: hexToBytes(hex) };
  } else {
    errors.push(`${name("PKCS11_KEY_LABEL")} or ${name("PKCS11_KEY_ID")} is required`);
  }
  const pin = pinSource(input, errors);
  const sessions = optionalInteger(input, "PKCS11_SESSIONS", errors);
  if (modulePath === undefined || tokenLabel === undefined || key === null || pin === null) return null;
  return { kind: "pkcs11", ...common, modulePath, tokenLabel, key, pin, sessions };
}

function pinSource(input: EntryInput, errors: Errors): SecretSource | null {
  const name = (key: string) => input.origin + key;
  const inline = input.get("PKCS11_PIN");
  const file = input.get("PKCS11_PIN_FILE");
  if (inline !== undefined && file !== undefined) {
    errors.push(`${name("PKCS11_PIN")} and ${name("PKCS11_PIN_FILE")} are both set; set one`);
    return null;
  }
  if (file !== undefined) return { from: "file", path: file, setting: name("PKCS11_PIN_FILE") };
  if (inline !== undefined) return input.inlineSecret("PKCS11_PIN");
  errors.push(`${name("PKCS11_PIN")} or ${name("PKCS11_PIN_FILE")} is required`);
  return null;
}

function required(input: EntryInput, key: string, errors: Errors): string | undefined {
  const value = input.get(key);
  if (value === undefined) errors.push(`${input.origin}${key} is required`);
  return value;
}

function optionalAddress(input: EntryInput, errors: Errors): Address | null {
  const value = checked(input, "ADDRESS", errors);
  return typeof value === "string" ? (value as Address) : null;
}

function optionalUrl(input: EntryInput, key: string, errors: Errors): string | null {
  const value = checked(input, key, errors);
  return typeof value === "string" ? value : null;
}

function optionalInteger(input: EntryInput, key: string, errors: Errors): number {
  const value = checked(input, key, errors);
  return typeof value === "number" ? value : settingDefault(key);
}

/**
 * The setting checked against its schema (signer-settings.ts): its typed value, undefined when unset,
 * or null after recording what it expects. `raw` stands in for a fallback (AWS_REGION for KMS_REGION).
 */
function checked(input: EntryInput, key: string, errors: Errors, raw = input.get(key)): string | number | null | undefined {
  if (raw === undefined) return undefined;
  const result = checkSetting(key, raw);
  if (result.ok) return result.value;
  errors.push(`${input.origin}${key}: expected ${result.expected}`);
  return null;
}

function nonEmpty(value: string | undefined): string | undefined {
  const trimmed = value?.trim();
  return trimmed === undefined || trimmed === "" ? undefined : trimmed;
}

/** Both roles' signer settings, read once: the service's config and `signer:check` both start here. */
export type SignerRoleSettings = Readonly<Record<SignerRole, SignerConfigResult>>;

export function parseSignerRoles(env: Env, readFile: ReadTextFile = readTextFileSync): SignerRoleSettings {
  return Object.freeze({
    "fee-payer": parseSignerConfigs(env, "FEE_PAYER_", readFile),
    "config-authority": parseSignerConfigs(env, "CONFIG_AUTHORITY_", readFile),
  });
}
