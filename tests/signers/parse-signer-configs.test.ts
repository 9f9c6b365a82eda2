import { describe, expect, test } from "bun:test";
import { getPublicKeyAsync } from "@noble/ed25519";
import { getAddressDecoder, getBase58Decoder } from "@solana/kit";
import { createSigner, parseSignerConfigs, type SignerConfig } from "../../src/infrastructure/signers/index.ts";

const seed = Uint8Array.from({ length: 32 }, (_, i) => 200 - i);
const seedBase58 = getBase58Decoder().decode(seed);
const address = getAddressDecoder().decode(await getPublicKeyAsync(seed));

/** In-memory files: the parser's only I/O is the injected reader. */
function files(map: Record<string, string>) {
  return (path: string): string => {
    const text = map[path];
    if (text === undefined) throw Object.assign(new Error(`ENOENT: ${path}`), { code: "ENOENT" });
    return text;
  };
}

function configsOf(env: Record<string, string>, read = files({})): readonly SignerConfig[] {
  const result = parseSignerConfigs(env, "FEE_PAYER_", read);
  if (!result.ok) throw new Error(result.errors.join("; "));
  return result.configs;
}

function errorsOf(env: Record<string, string>, prefix: "FEE_PAYER_" | "CONFIG_AUTHORITY_" = "FEE_PAYER_", read = files({})) {
  const result = parseSignerConfigs(env, prefix, read);
  if (result.ok) throw new Error("expected errors");
  return result.errors;
}

describe("parseSignerConfigs (pure, in-memory file reader)", () => {
  test("nothing configured gives an empty list so main can choose the dev key", () => {
    expect(configsOf({ UNRELATED: "1" })).toEqual([]);
  });

  test("a local key held in env is referenced by variable name; the config never carries the secret", () => {
    const [config] = configsOf({ FEE_PAYER_SIGNER: "local", FEE_PAYER_PRIVATE_KEY: seedBase58 });
    expect(config).toMatchObject({
      kind: "local",
      role: "fee-payer",
      key: { from: "env", variable: "FEE_PAYER_PRIVATE_KEY" },
    });
    expect(JSON.stringify(config)).not.toContain(seedBase58);
  });

  test("aws-kms settings parse with defaults and AWS_REGION fallback", () => {
    const [config] = configsOf({
      FEE_PAYER_SIGNER: "aws-kms",
      FEE_PAYER_KMS_KEY_ID: "alias/fee-payer",
      AWS_REGION: "eu-west-1",
      FEE_PAYER_ADDRESS: address,
    });
    expect(config).toEqual({
      kind: "aws-kms",
      role: "fee-payer",
      origin: "FEE_PAYER_",
      keyId: "alias/fee-payer",
      region: "eu-west-1",
      endpoint: null,
      expectedAddress: address,
      timeoutMs: 5000,
      maxAttempts: 3,
    });
  });

  test("pkcs11 settings parse: key by id (hex), PIN from a file", () => {
    const [config] = configsOf({
      FEE_PAYER_SIGNER: "pkcs11",
      FEE_PAYER_PKCS11_MODULE: "/usr/lib/softhsm/libsofthsm2.so",
      FEE_PAYER_PKCS11_TOKEN_LABEL: "facilitator",
      FEE_PAYER_PKCS11_KEY_ID: "0a1B",
      FEE_PAYER_PKCS11_PIN_FILE: "/run/secrets/pin",
    });
    expect(config?.kind).toBe("pkcs11");
    if (config?.kind !== "pkcs11") return;
    expect("id" in config.key && Array.from(config.key.id)).toEqual([0x0a, 0x1b]);
    expect(config.pin).toEqual({ from: "file", path: "/run/secrets/pin", setting: "FEE_PAYER_PKCS11_PIN_FILE" });
    expect(config.sessions).toBe(4);
  });

  const invalid: ReadonlyArray<readonly [string, Record<string, string>, string]> = [
    ["unknown backend", { FEE_PAYER_SIGNER: "vault-secret-xyz" }, "FEE_PAYER_SIGNER"],
    ["backend settings without SIGNER", { FEE_PAYER_KMS_KEY_ID: "k" }, "FEE_PAYER_SIGNER"],
    ["both key sources", { FEE_PAYER_KEYPAIR_PATH: "/k.json", FEE_PAYER_PRIVATE_KEY: seedBase58 }, "FEE_PAYER_PRIVATE_KEY"],
    ["local without a key", { FEE_PAYER_SIGNER: "local" }, "FEE_PAYER_KEYPAIR_PATH"],
    ["kms without key id", { FEE_PAYER_SIGNER: "aws-kms", FEE_PAYER_KMS_REGION: "us-east-1" }, "FEE_PAYER_KMS_KEY_ID"],
    ["kms without region", { FEE_PAYER_SIGNER: "aws-kms", FEE_PAYER_KMS_KEY_ID: "k" }, "FEE_PAYER_KMS_REGION"],
    [
      "kms endpoint that is not a URL",
      { FEE_PAYER_SIGNER: "aws-kms", FEE_PAYER_KMS_KEY_ID: "k", FEE_PAYER_KMS_REGION: "us-east-1", FEE_PAYER_KMS_ENDPOINT: "ftp:/x-secret" },
      "FEE_PAYER_KMS_ENDPOINT",
    ],
    [
      "timeout out of range",
      { FEE_PAYER_SIGNER: "aws-kms", FEE_PAYER_KMS_KEY_ID: "k", FEE_PAYER_KMS_REGION: "us-east-1", FEE_PAYER_KMS_TIMEOUT_MS: "99999999" },
      "FEE_PAYER_KMS_TIMEOUT_MS",
    ],
    ["bad address", { FEE_PAYER_PRIVATE_KEY: seedBase58, FEE_PAYER_ADDRESS: "not-an-address-secret" }, "FEE_PAYER_ADDRESS"],
    [
      "setting of another backend",
      { FEE_PAYER_SIGNER: "local", FEE_PAYER_PRIVATE_KEY: seedBase58, FEE_PAYER_PKCS11_PIN: "123456" },
      "FEE_PAYER_PKCS11_PIN",
    ],
    [
      "pkcs11 with PIN and PIN file",
      {
        FEE_PAYER_SIGNER: "pkcs11",
        FEE_PAYER_PKCS11_MODULE: "/m.so",
        FEE_PAYER_PKCS11_TOKEN_LABEL: "t",
        FEE_PAYER_PKCS11_KEY_LABEL: "k",
        FEE_PAYER_PKCS11_PIN: "98765432",
        FEE_PAYER_PKCS11_PIN_FILE: "/pin",
      },
      "FEE_PAYER_PKCS11_PIN_FILE",
    ],
    [
      "pkcs11 key id that is not hex",
      {
        FEE_PAYER_SIGNER: "pkcs11",
        FEE_PAYER_PKCS11_MODULE: "/m.so",
        FEE_PAYER_PKCS11_TOKEN_LABEL: "t",
        FEE_PAYER_PKCS11_KEY_ID: "xyz",
        FEE_PAYER_PKCS11_PIN: "98765432",
      },
      "FEE_PAYER_PKCS11_KEY_ID",
    ],
  ];
  for (const [name, env, variable] of invalid) {
    test(`${name}: the error names ${variable} and echoes no value`, () => {
      const errors = errorsOf(env);
      expect(errors.join("\n")).toContain(variable);
      for (const [key, value] of Object.entries(env)) {
        if (key === "FEE_PAYER_SIGNER" && ["local", "aws-kms", "pkcs11"].includes(value)) continue;
        if (value.length > 3) expect(errors.join("\n")).not.toContain(value);
      }
    });
  }

  test("config authority uses its own prefix and role, and has no signers file", () => {
    const result = parseSignerConfigs({ CONFIG_AUTHORITY_PRIVATE_KEY: seedBase58 }, "CONFIG_AUTHORITY_");
    expect(result.ok && result.configs[0]?.role).toBe("config-authority");
    expect(errorsOf({ CONFIG_AUTHORITY_SIGNERS_FILE: "/s.json" }, "CONFIG_AUTHORITY_").join()).toContain(
      "CONFIG_AUTHORITY_SIGNERS_FILE",
    );
  });
});

