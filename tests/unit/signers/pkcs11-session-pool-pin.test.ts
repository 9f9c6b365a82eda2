// A running pool whose login the token dropped (HSM failover, a PIN changed on the HSM) logs in
// again with the PIN it holds; when the token rejects that PIN, it must not try again on the next
// request, or every request would spend one of the HSM's few failed logins before the lockout.
// With a FAKE PKCS#11 library: SoftHSM2 answers a lost login with CKR_OBJECT_HANDLE_INVALID
// instead of CKR_USER_NOT_LOGGED_IN, so the renewal path cannot be reached with a real token here.
import { expect, test } from "bun:test";
import { CKR } from "../../../src/infrastructure/signers/pkcs11-constants.ts";
import type { Pkcs11Module } from "../../../src/infrastructure/signers/pkcs11-module.ts";
import { openSessionPool } from "../../../src/infrastructure/signers/pkcs11-session-pool.ts";
import { SignerError } from "../../../src/infrastructure/signers/signer-error.ts";

const pkcs11Error = (code: number, name: string) => Object.assign(new Error(`${name}:${code}`), { code });

function fakeToken() {
  const state = { pinAccepted: true, logins: 0, sessions: 0 };
  const library = {
    C_OpenSession: () => Buffer.from([++state.sessions]),
    C_CloseSession: () => undefined,
    C_Login: () => {
      state.logins += 1;
      if (!state.pinAccepted) throw pkcs11Error(CKR.PIN_INCORRECT, "CKR_PIN_INCORRECT");
    },
  };
  // Only what the pool calls; the cast stands for the rest of the PKCS#11 surface it never touches.
  const module = { api: { CKF_SERIAL_SESSION: 4, CKU_USER: 1 }, library, release: () => undefined } as unknown as Pkcs11Module;
  return { state, module };
}

const lostLogin = () => Promise.reject(pkcs11Error(CKR.USER_NOT_LOGGED_IN, "CKR_USER_NOT_LOGGED_IN"));

test("after the token rejects the PIN on a renewal, later renewals refuse without logging in, even once the PIN would be accepted", async () => {
  const { state, module } = fakeToken();
  const rejected: string[] = [];
  const pool = openSessionPool({ module, slot: Buffer.from([0]), size: 1, pin: "1234", pinSetting: "FEE_PAYER_PKCS11_PIN_FILE", onPinRejected: (reason) => rejected.push(reason) });
  expect(state.logins).toBe(1);

  // The login is lost and the PIN changed on the HSM: one renewal, one rejected login.
  state.pinAccepted = false;
  const first = await pool.withSession(lostLogin).catch((e: unknown) => e);
  expect(first instanceof SignerError && first.code).toBe("ACCESS_DENIED");
  expect(state.logins).toBe(2);
  expect(rejected).toEqual(["CKR_PIN_INCORRECT"]);

  state.pinAccepted = true;
  for (let i = 0; i < 3; i++) {
    const again = await pool.withSession(lostLogin).catch((e: unknown) => e);
    expect(again instanceof SignerError && again.code).toBe("ACCESS_DENIED");
    expect((again as SignerError).message).toContain("not logging in again");
  }
  expect(state.logins).toBe(2);
  pool.close();
});

test("a renewal whose login succeeds goes on as before (one login per lost login)", async () => {
  const { state, module } = fakeToken();
  const pool = openSessionPool({ module, slot: Buffer.from([0]), size: 1, pin: "1234", pinSetting: "FEE_PAYER_PKCS11_PIN" });
  let calls = 0;
  const once = () => (++calls === 1 ? lostLogin() : Promise.resolve("signed"));
  expect(await pool.withSession(once)).toBe("signed");
  expect(state.logins).toBe(2);
  pool.close();
});
