import type { ReasonCode } from "./reason-codes.ts";

/** Why a payment was refused: a stable code plus a message for humans. Never thrown. */
export type Rejection = Readonly<{ reason: ReasonCode; message: string }>;

export function reject(reason: ReasonCode, message: string): Rejection {
  return Object.freeze({ reason, message });
}
