import type { Handle, Template } from "pkcs11js";
import type { Signer } from "../../application/ports/signer.ts";
import { isSignerFailure } from "../../application/ports/signer.ts";
import { addressFromPublicKey, ed25519KeyFromEcPoint } from "./ed25519-public-key.ts";
import { CKK_EC_EDWARDS, CKM_EDDSA, pkcs11ErrorName } from "./pkcs11-constants.ts";
import { acquirePkcs11Module, type Pkcs11Module, tokenStoreHint } from "./pkcs11-module.ts";
import { openSessionPool, type SessionPool } from "./pkcs11-session-pool.ts";
import { pinRejectionsFor } from "./pin-rejections.ts";
import { resolveSecret, type SecretDeps } from "./secret-source.ts";
import { remoteSigner } from "./remote-signer.ts";
import { createSignatureVerifier, type SignatureVerifier } from "./signature-verifier.ts";
import type { Pkcs11SignerConfig } from "./signer-config.ts";
import { SignerError } from "./signer-error.ts";

type KeyHandles = Readonly<{ privateKey: Handle; publicKey: Uint8Array }>;

const BOOT_PROBE = new TextEncoder().encode("pkcs11 signer boot probe");

/**
 * A signer whose Ed25519 key stays in a PKCS#11 token (HSM, SoftHSM2), signing with
 * CKM_EDDSA. Boot finds the token by label and the key by label or id, logs in once,
 * reads the public key from CKA_EC_POINT and proves the pair with one probe signature.
 */
export async function createPkcs11Signer(config: Pkcs11SignerConfig, deps: SecretDeps): Promise<Signer> {
  // SECURITY: a PIN the token already rejected is not tried again (an HSM locks the user after a
  // few failed logins); checked before anything touches the module.
  const rejections = pinRejectionsFor(deps.env);
  rejections?.assertNotRejected(config);
  const pin = resolveSecret(config.pin, deps);
  const module = await acquirePkcs11Module(config.modulePath, `${config.origin}PKCS11_MODULE`, deps.env);
  let pool: SessionPool | null = null;
  try {
    const slot = findSlot(module, config, deps);
    const onPinRejected = rejections ? (reason: string) => rejections.record(config, reason) : undefined;
    pool = openSessionPool({ module, slot, size: config.sessions, pin, pinSetting: config.pin.setting, ...(onPinRejected ? { onPinRejected } : {}) });
    rejections?.clear(config);
    const keys = await pool.withSession(async (session) => findKeys(module, session, config));
    const address = addressFromPublicKey(keys.publicKey);
    if (config.expectedAddress !== null && config.expectedAddress !== address) {
      throw new SignerError("ADDRESS_MISMATCH", `${config.origin}ADDRESS does not match the token key's public key (${address})`);
    }
    const signer = pkcs11Signer(module, pool, keys, address, await createSignatureVerifier(keys.publicKey));
    await signer.signMessages([BOOT_PROBE]);
    return signer;
  } catch (error) {
    pool?.close();
    module.release();
    throw error;
  }
}

/**
 * The slot holding the token labelled `tokenLabel`. When the module shows no initialised token
 * at all, the label is not the problem: the module is not seeing its token store (SoftHSM2
 * without SOFTHSM2_CONF, or with a token directory the service's user cannot read, shows only
 * its empty "free" slot), and the error says so instead of blaming the label.
 */
function findSlot(module: Pkcs11Module, config: Pkcs11SignerConfig, deps: SecretDeps): Handle {
  const { api, library } = module;
  const setting = `${config.origin}PKCS11_TOKEN_LABEL`;
  const tokens = library.C_GetSlotList(true).map((slot) => ({ slot, info: library.C_GetTokenInfo(slot) }));
  const match = tokens.find((token) => token.info.label.trim() === config.tokenLabel);
  if (match !== undefined) return match.slot;
  const initialised = tokens.filter((token) => (token.info.flags & api.CKF_TOKEN_INITIALIZED) !== 0).length;
  if (initialised === 0) {
    throw new SignerError(
      "BACKEND_UNAVAILABLE",
      `${setting}: the PKCS#11 module shows no initialised token at all (${tokens.length} empty slot(s)), so it is not seeing its token store. ${tokenStoreHint(config.modulePath, deps.env)}`,
    );
  }
  throw new SignerError("KEY_NOT_FOUND", `${setting}: no token with this label among the ${initialised} initialised token(s) the module shows`);
}