describe("FEE_PAYER_SIGNERS_FILE (in-memory file reader)", () => {
  const signersFile = JSON.stringify([
    { SIGNER: "local", PRIVATE_KEY: seedBase58 },
    { SIGNER: "aws-kms", KMS_KEY_ID: "alias/second", KMS_REGION: "us-east-2" },
  ]);

  test("lists several fee payers after the one set in env, each named by its index", () => {
    const configs = configsOf(
      { FEE_PAYER_KEYPAIR_PATH: "/keys/a.json", FEE_PAYER_SIGNERS_FILE: "/etc/signers.json" },
      files({ "/etc/signers.json": signersFile }),
    );
    expect(configs.map((c) => [c.kind, c.origin])).toEqual([
      ["local", "FEE_PAYER_"],
      ["local", "FEE_PAYER_SIGNERS_FILE[0]."],
      ["aws-kms", "FEE_PAYER_SIGNERS_FILE[1]."],
    ]);
    expect(JSON.stringify(configs)).not.toContain(seedBase58);
  });

  test("an inline key in the file is read from the file when the signer is built", async () => {
    const read = files({ "/etc/signers.json": signersFile });
    const env = { FEE_PAYER_SIGNERS_FILE: "/etc/signers.json" };
    const [config] = configsOf(env, read);
    if (config === undefined) throw new Error("nothing parsed");
    const signer = await createSigner(config, { env, readFile: read });
    expect(signer.address).toBe(address);
  });

  test("unknown settings, bad JSON and unreadable files are errors naming the file setting", () => {
    const typo = JSON.stringify([{ SIGNER: "local", PRIVATEKEY: seedBase58 }]);
    const typoErrors = errorsOf({ FEE_PAYER_SIGNERS_FILE: "/s.json" }, "FEE_PAYER_", files({ "/s.json": typo }));
    expect(typoErrors.join("\n")).toContain("FEE_PAYER_SIGNERS_FILE[0].PRIVATEKEY: unknown setting");
    expect(typoErrors.join("\n")).not.toContain(seedBase58);

    const badJson = errorsOf({ FEE_PAYER_SIGNERS_FILE: "/s.json" }, "FEE_PAYER_", files({ "/s.json": `[{"PRIVATE_KEY":"${seedBase58}"` }));
    expect(badJson.join()).toContain("FEE_PAYER_SIGNERS_FILE");
    expect(badJson.join()).not.toContain(seedBase58);

    expect(errorsOf({ FEE_PAYER_SIGNERS_FILE: "/missing.json" }).join()).toContain("FEE_PAYER_SIGNERS_FILE");
    expect(errorsOf({ FEE_PAYER_SIGNERS_FILE: "/s.json" }, "FEE_PAYER_", files({ "/s.json": "[]" })).join()).toContain(
      "non-empty",
    );
  });
});
