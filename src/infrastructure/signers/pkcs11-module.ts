import type * as Pkcs11Js from "pkcs11js";
import { CKR, pkcs11Code, pkcs11ErrorName } from "./pkcs11-constants.ts";
import type { Env } from "./secret-source.ts";
import { SignerError } from "./signer-error.ts";

export type Pkcs11Api = typeof Pkcs11Js;
export type Pkcs11Module = Readonly<{ api: Pkcs11Api; library: Pkcs11Js.PKCS11; release(): void }>;

type Entry = { api: Pkcs11Api; library: Pkcs11Js.PKCS11; leases: number };

/**
 * A PKCS#11 library may be initialised once per process, so signers sharing a module
 * (two keys on one HSM) share one loaded library, counted by leases; the last release
 * finalises it.
 */
const loaded = new Map<string, Entry>();

export async function acquirePkcs11Module(modulePath: string, setting: string, env: Env): Promise<Pkcs11Module> {
  // Loaded on demand so a deployment without the native addon still boots other backends.
  const api = await importPkcs11js(setting);
  // No await from here on: concurrent callers for one module see one entry.
  const entry = loaded.get(modulePath) ?? loadModule(api, modulePath, setting, env);
  entry.leases += 1;
  loaded.set(modulePath, entry);
  let released = false;
  return Object.freeze({
    api: entry.api,
    library: entry.library,
    release() {
      if (released) return;
      released = true;
      entry.leases -= 1;
      if (entry.leases > 0) return;
      loaded.delete(modulePath);
      finalize(entry.library);
    },
  });
}

function loadModule(api: Pkcs11Api, modulePath: string, setting: string, env: Env): Entry {
  const library = new api.PKCS11();
  try {
    library.load(modulePath);
  } catch {
    throw new SignerError("CONFIG_INVALID", `${setting}: cannot load the PKCS#11 module it names`);
  }
  try {
    // OS locking lets the library serve the worker threads pkcs11js uses for async calls.
    library.C_Initialize({ flags: api.CKF_OS_LOCKING_OK });
  } catch (error) {
    if (pkcs11Code(error) !== CKR.CRYPTOKI_ALREADY_INITIALIZED) {
      library.close();
      throw new SignerError(
        "BACKEND_UNAVAILABLE",
        `${setting}: the PKCS#11 module failed to initialise (${pkcs11ErrorName(error)}). ${initFailureHint(modulePath, env)}`,
      );
    }
  }
  return { api, library, leases: 0 };
}

/**
 * What to check when a module sees no token store. A module finds its tokens through its own
 * configuration, read from the process environment when it is initialised; the most common
 * causes are that configuration missing from the environment (SoftHSM2: SOFTHSM2_CONF) and a
 * token directory the service's user cannot read, which SoftHSM2 skips without an error.
 * Names variables and the uid, never paths or values.
 */
export function tokenStoreHint(modulePath: string, env: Env): string {
  if (!isSoftHsm(modulePath)) {
    return `Check the module's own configuration (its config file and environment variables, set in the process environment) and that its token store is reachable and readable${byThisUser()}.`;
  }
  return `SoftHSM2 finds tokens through the config file SOFTHSM2_CONF names (${softHsmConfState(env)}); that file's directories.tokendir must hold the token, and each token directory must be readable${byThisUser()}: SoftHSM2 skips token directories it cannot read without an error.`;
}

function initFailureHint(modulePath: string, env: Env): string {
  if (!isSoftHsm(modulePath)) return tokenStoreHint(modulePath, env);
  return `SoftHSM2 fails this way when its config file (SOFTHSM2_CONF: ${softHsmConfState(env)}) is missing or unreadable${byThisUser()}, or its directories.tokendir does not exist.`;
}

function isSoftHsm(modulePath: string): boolean {
  return /softhsm/i.test(modulePath);
}

function softHsmConfState(env: Env): string {
  const value = env["SOFTHSM2_CONF"];
  return value === undefined || value.trim() === ""
    ? "not set in this process's environment, so SoftHSM2 reads its built-in default, /etc/softhsm/softhsm2.conf on Debian"
    : "set in this process's environment";
}

function byThisUser(): string {
  const uid = typeof process.getuid === "function" ? process.getuid() : null;
  return uid === null ? " by the service's user" : ` by this process's user (uid ${uid})`;
}

async function importPkcs11js(setting: string): Promise<Pkcs11Api> {
  try {
    const imported = (await import("pkcs11js")) as Pkcs11Api & { default?: Pkcs11Api };
    return imported.default ?? imported;
  } catch {
    throw new SignerError(
      "CONFIG_INVALID",
      `${setting}: the pkcs11js native addon is not installed (reinstall with npm_config_nodedir=/usr npm ci)`,
    );
  }
}

function finalize(library: Pkcs11Js.PKCS11): void {
  try {
    library.C_Finalize();
  } catch {
    // Already finalised by a crashed token; nothing left to release.
  }
  try {
    library.close();
  } catch {
    // Same as above.
  }
}