async function findKeys(module: Pkcs11Module, session: Handle, config: Pkcs11SignerConfig): Promise<KeyHandles> {
  const { api, library } = module;
  const setting = "label" in config.key ? `${config.origin}PKCS11_KEY_LABEL` : `${config.origin}PKCS11_KEY_ID`;
  const selector: Template =
    "label" in config.key
      ? [{ type: api.CKA_LABEL, value: config.key.label }]
      : [{ type: api.CKA_ID, value: Buffer.from(config.key.id) }];
  const privateKey = findOne(module, session, [
    { type: api.CKA_CLASS, value: api.CKO_PRIVATE_KEY },
    { type: api.CKA_KEY_TYPE, value: CKK_EC_EDWARDS },
    ...selector,
  ], setting, "private");
  const publicKeyObject = findOne(module, session, [
    { type: api.CKA_CLASS, value: api.CKO_PUBLIC_KEY },
    { type: api.CKA_KEY_TYPE, value: CKK_EC_EDWARDS },
    ...selector,
  ], setting, "public");
  const [point] = library.C_GetAttributeValue(session, publicKeyObject, [{ type: api.CKA_EC_POINT }]);
  const publicKey = point?.value === undefined ? null : ed25519KeyFromEcPoint(new Uint8Array(point.value));
  if (publicKey === null) throw new SignerError("KEY_INVALID", `${setting}: the public key is not an Ed25519 point`);
  return { privateKey, publicKey };
}

function findOne(module: Pkcs11Module, session: Handle, template: Template, setting: string, which: string): Handle {
  const { library } = module;
  library.C_FindObjectsInit(session, template);
  let found: Handle[];
  try {
    found = library.C_FindObjects(session, 2);
  } finally {
    library.C_FindObjectsFinal(session);
  }
  const [handle] = found;
  if (handle === undefined) throw new SignerError("KEY_NOT_FOUND", `${setting}: no Ed25519 ${which} key matches`);
  // SECURITY: two matching keys would make the advertised address depend on token order.
  if (found.length > 1) throw new SignerError("CONFIG_INVALID", `${setting}: several Ed25519 ${which} keys match; use a unique label or id`);
  return handle;
}

function pkcs11Signer(
  module: Pkcs11Module,
  pool: SessionPool,
  keys: KeyHandles,
  address: Signer["address"],
  verify: SignatureVerifier,
): Signer {
  const { library } = module;
  const inFlight = new Set<Promise<unknown>>();
  const track = <T>(work: Promise<T>): Promise<T> => {
    inFlight.add(work);
    const forget = () => inFlight.delete(work);
    work.then(forget, forget);
    return work;
  };
  return remoteSigner({
    address,
    kind: "pkcs11",
    label: "pkcs11 signer",
    sign: async (message) => {
      try {
        return await track(
          pool.withSession(async (session) => {
            const input = Buffer.from(message);
            const output = Buffer.alloc(64);
            library.C_SignInit(session, { mechanism: CKM_EDDSA }, keys.privateKey);
            // Async: the token call runs on a worker thread, so a slow HSM does not block the event loop.
            const signed = await library.C_SignAsync(session, input, output);
            // The worker thread reads `input` and writes `output` without holding references
            // to them; touching both after the await keeps the GC from reclaiming them mid-call.
            return new Uint8Array(input.length > 0 ? signed : output);
          }),
        );
      } catch (error) {
        throw isSignerFailure(error) ? error : new SignerError("BACKEND_ERROR", `pkcs11 sign failed (${pkcs11ErrorName(error)})`);
      }
    },
    verify,
    mismatch: `pkcs11 signature does not verify under ${address}`,
    release: async () => {
      // Finalising the library under a running worker-thread call would crash the process.
      await Promise.allSettled([...inFlight]);
      pool.close();
      module.release();
    },
  });
}
