import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { dlopen, FFIType } from "bun:ffi";
import { type Gate, gateOn } from "./gate.ts";

export const SOFTHSM_INSTALL_COMMAND = "apt-get install -y softhsm2 opensc";

const MODULE_CANDIDATES = [
  process.env.SOFTHSM2_MODULE,
  "/usr/lib/softhsm/libsofthsm2.so",
  "/usr/lib/x86_64-linux-gnu/softhsm/libsofthsm2.so",
  "/usr/lib/aarch64-linux-gnu/softhsm/libsofthsm2.so",
  "/usr/local/lib/softhsm/libsofthsm2.so",
  "/opt/homebrew/lib/softhsm/libsofthsm2.so",
];

/** The SoftHSM2 module path when SoftHSM2 and pkcs11-tool (opensc) are installed, else null. */
export function findSoftHsmModule(): string | null {
  if (Bun.which("softhsm2-util") === null || Bun.which("pkcs11-tool") === null) return null;
  return MODULE_CANDIDATES.find((path) => path !== undefined && existsSync(path)) ?? null;
}

/** Whether the SoftHSM2 tests run (see gate.ts); the module path when they do. */
export function softHsmGate(area: string, what = "the SoftHSM2 tests"): Gate & Readonly<{ module: string | null }> {
  const module = findSoftHsmModule();
  const gate = gateOn(area, what, module === null ? `SoftHSM2 not found (install with: ${SOFTHSM_INSTALL_COMMAND})` : null);
  return { ...gate, module };
}

export type SoftHsmKey = Readonly<{ label: string; idHex: string; publicKey: Uint8Array }>;

export type SoftHsmToken = Readonly<{
  module: string;
  tokenLabel: string;
  pin: string;
  dir: string;
  keys: readonly SoftHsmKey[];
  cleanup(): void;
}>;

/**
 * A fresh SoftHSM2 token in a temporary directory, with Ed25519 keys generated inside
 * the token by pkcs11-tool. Points SOFTHSM2_CONF at it: the library reads that variable
 * when it is initialised, so call this before any PKCS#11 signer is built.
 */
export function createSoftHsmToken(
  module: string,
  options: Readonly<{ tokenLabel: string; pin: string; keys: ReadonlyArray<Readonly<{ label: string; idHex: string }>> }>,
): SoftHsmToken {
  const dir = mkdtempSync(join(tmpdir(), "softhsm-"));
  const tokens = join(dir, "tokens");
  mkdirSync(tokens);
  const conf = join(dir, "softhsm2.conf");
  writeFileSync(conf, `directories.tokendir = ${tokens}\nobjectstore.backend = file\nlog.level = ERROR\nslots.removable = false\n`);
  setNativeEnv("SOFTHSM2_CONF", conf);
  const env = { ...process.env, SOFTHSM2_CONF: conf };
  run(["softhsm2-util", "--init-token", "--free", "--label", options.tokenLabel, "--pin", options.pin, "--so-pin", "so-pin-0000"], env);
  const keys = options.keys.map((key) => {
    const output = run(
      [
        "pkcs11-tool", "--module", module, "--token-label", options.tokenLabel, "--login", "--pin", options.pin,
        "--keypairgen", "--key-type", "EC:edwards25519", "--label", key.label, "--id", key.idHex,
      ],
      env,
    );
    return { ...key, publicKey: publicKeyFromKeygenOutput(output) };
  });
  return Object.freeze({
    module,
    tokenLabel: options.tokenLabel,
    pin: options.pin,
    dir,
    keys,
    cleanup: () => rmSync(dir, { recursive: true, force: true }),
  });
}

/**
 * SoftHSM2 reads SOFTHSM2_CONF with the C library's getenv, and Bun does not copy
 * `process.env` writes into the C environment, so the variable is set through libc too.
 * (A deployment sets it in the real environment, where this is not needed.)
 */
function setNativeEnv(name: string, value: string): void {
  process.env[name] = value;
  const libc = dlopen(process.platform === "darwin" ? "libSystem.B.dylib" : "libc.so.6", {
    setenv: { args: [FFIType.cstring, FFIType.cstring, FFIType.i32], returns: FFIType.i32 },
  });
  try {
    const rc = libc.symbols.setenv(Buffer.from(`${name}\0`), Buffer.from(`${value}\0`), 1);
    if (rc !== 0) throw new Error(`setenv(${name}) failed`);
  } finally {
    libc.close();
  }
}

function run(command: string[], env: Record<string, string | undefined>): string {
  const result = Bun.spawnSync(command, { env, stdout: "pipe", stderr: "pipe" });
  const output = `${result.stdout.toString()}${result.stderr.toString()}`;
  if (result.exitCode !== 0) throw new Error(`${command[0]} failed (${result.exitCode}): ${output}`);
  return output;
}

/** pkcs11-tool prints `EC_POINT: 0420<32 bytes hex>` for the generated public key. */
function publicKeyFromKeygenOutput(output: string): Uint8Array {
  const hex = /EC_POINT:\s+0420([0-9a-f]{64})/i.exec(output)?.[1];
  if (hex === undefined) throw new Error(`no EC_POINT in pkcs11-tool output: ${output}`);
  return Uint8Array.from(Buffer.from(hex, "hex"));
}
