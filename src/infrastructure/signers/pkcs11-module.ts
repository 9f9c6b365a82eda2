import type * as Pkcs11Js from "pkcs11js";
import { CKR, pkcs11Code } from "./pkcs11-constants.ts";
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

export async function acquirePkcs11Module(modulePath: string, setting: string): Promise<Pkcs11Module> {
  // Loaded on demand so a deployment without the native addon still boots other backends.
  const api = await importPkcs11js(setting);
  // No await from here on: concurrent callers for one module see one entry.
  const entry = loaded.get(modulePath) ?? loadModule(api, modulePath, setting);
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

function loadModule(api: Pkcs11Api, modulePath: string, setting: string): Entry {
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
      throw new SignerError("BACKEND_UNAVAILABLE", `${setting}: the PKCS#11 module failed to initialise`);
    }
  }
  return { api, library, leases: 0 };
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
