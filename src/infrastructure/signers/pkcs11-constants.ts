/**
 * PKCS#11 3.0 identifiers for Ed25519 that pkcs11js (written against 2.40) does not export.
 * Values from the OASIS PKCS#11 3.0 headers (pkcs11t.h).
 */
export const CKK_EC_EDWARDS = 0x40;
export const CKM_EDDSA = 0x1057;


/** Return values the adapter reacts to rather than reports. */
export const CKR = Object.freeze({
  OPERATION_ACTIVE: 0x90,
  PIN_INCORRECT: 0xa0,
  PIN_INVALID: 0xa1,
  PIN_LEN_RANGE: 0xa2,
  PIN_EXPIRED: 0xa3,
  PIN_LOCKED: 0xa4,
  SESSION_CLOSED: 0xb0,
  SESSION_HANDLE_INVALID: 0xb3,
  DEVICE_REMOVED: 0x32,
  TOKEN_NOT_PRESENT: 0xe0,
  USER_ALREADY_LOGGED_IN: 0x100,
  USER_NOT_LOGGED_IN: 0x101,
  CRYPTOKI_ALREADY_INITIALIZED: 0x191,
});

/**
 * A session in one of these states is discarded and replaced instead of reused.
 * OPERATION_ACTIVE: a sign that failed between SignInit and Sign can leave the operation
 * open, and a fresh session is the portable way to clear it.
 */
export const SESSION_LOST_CODES: ReadonlySet<number> = new Set([
  CKR.OPERATION_ACTIVE,
  CKR.SESSION_CLOSED,
  CKR.SESSION_HANDLE_INVALID,
  CKR.DEVICE_REMOVED,
  CKR.TOKEN_NOT_PRESENT,
  CKR.USER_NOT_LOGGED_IN,
]);

export const PIN_REJECTED_CODES: ReadonlySet<number> = new Set([
  CKR.PIN_INCORRECT,
  CKR.PIN_INVALID,
  CKR.PIN_LEN_RANGE,
  CKR.PIN_EXPIRED,
  CKR.PIN_LOCKED,
]);

export function pkcs11Code(error: unknown): number | null {
  const code = typeof error === "object" && error !== null ? (error as { code?: unknown }).code : undefined;
  return typeof code === "number" ? code : null;
}

/** `CKR_PIN_INCORRECT`-style name from a pkcs11js error, or a neutral word; never free text. */
export function pkcs11ErrorName(error: unknown): string {
  const message = error instanceof Error ? error.message : "";
  const match = /CKR_[A-Z0-9_]+/.exec(message);
  if (match !== null) return match[0];
  const code = pkcs11Code(error);
  return code === null ? "native error" : `CKR 0x${code.toString(16)}`;
}
