import { createHash } from "node:crypto";
import {
  getAddressEncoder,
  getBooleanEncoder,
  getI64Encoder,
  getU16Encoder,
  getU32Encoder,
  getU64Encoder,
  getU8Encoder,
  getUtf8Encoder,
  type Address,
  type Encoder,
  type ReadonlyUint8Array,
} from "@solana/kit";

/**
 * Expected account bytes, written field by field in the order a test spells out from the IDL. Each
 * primitive goes through kit's own encoder; the layout (order, widths, length and option prefixes)
 * is the test's, so a wrong field order or width in an account codec still fails.
 */
export class BorshBytes {
  private readonly parts: ReadonlyUint8Array[] = [];
  private size = 0;

  get length(): number {
    return this.size;
  }
  raw(bytes: ReadonlyUint8Array | readonly number[]): this {
    this.parts.push(Uint8Array.from(bytes));
    this.size += bytes.length;
    return this;
  }
  private put<T>(encoder: Encoder<T>, value: T): this {
    return this.raw(encoder.encode(value));
  }
  readonly u8 = (value: number) => this.put(getU8Encoder(), value);
  readonly bool = (value: boolean) => this.put(getBooleanEncoder(), value);
  readonly u16 = (value: number) => this.put(getU16Encoder(), value);
  readonly u32 = (value: number) => this.put(getU32Encoder(), value);
  readonly u64 = (value: bigint) => this.put(getU64Encoder(), value);
  readonly i64 = (value: bigint) => this.put(getI64Encoder(), value);
  readonly pubkey = (address: Address) => this.put(getAddressEncoder(), address);
  /** u32 byte length, then UTF-8. */
  string(text: string): this {
    const utf8 = getUtf8Encoder().encode(text);
    return this.u32(utf8.length).raw(utf8);
  }
  /** u32 count, then each item. */
  vec<T>(items: readonly T[], write: (item: T) => unknown): this {
    this.u32(items.length);
    for (const item of items) write(item);
    return this;
  }
  /** 0, or 1 then the value. */
  option<T>(value: T | null, write: (value: T) => unknown): this {
    if (value === null) return this.u8(0);
    this.u8(1);
    write(value);
    return this;
  }
  done(): Uint8Array {
    const out = new Uint8Array(this.size);
    let offset = 0;
    for (const part of this.parts) {
      out.set(part, offset);
      offset += part.length;
    }
    return out;
  }
}

/** Anchor's discriminator rule, computed apart from the code under test: sha256("<namespace>:<name>")[0..8]. */
export function anchorDiscriminator(preimage: string): Uint8Array {
  return Uint8Array.from(createHash("sha256").update(preimage).digest().subarray(0, 8));
}
