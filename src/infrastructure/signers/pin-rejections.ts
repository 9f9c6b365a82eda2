import { mkdirSync, readFileSync, realpathSync, rmSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { AppConfigSchema } from "../config/app-config.ts";
import type { Env } from "./secret-source.ts";
import type { Pkcs11SignerConfig, SecretSource } from "./signer-config.ts";
import { SignerError } from "./signer-error.ts";

/**
 * SECURITY: a real HSM counts failed logins and locks the user (or the partition) after a few
 * (AWS CloudHSM: 5; other vendors by a partition policy), after which only the
 * security officer can unlock it. A process that restarts on a failed boot, a Kubernetes init
 * container above all, would spend those attempts in a minute with one wrong PIN. So a PIN the
 * token rejected is recorded, and no process that shares the record logs in with that PIN again:
 * it refuses at once, before it loads the module. The PIN is identified by where it comes from (the
 * file's resolved path, inode, size and times), never by its value or a hash of it (a short PIN's
 * hash is no secret): a changed file (a Secret updated in place) is a new PIN and gets one try.
 */
export type PinRejections = Readonly<{
  /** Throws ACCESS_DENIED when this signer's PIN, as it is now, was already rejected. */
  assertNotRejected(config: Pkcs11SignerConfig): void;
  /** Records that the token rejected this signer's PIN (`reason`: the CKR_ name). */
  record(config: Pkcs11SignerConfig, reason: string): void;
  /** Forgets a record once a login with this signer's PIN succeeded. */
  clear(config: Pkcs11SignerConfig): void;
}>;

/** The sub-directory of DATA_DIR that production uses when PKCS11_PIN_REJECTION_DIR is not set. */
export const PIN_REJECTION_SUBDIRECTORY = "pkcs11-pin-rejections";

/**
 * Where rejections are recorded: PKCS11_PIN_REJECTION_DIR, else `<DATA_DIR>/pkcs11-pin-rejections`
 * with NODE_ENV=production (the image sets both; in Kubernetes DATA_DIR is an emptyDir, which
 * outlives container restarts and goes with the pod), else nowhere: on a laptop a wrong SoftHSM2
 * PIN costs nothing and a stale record would only confuse.
 */
export function pinRejectionDirectory(env: Env): string | null {
  const explicit = env["PKCS11_PIN_REJECTION_DIR"]?.trim();
  if (explicit) return explicit;
  if (env["NODE_ENV"] !== "production") return null;
  const dataDir = env["DATA_DIR"]?.trim() || AppConfigSchema.properties.DATA_DIR.default;
  return join(dataDir, PIN_REJECTION_SUBDIRECTORY);
}

type RecordFile = Readonly<{ setting: string; reason: string; at: string; source: string }>;

export function pinRejectionsIn(directory: string): PinRejections {
  const fileOf = (config: Pkcs11SignerConfig) => join(directory, `${config.pin.setting.replace(/[^A-Za-z0-9_.-]/g, "_")}.json`);

  function read(config: Pkcs11SignerConfig): RecordFile | null {
    try {
      return JSON.parse(readFileSync(fileOf(config), "utf8")) as RecordFile;
    } catch {
      return null;
    }
  }

  return Object.freeze({
    assertNotRejected(config) {
      const recorded = read(config);
      if (recorded === null || recorded.source !== sourceIdentity(config.pin)) return;
      throw new SignerError(
        "ACCESS_DENIED",
        `${config.pin.setting}: the token rejected this PIN (${recorded.reason}) at ${recorded.at}; not logging in with it again, because the HSM locks the user after a few failed logins. ` +
          `Fix the PIN (a changed file is tried once), or delete ${fileOf(config)} (in Kubernetes: delete the pod) to try the same one again.`,
      );
    },
    record(config, reason) {
      const entry: RecordFile = { setting: config.pin.setting, reason, at: new Date().toISOString(), source: sourceIdentity(config.pin) };
      try {
        mkdirSync(directory, { recursive: true, mode: 0o700 });
        writeFileSync(fileOf(config), `${JSON.stringify(entry)}\n`, { mode: 0o600 });
      } catch (error) {
        // Not fatal to this run, but the next one will log in again: say so.
        throw new SignerError("ACCESS_DENIED", `${config.pin.setting}: the token rejected the PIN (${reason}), and the rejection could not be recorded in ${directory} (${ioCode(error)}): a restart will try it again`);
      }
    },
    clear(config) {
      rmSync(fileOf(config), { force: true });
    },
  });
}

/** The guard for this process's settings, or null where rejections are not recorded. */
export function pinRejectionsFor(env: Env): PinRejections | null {
  const directory = pinRejectionDirectory(env);
  return directory === null ? null : pinRejectionsIn(directory);
}

/**
 * Where the PIN comes from, as a string that changes when the PIN can have changed. A file (and a
 * signers file) by its resolved path and stat: a Kubernetes Secret volume swaps a symlink to a new
 * directory on update, so the resolved path changes too. An environment variable cannot change
 * under a running process, so it is identified by its name.
 */
function sourceIdentity(source: SecretSource): string {
  if (source.from === "env") return `env:${source.variable}`;
  try {
    const path = realpathSync(source.path);
    const stat = statSync(path);
    return `file:${path}:${stat.dev}:${stat.ino}:${stat.size}:${stat.mtimeMs}:${stat.ctimeMs}`;
  } catch (error) {
    return `file:${source.path}:unreadable:${ioCode(error)}`;
  }
}

function ioCode(error: unknown): string {
  const code = typeof error === "object" && error !== null ? (error as { code?: unknown }).code : undefined;
  return typeof code === "string" ? code : "error";
}
