/**
 * The signer settings as TypeBox schemas: one object a backend, each property a setting without its
 * role prefix (`FEE_PAYER_` + `KMS_REGION`), with its bounds and default. parse-signer-configs.ts
 * checks each value against its property and applies the defaults; the rules across settings (which
 * backend, one of two sources) stay code there.
 */
import { FormatRegistry, type TSchema, Type } from "@sinclair/typebox";
import { Value } from "@sinclair/typebox/value";
import { isAddress } from "@solana/kit";

FormatRegistry.Set("solana-address", (value) => isAddress(value));
FormatRegistry.Set("http-url", (value) => {
  try {
    const url = new URL(value);
    return url.protocol === "http:" || url.protocol === "https:";
  } catch {
    return false;
  }
});

/**
 * `expected` is what an error says after the setting's name. SECURITY: errors name the setting and
 * this expectation, never the value (a secret pasted into the wrong variable stays out of logs).
 */
const text = (expected?: string, options: Record<string, unknown> = {}) => Type.Optional(Type.String({ ...options, ...(expected ? { expected } : {}) }));
const integer = (minimum: number, maximum: number, fallback: number) =>
  Type.Integer({ minimum, maximum, default: fallback, expected: `an integer from ${minimum} to ${maximum}` });

/** Settings every backend shares; SIGNER names the backend (any letter case). */
export const CommonSignerSettings = Type.Object({
  SIGNER: Type.Optional(Type.Union([Type.Literal("local"), Type.Literal("aws-kms"), Type.Literal("pkcs11")])),
  ADDRESS: text("a base58 Solana address", { format: "solana-address" }),
});

export const LocalSignerSettings = Type.Object({
  KEYPAIR_PATH: text(),
  PRIVATE_KEY: text(),
});

export const AwsKmsSignerSettings = Type.Object({
  KMS_KEY_ID: text(),
  /** Falls back to AWS_REGION, which is held to the same pattern. */
  KMS_REGION: text("an AWS region name", { pattern: "^[a-z0-9-]{2,32}$" }),
  KMS_ENDPOINT: text("an http(s) URL", { format: "http-url" }),
  KMS_TIMEOUT_MS: integer(100, 120_000, 5_000),
  KMS_MAX_ATTEMPTS: integer(1, 10, 3),
});

export const Pkcs11SignerSettings = Type.Object({
  PKCS11_MODULE: text(),
  PKCS11_TOKEN_LABEL: text(),
  PKCS11_KEY_LABEL: text(),
  PKCS11_KEY_ID: text("an even number of hex digits", { pattern: "^([0-9a-fA-F]{2})+$" }),
  PKCS11_PIN: text(),
  PKCS11_PIN_FILE: text(),
  /** Sessions opened on the token; bounds concurrent signing operations. */
  PKCS11_SESSIONS: integer(1, 64, 4),
});

/** Each backend's own settings: setting one for another backend is an error. */
export const SIGNER_SETTINGS_BY_KIND = Object.freeze({
  local: LocalSignerSettings,
  "aws-kms": AwsKmsSignerSettings,
  pkcs11: Pkcs11SignerSettings,
});

/** Every setting name (without prefix), common ones first. */
export const SIGNER_SETTING_KEYS: readonly string[] = Object.freeze([
  ...Object.keys(CommonSignerSettings.properties),
  ...Object.values(SIGNER_SETTINGS_BY_KIND).flatMap((schema) => Object.keys(schema.properties)),
]);

const ALL_PROPERTIES: Readonly<Record<string, TSchema>> = Object.freeze(
  Object.assign({}, CommonSignerSettings.properties, ...Object.values(SIGNER_SETTINGS_BY_KIND).map((schema) => schema.properties)),
);

/** One setting's value checked against its schema: the typed value, or what the setting expects. */
export function checkSetting(key: string, raw: string): Readonly<{ ok: true; value: string | number }> | Readonly<{ ok: false; expected: string }> {
  const schema = ALL_PROPERTIES[key];
  if (schema === undefined) return { ok: false, expected: "a known setting" };
  const value = schema.type === "integer" ? (/^\d+$/.test(raw) ? Number(raw) : Number.NaN) : raw;
  if (Value.Check(schema, value)) return { ok: true, value };
  return { ok: false, expected: String(schema["expected"] ?? schema.type) };
}

/** The default of an integer setting (KMS_TIMEOUT_MS...), from its schema. */
export function settingDefault(key: string): number {
  return Number(ALL_PROPERTIES[key]?.default);
}
