import { afterAll, afterEach, beforeAll, describe, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { verifyAsync } from "@noble/ed25519";
import { getAddressDecoder } from "@solana/kit";
import type { Signer } from "../../src/application/ports/signer.ts";
import { createSigner, parseSignerConfigs, SignerError } from "../../src/infrastructure/signers/index.ts";
import { failWhenRequired } from "../../fixtures/gate.ts";
import { createSoftHsmToken, softHsmGate, type SoftHsmToken } from "../../fixtures/softhsm.ts";

const { module, ...gate } = softHsmGate("tests/signers", "the pkcs11 signer tests");

failWhenRequired(gate, "SoftHSM2 is installed (required under CI)");

describe.skipIf(module === null)("pkcs11 signer (real SoftHSM2 token)", () => {
  const PIN = "246810";
  let token: SoftHsmToken;
  const opened: Signer[] = [];

  beforeAll(() => {
    token = createSoftHsmToken(module ?? "", {
      tokenLabel: "signer-tests",
      pin: PIN,
      keys: [
        { label: "fee-payer-a", idHex: "a1" },
        { label: "fee-payer-b", idHex: "b2" },
      ],
    });
  });
  afterEach(async () => {
    await Promise.all(opened.splice(0).map((s) => s.close?.()));
  });
  afterAll(() => token.cleanup());

  function env(overrides: Record<string, string | undefined> = {}): Record<string, string> {
    const all: Record<string, string | undefined> = {
      FEE_PAYER_SIGNER: "pkcs11",
      FEE_PAYER_PKCS11_MODULE: token.module,
      FEE_PAYER_PKCS11_TOKEN_LABEL: token.tokenLabel,
      FEE_PAYER_PKCS11_KEY_LABEL: "fee-payer-a",
      FEE_PAYER_PKCS11_PIN: PIN,
      ...overrides,
    };
    return Object.fromEntries(Object.entries(all).filter((e): e is [string, string] => e[1] !== undefined));
  }

  async function boot(values: Record<string, string>): Promise<Signer> {
    const parsed = parseSignerConfigs(values, "FEE_PAYER_");
    if (!parsed.ok) throw new Error(parsed.errors.join("; "));
    const [config] = parsed.configs;
    if (config === undefined) throw new Error("nothing parsed");
    const signer = await createSigner(config, { env: values });
    opened.push(signer);
    return signer;
  }

  async function bootError(values: Record<string, string>): Promise<SignerError> {
    const error = await boot(values).then(
      () => null,
      (e: unknown) => e,
    );
    if (!(error instanceof SignerError)) throw new Error(`expected a SignerError, got ${String(error)}`);
    return error;
  }

  const keyA = () => token.keys[0]?.publicKey ?? new Uint8Array();
  const keyB = () => token.keys[1]?.publicKey ?? new Uint8Array();

  test("address comes from CKA_EC_POINT and CKM_EDDSA signatures verify", async () => {
    const signer = await boot(env());
    expect(signer.kind).toBe("pkcs11");
    expect(signer.address).toBe(getAddressDecoder().decode(keyA()));
    const message = new TextEncoder().encode("settle 0.01 USDC");
    const [signature] = await signer.signMessages([message]);
    expect(await verifyAsync(signature ?? new Uint8Array(), message, keyA())).toBe(true);
  });

  test("the key can be selected by id, and the PIN read from a file", async () => {
    const pinFile = join(token.dir, "pin");
    writeFileSync(pinFile, `${PIN}\n`, { mode: 0o600 });
    const signer = await boot(
      env({ FEE_PAYER_PKCS11_KEY_LABEL: undefined, FEE_PAYER_PKCS11_KEY_ID: "b2", FEE_PAYER_PKCS11_PIN: undefined, FEE_PAYER_PKCS11_PIN_FILE: pinFile }),
    );
    expect(signer.address).toBe(getAddressDecoder().decode(keyB()));
  });

  test("many concurrent callers share a small session pool and every signature verifies", async () => {
    const signer = await boot(env({ FEE_PAYER_PKCS11_SESSIONS: "2" }));
    const messages = Array.from({ length: 40 }, (_, i) => new TextEncoder().encode(`message ${i}`));
    const results = await Promise.all(messages.map((m) => signer.signMessages([m])));
    const checks = await Promise.all(results.map(([s], i) => verifyAsync(s ?? new Uint8Array(), messages[i] ?? new Uint8Array(), keyA())));
    expect(checks.every(Boolean)).toBe(true);
    expect(checks).toHaveLength(40);
  });

  test("under sustained concurrent load with garbage collection running, every signature still verifies", async () => {
    const signer = await boot(env({ FEE_PAYER_PKCS11_SESSIONS: "8" }));
    const message = crypto.getRandomValues(new Uint8Array(350));
    let verified = 0;
    const worker = async (w: number) => {
      for (let i = 0; i < 40; i++) {
        if (i % 10 === w % 10) Bun.gc(false);
        const [signature] = await signer.signMessages([message]);
        if (await verifyAsync(signature ?? new Uint8Array(), message, keyA())) verified += 1;
      }
    };
    await Promise.all(Array.from({ length: 16 }, (_, w) => worker(w)));
    expect(verified).toBe(16 * 40);
  });

  test("two signers on one module work side by side; closing one leaves the other signing", async () => {
    const a = await boot(env());
    const b = await boot(env({ FEE_PAYER_PKCS11_KEY_LABEL: "fee-payer-b" }));
    expect(a.address).not.toBe(b.address);
    await a.close?.();
    const message = new Uint8Array([1, 2, 3]);
    const [signature] = await b.signMessages([message]);
    expect(await verifyAsync(signature ?? new Uint8Array(), message, keyB())).toBe(true);
    const closedError = await a.signMessages([message]).catch((e: unknown) => e);
    expect(closedError instanceof SignerError && closedError.code).toBe("CLOSED");
  });

  test("a wrong PIN is ACCESS_DENIED naming the PIN setting, never the PIN", async () => {
    const error = await bootError(env({ FEE_PAYER_PKCS11_PIN: "999999999" }));
    expect(error.code).toBe("ACCESS_DENIED");
    expect(error.message).toContain("FEE_PAYER_PKCS11_PIN");
    expect(error.message).not.toContain("999999999");
  });

  test("an unknown token or key label is KEY_NOT_FOUND", async () => {
    expect((await bootError(env({ FEE_PAYER_PKCS11_TOKEN_LABEL: "no-such-token" }))).code).toBe("KEY_NOT_FOUND");
    const missingKey = await bootError(env({ FEE_PAYER_PKCS11_KEY_LABEL: "no-such-key" }));
    expect(missingKey.code).toBe("KEY_NOT_FOUND");
    expect(missingKey.message).toContain("FEE_PAYER_PKCS11_KEY_LABEL");
  });

  test("FEE_PAYER_ADDRESS different from the token key fails boot", async () => {
    const error = await bootError(env({ FEE_PAYER_ADDRESS: getAddressDecoder().decode(keyB()) }));
    expect(error.code).toBe("ADDRESS_MISMATCH");
  });

  test("a module path that is not a PKCS#11 library is CONFIG_INVALID naming the setting", async () => {
    const error = await bootError(env({ FEE_PAYER_PKCS11_MODULE: join(token.dir, "softhsm2.conf") }));
    expect(error.code).toBe("CONFIG_INVALID");
    expect(error.message).toContain("FEE_PAYER_PKCS11_MODULE");
  });
});
