import { getBase58Encoder } from "@solana/kit";

export type DecodedKey =
  | Readonly<{ ok: true; bytes: Uint8Array }>
  | Readonly<{ ok: false; reason: string }>;

const BASE58 = /^[1-9A-HJ-NP-Za-km-z]+$/;

/**
 * Decodes a private key written as a Solana CLI JSON byte array or as base58. Accepts the
 * 64-byte secret key (seed then public key) or the 32-byte seed.
 * SECURITY: reasons never include the text, because a malformed key is still mostly a key
 * and the reason ends up in boot logs.
 */
export function decodePrivateKeyText(text: string): DecodedKey {
  const trimmed = text.trim();
  if (trimmed === "") return { ok: false, reason: "is empty" };
  const bytes = trimmed.startsWith("[") ? decodeJsonByteArray(trimmed) : decodeBase58(trimmed);
  if (bytes === null) {
    return { ok: false, reason: "is neither a JSON byte array nor base58" };
  }
  if (bytes.length !== 64 && bytes.length !== 32) {
    return { ok: false, reason: `decodes to ${bytes.length} bytes; expected 64 (secret key) or 32 (seed)` };
  }
  return { ok: true, bytes };
}

function decodeJsonByteArray(text: string): Uint8Array | null {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return null;
  }
  if (!Array.isArray(parsed)) return null;
  const isByte = (v: unknown): v is number => typeof v === "number" && Number.isInteger(v) && v >= 0 && v <= 255;
  return parsed.every(isByte) ? Uint8Array.from(parsed) : null;
}

function decodeBase58(text: string): Uint8Array | null {
  // Checked first: kit's decoder error would quote the offending string.
  if (!BASE58.test(text)) return null;
  try {
    return new Uint8Array(getBase58Encoder().encode(text));
  } catch {
    return null;
  }
}
