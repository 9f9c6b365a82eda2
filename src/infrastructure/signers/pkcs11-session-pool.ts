import type { Handle } from "pkcs11js";
import { CKR, PIN_REJECTED_CODES, SESSION_LOST_CODES, pkcs11Code, pkcs11ErrorName } from "./pkcs11-constants.ts";
import type { Pkcs11Module } from "./pkcs11-module.ts";
import { SignerError } from "./signer-error.ts";

export type SessionPool = Readonly<{
  /**
   * Runs `work` with a session no other caller is using. A PKCS#11 session holds one
   * operation at a time (SignInit then Sign), so concurrent async callers each get their
   * own session; extra callers wait in arrival order.
   */
  withSession<T>(work: (session: Handle) => Promise<T>): Promise<T>;
  close(): void;
}>;

export type SessionPoolOptions = Readonly<{
  module: Pkcs11Module;
  slot: Handle;
  size: number;
  /** Kept for logging in again after the token drops the login (token reinserted, HSM failover). */
  pin: string;
  /** Setting that named the PIN, for error messages. */
  pinSetting: string;
  /** Told when the token rejects the PIN (CKR_PIN_INCORRECT...), before the error is thrown: pin-rejections.ts. */
  onPinRejected?: (reason: string) => void;
}>;

/**
 * Opens `size` read-only sessions and logs in once: a PKCS#11 login applies to every
 * session of the application on that token, so requests never send the PIN again.
 */
export function openSessionPool(options: SessionPoolOptions): SessionPool {
  const idle: Handle[] = [];
  const waiters: Array<Readonly<{ resolve(session: Handle): void; reject(error: Error): void }>> = [];
  let closed = false;
  // SECURITY: once the token rejected the PIN (changed on the HSM under a running service), no
  // session renewal logs in with it again: each attempt would count toward the HSM's lockout.
  let pinRejected: string | null = null;
  const loginOptions: SessionPoolOptions = {
    ...options,
    onPinRejected: (reason) => {
      pinRejected = reason;
      options.onPinRejected?.(reason);
    },
  };

  const first = openSession(options);
  login(loginOptions, first);
  idle.push(first);
  try {
    for (let i = 1; i < options.size; i++) idle.push(openSession(options));
  } catch (error) {
    idle.forEach((session) => closeQuietly(options, session));
    throw error;
  }

  const acquire = (): Promise<Handle> => {
    if (closed) return Promise.reject(new SignerError("CLOSED", "pkcs11 signer is closed"));
    const session = idle.pop();
    if (session !== undefined) return Promise.resolve(session);
    return new Promise((resolve, reject) => waiters.push({ resolve, reject }));
  };

  const release = (session: Handle): void => {
    if (closed) return closeQuietly(options, session);
    const next = waiters.shift();
    if (next !== undefined) next.resolve(session);
    else idle.push(session);
  };

  /** Replaces a session the token invalidated, logging in again if the login was lost. */
  const renew = (lost: Handle): Handle => {
    closeQuietly(options, lost);
    if (pinRejected !== null) {
      throw new SignerError("ACCESS_DENIED", `${options.pinSetting}: the token rejected the PIN (${pinRejected}); not logging in again until the service restarts with a fixed PIN`);
    }
    const session = openSession(options);
    login(loginOptions, session);
    return session;
  };

  const run = async <T>(session: Handle, work: (session: Handle) => Promise<T>): Promise<T> => {
    try {
      return await work(session);
    } catch (error) {
      const code = pkcs11Code(error);
      if (code === null || !SESSION_LOST_CODES.has(code) || closed) throw error;
      // One retry on a fresh session: the failure was the session, not the request.
      // If renewing throws, the dead handle goes back to the pool and is renewed by its
      // next user, so the pool never shrinks.
      const fresh = renew(session);
      session = fresh;
      return await work(fresh);
    } finally {
      release(session);
    }
  };

  return Object.freeze({
    async withSession<T>(work: (session: Handle) => Promise<T>): Promise<T> {
      return run(await acquire(), work);
    },
    close() {
      if (closed) return;
      closed = true;
      for (const session of idle.splice(0)) closeQuietly(options, session);
      // Busy sessions are closed as they are released; queued callers are told now.
      for (const waiter of waiters.splice(0)) waiter.reject(new SignerError("CLOSED", "pkcs11 signer is closed"));
    },
  });
}

function openSession(options: SessionPoolOptions): Handle {
  const { api, library } = options.module;
  try {
    return library.C_OpenSession(options.slot, api.CKF_SERIAL_SESSION);
  } catch (error) {
    throw new SignerError("BACKEND_UNAVAILABLE", `pkcs11: cannot open a session (${pkcs11ErrorName(error)})`);
  }
}

function login(options: SessionPoolOptions, session: Handle): void {
  const { api, library } = options.module;
  try {
    library.C_Login(session, api.CKU_USER, options.pin);
  } catch (error) {
    const code = pkcs11Code(error);
    if (code === CKR.USER_ALREADY_LOGGED_IN) return;
    closeQuietly(options, session);
    // SECURITY: the PIN itself never appears; only the setting that supplied it.
    if (code !== null && PIN_REJECTED_CODES.has(code)) {
      options.onPinRejected?.(pkcs11ErrorName(error));
      throw new SignerError("ACCESS_DENIED", `${options.pinSetting}: the token rejected the PIN (${pkcs11ErrorName(error)})`);
    }
    throw new SignerError("BACKEND_UNAVAILABLE", `pkcs11: login failed (${pkcs11ErrorName(error)})`);
  }
}

function closeQuietly(options: SessionPoolOptions, session: Handle): void {
  try {
    options.module.library.C_CloseSession(session);
  } catch {
    // The session is already gone (token removed); nothing to release.
  }
}
