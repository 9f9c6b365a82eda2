// Which setting values config:check removes from its output, and a URL with nothing to hide.
import { expect, test } from "bun:test";
import { isSecretValue, scrubSecrets, scrubUrlSecrets } from "../../../src/infrastructure/logging/redact.ts";

test("values of secret-named settings are secrets, but not references, durations or booleans", () => {
  expect(isSecretValue("FEE_PAYER_PRIVATE_KEY", "4vJ9JU1bJJE96FWSJKvHsmmFADCg4gpZQff4P3bkLKi")).toBe(true);
  expect(isSecretValue("FEE_PAYER_PKCS11_PIN", "246810")).toBe(true);
  expect(isSecretValue("LEDGER_SEED", "11".repeat(32))).toBe(true);
  for (const [name, value] of [
    ["FEE_PAYER_PKCS11_TOKEN_LABEL", "facilitator"],
    ["FEE_PAYER_PKCS11_PIN_FILE", "/run/secrets/hsm-pin"],
    ["FEE_PAYER_KEYPAIR_PATH", "/keys/fee-payer.json"],
    ["AUTH_JWT_PRIVATE_KEY_FILE", "/var/run/secrets/auth/jwt-private-key.json"],
    ["PKCS11_PIN_REJECTION_DIR", "/var/lib/facilitator/pkcs11-pin-rejections"],
    ["AUTH_TOKEN_TTL_SECONDS", "3600"],
    ["SEED_SAMPLE_AGENTS", "true"],
    ["ROLE", "facilitator"],
  ] as const) expect({ name, secret: isSecretValue(name, value) }).toEqual({ name, secret: false });
  expect(isSecretValue("FEE_PAYER_PKCS11_PIN", "123")).toBe(false);
  expect(isSecretValue("FEE_PAYER_PKCS11_PIN", undefined)).toBe(false);
});

test("a known URL without secrets keeps a single slash; one with secrets is still replaced", () => {
  expect(scrubUrlSecrets("https://rpc.example/ answers", "https://rpc.example")).toBe("https://rpc.example/ answers");
  expect(scrubUrlSecrets("failed: https://rpc.example", "https://rpc.example")).toBe("failed: https://rpc.example");
  expect(scrubSecrets("failed: https://rpc.example/abcdefghij", ["https://rpc.example/abcdefghij"])).toBe("failed: https://rpc.example/***");
});
