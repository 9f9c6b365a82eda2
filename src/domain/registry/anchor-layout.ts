import { sha256 } from "@noble/hashes/sha2.js";
import {
  getConstantCodec,
  getHiddenPrefixCodec,
  getStructCodec,
  type Codec,
  type Decoder,
  type Encoder,
  type ReadonlyUint8Array,
} from "@solana/kit";
import { decodeAccountData, type DecodeResult } from "./decode-result.ts";

/**
 * Field name -> kit codec, in IDL order. Object keys keep their insertion order (none of these
 * names is an integer), so the record is the Borsh field order. `never` in and `unknown` out is
 * the widest codec type: every kit codec meets it, and the field types are inferred below.
 */
export type LayoutFields = Readonly<Record<string, Encoder<never> & Decoder<unknown>>>;

type EncodedFields<F extends LayoutFields> = { [K in keyof F]: F[K] extends Encoder<infer From> ? From : never };
type DecodedFields<F extends LayoutFields> = { [K in keyof F]: F[K] extends Decoder<infer To> ? To : never };

/** An Anchor account or instruction: 8-byte discriminator, then the Borsh fields. */
export type AnchorLayout<F extends LayoutFields> = Readonly<{
  discriminator: ReadonlyUint8Array;
  encode(value: EncodedFields<F>): Uint8Array;
  /** Never throws; trailing bytes are ignored (Anchor allocates accounts at their maximum size). */
  decode(data: ReadonlyUint8Array): DecodeResult<Readonly<DecodedFields<F>>>;
}>;

/** What a layout decodes to: the account (or instruction arguments) as the domain sees it. */
export type LayoutValue<L> = L extends AnchorLayout<infer F> ? Readonly<DecodedFields<F>> : never;

/** Anchor's rule: the first 8 bytes of sha256 of `account:<TypeName>` or `global:<instruction_name>`. */
export function anchorDiscriminator(preimage: string): Uint8Array {
  return sha256(new TextEncoder().encode(preimage)).slice(0, 8);
}

/** The registry program's account `name` (the IDL's type name, `AgentIdentity`). */
export function anchorAccount<F extends LayoutFields>(name: string, fields: F): AnchorLayout<F> {
  return anchorLayout(`account:${name}`, fields);
}

/** The arguments of instruction `name` (the IDL's snake_case name, `give_feedback`). */
export function anchorInstruction<F extends LayoutFields>(name: string, fields: F): AnchorLayout<F> {
  return anchorLayout(`global:${name}`, fields);
}

function anchorLayout<F extends LayoutFields>(preimage: string, fields: F): AnchorLayout<F> {
  const discriminator = anchorDiscriminator(preimage);
  // The record is typed field by field above; kit's struct codec wants the same pairs as a list.
  const struct = getStructCodec(Object.entries(fields) as [string, Codec<unknown>][]) as Codec<unknown>;
  const codec = getHiddenPrefixCodec(struct, [getConstantCodec(discriminator)]);
  const decoder = codec as Decoder<Readonly<DecodedFields<F>>>;
  return Object.freeze({
    discriminator,
    encode: (value: EncodedFields<F>) => new Uint8Array(codec.encode(value)),
    decode: (data: ReadonlyUint8Array) => decodeAccountData(decoder, discriminator, data),
  });
}
