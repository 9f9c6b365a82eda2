import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { chmodSync, chownSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { getAddressDecoder } from "@solana/kit";
import { failWhenRequired } from "../../fixtures/gate.ts";
import { createSoftHsmToken, softHsmGate, type SoftHsmToken } from "../../fixtures/softhsm.ts";

/**
 * What an operator sees when the PKCS#11 module cannot see its token store: each case runs
 * `bun src/tools/signer-check.ts` (the command the image documents) in its own process, because
 * SoftHSM2 reads SOFTHSM2_CONF once, when the library is initialised. The cases that change user
 * run as `nobody` through setpriv, as the image runs as uid 1000, and need root.
 */
const { module, ...gate } = softHsmGate("tests/signers", "the pkcs11 token-store tests");
const ROOT = resolve(import.meta.dir, "../..");
const NOBODY = 65534;
const canSwitchUser = process.getuid?.() === 0 && Bun.which("setpriv") !== null;

failWhenRequired(gate, "SoftHSM2 is installed (required under CI)");
if (module !== null && !canSwitchUser) {
  console.warn("SKIPPED the token-directory owner cases: they run signer-check as nobody, which needs root and setpriv.");
}

type Run = Readonly<{ code: number; output: string }>;

describe.skipIf(module === null)("pkcs11 signer: a module that cannot see its token store says why (real SoftHSM2, signer-check in a child process)", () => {
  const PIN = "135790";
  const LABEL = "store-tests";
  let token: SoftHsmToken;
  let scratch: string;

  beforeAll(() => {
    token = createSoftHsmToken(module ?? "", { tokenLabel: LABEL, pin: PIN, keys: [{ label: "fee-payer", idHex: "01" }] });
    // The token's parent directories must be traversable by the unprivileged user; the token
    // directory itself stays as SoftHSM2 created it (0700, owned by root).
    chmodSync(token.dir, 0o755);
    chmodSync(join(token.dir, "softhsm2.conf"), 0o644);
    scratch = mkdtempSync(join(tmpdir(), "softhsm-store-"));
    chmodSync(scratch, 0o755);
  });
  afterAll(() => {
    token.cleanup();
    rmSync(scratch, { recursive: true, force: true });
  });

  function signerEnv(extra: Record<string, string>): Record<string, string> {
    return {
      PATH: process.env.PATH ?? "/usr/bin:/bin",
      FEE_PAYER_SIGNER: "pkcs11",
      FEE_PAYER_PKCS11_MODULE: token.module,
      FEE_PAYER_PKCS11_TOKEN_LABEL: LABEL,
      FEE_PAYER_PKCS11_KEY_LABEL: "fee-payer",
      FEE_PAYER_PKCS11_PIN: PIN,
      ...extra,
    };
  }

  async function signerCheck(env: Record<string, string>, asNobody = false): Promise<Run> {
    const bun = [process.execPath, "src/tools/signer-check.ts"];
    const command = asNobody ? ["setpriv", `--reuid=${NOBODY}`, `--regid=${NOBODY}`, "--clear-groups", "--", ...bun] : bun;
    const child = Bun.spawn(command, { cwd: ROOT, env, stdout: "pipe", stderr: "pipe" });
    const [stdout, stderr, code] = await Promise.all([new Response(child.stdout).text(), new Response(child.stderr).text(), child.exited]);
    return { code, output: `${stdout}${stderr}` };
  }

  function confWithTokenDir(name: string, tokenDir: string): string {
    const conf = join(scratch, `${name}.conf`);
    writeFileSync(conf, `directories.tokendir = ${tokenDir}\nobjectstore.backend = file\nlog.level = ERROR\nslots.removable = false\n`, { mode: 0o644 });
    return conf;
  }

  test("control: SOFTHSM2_CONF naming the token's config, run as its owner, signs", async () => {
    const run = await signerCheck(signerEnv({ SOFTHSM2_CONF: join(token.dir, "softhsm2.conf") }));
    expect(run.output).toContain(`${getAddressDecoder().decode(token.keys[0]?.publicKey ?? new Uint8Array(32))} OK`);
    expect(run.code).toBe(0);
  });

  test("SOFTHSM2_CONF naming a config whose token directory is empty: no initialised token, SOFTHSM2_CONF named, the label not blamed", async () => {
    const empty = join(scratch, "empty-tokens");
    mkdirSync(empty, { mode: 0o755 });
    const run = await signerCheck(signerEnv({ SOFTHSM2_CONF: confWithTokenDir("empty", empty) }));
    expect(run.code).toBe(1);
    expect(run.output).toContain("BACKEND_UNAVAILABLE: FEE_PAYER_PKCS11_TOKEN_LABEL: the PKCS#11 module shows no initialised token at all");
    expect(run.output).toContain("SOFTHSM2_CONF");
    expect(run.output).toContain("(set in this process's environment)");
    expect(run.output).not.toContain("no token with this label");
    expect(run.output).not.toContain(PIN);
  });

  test("SOFTHSM2_CONF naming a file that does not exist: the module fails to initialise, and the message names SOFTHSM2_CONF", async () => {
    const run = await signerCheck(signerEnv({ SOFTHSM2_CONF: join(scratch, "missing.conf") }));
    expect(run.code).toBe(1);
    expect(run.output).toContain("BACKEND_UNAVAILABLE: FEE_PAYER_PKCS11_MODULE: the PKCS#11 module failed to initialise (CKR_GENERAL_ERROR)");
    expect(run.output).toContain("SOFTHSM2_CONF");
    expect(run.output).not.toContain("missing.conf");
  });

  test.skipIf(!canSwitchUser)("SOFTHSM2_CONF not set, as an unprivileged user: the message says it is not set and names the uid", async () => {
    const run = await signerCheck(signerEnv({}), true);
    expect(run.code).toBe(1);
    // Debian's default config is 0640 root:softhsm, so initialisation fails; where it is
    // readable, only the empty free slot shows. Either way the cause is named.
    expect(run.output).toContain("SOFTHSM2_CONF");
    expect(run.output).toContain("not set in this process's environment");
    expect(run.output).toContain(`uid ${NOBODY}`);
    expect(run.output).not.toContain("no token with this label");
  });

  test.skipIf(!canSwitchUser)("a token directory the service user cannot read is skipped silently by SoftHSM2; the message points at its owner, and chown fixes it", async () => {
    const env = signerEnv({ SOFTHSM2_CONF: join(token.dir, "softhsm2.conf") });
    const refused = await signerCheck(env, true);
    expect(refused.code).toBe(1);
    expect(refused.output).toContain("no initialised token at all");
    expect(refused.output).toContain(`readable by this process's user (uid ${NOBODY})`);

    // The step docs/signers.md prescribes: the token store belongs to the user the service runs as.
    chownTree(join(token.dir, "tokens"), NOBODY);
    const fixed = await signerCheck(env, true);
    expect(fixed.output).toContain("OK: test signature verifies");
    expect(fixed.code).toBe(0);
  });
});

function chownTree(path: string, uid: number): void {
  chownSync(path, uid, uid);
  for (const entry of readdirSync(path, { withFileTypes: true })) {
    const child = join(path, entry.name);
    if (entry.isDirectory()) chownTree(child, uid);
    else chownSync(child, uid, uid);
  }
}
