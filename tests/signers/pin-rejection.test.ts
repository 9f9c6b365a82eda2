/**
 * A PIN the token rejected is never tried again (docs/signers.md, "A rejected PIN"): a real HSM
 * locks the user after a few failed logins, and Kubernetes restarts a failing init container (the
 * signer check) and service for as long as the pod lives. On a real SoftHSM2 token: the signer
 * check records the rejection and says so loudly, the next run refuses before it even loads the
 * module, a changed PIN file gets its one try, and production records by default under DATA_DIR.
 * (A running signer's pool after a lost login: tests/unit/signers/pkcs11-session-pool-pin.test.ts.)
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createSigner, parseSignerConfigs, SignerError } from "../../src/infrastructure/signers/index.ts";
import { PIN_REJECTION_SUBDIRECTORY, pinRejectionDirectory } from "../../src/infrastructure/signers/pin-rejections.ts";
import { runSignerCheck } from "../../src/tools/signer-check.ts";
import { failWhenRequired } from "../../fixtures/gate.ts";
import { createSoftHsmToken, softHsmGate, type SoftHsmToken } from "../../fixtures/softhsm.ts";

const { module, ...gate } = softHsmGate("tests/signers", "the PIN rejection tests");
failWhenRequired(gate, "SoftHSM2 is installed (required under CI)");

const PIN = "135790";
const WRONG = "000000";

describe.skipIf(module === null)("a rejected PIN is never tried again (real SoftHSM2 token)", () => {
  let token: SoftHsmToken;
  let work: string;

  beforeAll(() => {
    token = createSoftHsmToken(module ?? "", { tokenLabel: "pin-rejection", pin: PIN, keys: [{ label: "fee-payer", idHex: "01" }] });
    work = mkdtempSync(join(tmpdir(), "pin-rejection-"));
  });
  afterAll(() => {
    token?.cleanup();
    if (work !== undefined) rmSync(work, { recursive: true, force: true });
  });

  function env(pinFile: string, extra: Record<string, string> = {}): Record<string, string> {
    return {
      FEE_PAYER_SIGNER: "pkcs11",
      FEE_PAYER_PKCS11_MODULE: token.module,
      FEE_PAYER_PKCS11_TOKEN_LABEL: token.tokenLabel,
      FEE_PAYER_PKCS11_KEY_LABEL: "fee-payer",
      FEE_PAYER_PKCS11_PIN_FILE: pinFile,
      ...extra,
    };
  }

  async function signerCheck(values: Record<string, string>): Promise<Readonly<{ code: number; output: string }>> {
    const lines: string[] = [];
    const code = await runSignerCheck(values, (line) => lines.push(line));
    return { code, output: lines.join("\n") };
  }

  test("the signer check records the rejection and warns loudly; its next run refuses before loading the module; a changed PIN file gets one try", async () => {
    const records = join(work, "check-records");
    const pinFile = join(work, "check-pin");
    writeFileSync(pinFile, WRONG);

    const first = await signerCheck(env(pinFile, { PKCS11_PIN_REJECTION_DIR: records }));
    expect(first.code).toBe(1);
    expect(first.output).toContain("CKR_PIN_INCORRECT");
    expect(first.output).toContain("!!! HSM PIN REJECTED for the fee-payer (FEE_PAYER_PKCS11_PIN_FILE)");
    expect(first.output).toContain(`Recorded in ${records}`);
    expect(first.output).not.toContain(WRONG);
    expect(readdirSync(records)).toEqual(["FEE_PAYER_PKCS11_PIN_FILE.json"]);

    // The restart: same PIN file. The module path points nowhere, so any attempt to reach the
    // token would fail differently ("cannot be loaded"): the refusal comes first.
    const restart = await signerCheck(env(pinFile, { PKCS11_PIN_REJECTION_DIR: records, FEE_PAYER_PKCS11_MODULE: join(work, "no-such-module.so") }));
    expect(restart.code).toBe(1);
    expect(restart.output).toContain("the token rejected this PIN (CKR_PIN_INCORRECT)");
    expect(restart.output).toContain("not logging in with it again");
    expect(restart.output).toContain("!!! HSM PIN REJECTED");
    expect(restart.output).not.toMatch(/cannot be (loaded|read)|PKCS11_MODULE/);

    // The Secret updated in place: a new PIN file is tried, and the record goes once it works.
    await Bun.sleep(20);
    writeFileSync(pinFile, PIN);
    const fixed = await signerCheck(env(pinFile, { PKCS11_PIN_REJECTION_DIR: records }));
    expect({ code: fixed.code, output: fixed.output }).toEqual({ code: 0, output: fixed.output });
    expect(fixed.output).toContain("OK: test signature verifies");
    expect(readdirSync(records)).toEqual([]);
  });

  test("with NODE_ENV=production the service records under DATA_DIR by default, and refuses the same PIN at its next boot", async () => {
    const dataDir = join(work, "data");
    const pinFile = join(work, "service-pin");
    writeFileSync(pinFile, WRONG);
    const values = env(pinFile, { NODE_ENV: "production", DATA_DIR: dataDir });
    expect(pinRejectionDirectory(values)).toBe(join(dataDir, PIN_REJECTION_SUBDIRECTORY));
    expect(pinRejectionDirectory(env(pinFile))).toBeNull();

    const boot = async () => {
      const parsed = parseSignerConfigs(values, "FEE_PAYER_");
      if (!parsed.ok) throw new Error(parsed.errors.join("; "));
      return createSigner(parsed.configs[0]!, { env: values }).then(
        (signer) => {
          void signer.close?.();
          return null;
        },
        (error: unknown) => error as SignerError,
      );
    };
    const first = await boot();
    expect(first?.code).toBe("ACCESS_DENIED");
    expect(first?.message).toContain("CKR_PIN_INCORRECT");
    expect(existsSync(join(dataDir, PIN_REJECTION_SUBDIRECTORY, "FEE_PAYER_PKCS11_PIN_FILE.json"))).toBe(true);
    const second = await boot();
    expect(second?.code).toBe("ACCESS_DENIED");
    expect(second?.message).toContain("not logging in with it again");
  });
});
