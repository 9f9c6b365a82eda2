import type { ReadonlyUint8Array } from "@solana/kit";

/** Byte-wise equality. Not constant-time: it only compares public on-chain data. */
export function bytesEqual(a: ReadonlyUint8Array, b: ReadonlyUint8Array): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}
