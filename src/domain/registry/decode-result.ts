import type { Decoder, ReadonlyUint8Array } from "@solana/kit";
import { hasDiscriminator } from "./borsh-codecs.ts";

/** Decoding never throws: account data comes from the network and may be anything. */
export type DecodeResult<T> =
  /** `size`: the bytes the fields took, discriminator included; anything after is padding the decode ignored. */
  | Readonly<{ ok: true; value: T; size: number }>
  | Readonly<{ ok: false; reason: "wrong-discriminator" | "malformed"; detail: string }>;

/**
 * Decodes one account with its discriminator-prefixed decoder. Trailing bytes are allowed:
 * Anchor allocates accounts at their maximum size, so short strings leave zero padding.
 */
export function decodeAccountData<T>(
  decoder: Decoder<T>,
  discriminator: ReadonlyUint8Array,
  data: ReadonlyUint8Array,
): DecodeResult<T> {
  if (!hasDiscriminator(data, discriminator)) {
    return { ok: false, reason: "wrong-discriminator", detail: "data does not start with the account discriminator" };
  }
  try {
    const [value, size] = decoder.read(data, 0);
    return { ok: true, value, size };
  } catch (error) {
    return { ok: false, reason: "malformed", detail: error instanceof Error ? error.message : String(error) };
  }
}
