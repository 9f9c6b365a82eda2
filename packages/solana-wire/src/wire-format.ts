/**
 * A strict reader of Solana's transaction wire format (legacy and v0 messages).
 *
 * Why not kit's `getTransactionDecoder` + `getCompiledTransactionMessageDecoder`: together with
 * the canonical re-encode check they cost ~400 µs per transaction (mostly base58 conversions),
 * four times the whole budget of a /verify request. This reader consumes every byte exactly once
 * with bounds checks, so a truncated, padded or non-canonical encoding is refused by construction
 * (tests cross-check it against kit's decoder on kit-built transactions).
 */


export type RawInstruction = Readonly<{ programIndex: number; accountIndexes: Uint8Array; data: Uint8Array }>;
export type RawLookup = Readonly<{ table: Uint8Array; writable: Uint8Array; readonly: Uint8Array }>;

export type RawTransaction = Readonly<{
  signatures: readonly Uint8Array[];
  messageBytes: Uint8Array;
  version: "legacy" | 0;
  numSigners: number;
  numReadonlySigners: number;
  numReadonlyNonSigners: number;
  accountKeys: readonly Uint8Array[];
  recentBlockhash: Uint8Array;
  instructions: readonly RawInstruction[];
  lookups: readonly RawLookup[];
}>;

export type WireParse = Readonly<{ ok: true; value: RawTransaction }> | Readonly<{ ok: false; problem: string }>;

/** Thrown inside the reader for malformed bytes; parseWireTransaction turns it into a problem. */
class MalformedWire extends Error {
  override readonly name = "MalformedWire";
}

function malformed(problem: string): MalformedWire {
  return new MalformedWire(problem);
}

/** A cursor over the bytes; every read is bounds-checked. */
class Reader {
  offset = 0;
  constructor(readonly bytes: Uint8Array) {}

  u8(what: string): number {
    const value = this.bytes[this.offset];
    if (value === undefined) throw malformed(`truncated at ${what}`);
    this.offset++;
    return value;
  }

  take(length: number, what: string): Uint8Array {
    if (this.offset + length > this.bytes.byteLength) throw malformed(`truncated at ${what}`);
    const slice = this.bytes.subarray(this.offset, this.offset + length);
    this.offset += length;
    return slice;
  }

  /** Solana's compact-u16, refusing the alias encodings the runtime refuses. */
  shortVec(what: string): number {
    let value = 0;
    for (let i = 0; i < 3; i++) {
      const byte = this.u8(what);
      value |= (byte & 0x7f) << (7 * i);
      if ((byte & 0x80) === 0) {
        if (i > 0 && byte === 0) throw malformed(`non-canonical length at ${what}`);
        if (value > 0xffff) throw malformed(`length overflow at ${what}`);
        return value;
      }
    }
    throw malformed(`length overflow at ${what}`);
  }
}

export function parseWireTransaction(wire: Uint8Array): WireParse {
  try {
    return { ok: true, value: readTransaction(new Reader(wire)) };
  } catch (error) {
    if (error instanceof MalformedWire) return { ok: false, problem: error.message };
    throw error;
  }
}

function readTransaction(reader: Reader): RawTransaction {
  const signatureCount = reader.shortVec("signature count");
  const signatures: Uint8Array[] = [];
  for (let i = 0; i < signatureCount; i++) signatures.push(reader.take(64, `signature ${i}`));
  const messageStart = reader.offset;
  const first = reader.bytes[reader.offset];
  let version: "legacy" | 0 = "legacy";
  if (first !== undefined && (first & 0x80) !== 0) {
    const number = first & 0x7f;
    if (number !== 0) throw malformed(`message version ${number} is not supported (legacy or 0)`);
    version = 0;
    reader.offset++;
  }
  const numSigners = reader.u8("header");
  const numReadonlySigners = reader.u8("header");
  const numReadonlyNonSigners = reader.u8("header");
  const accountCount = reader.shortVec("account count");
  const accountKeys: Uint8Array[] = [];
  for (let i = 0; i < accountCount; i++) accountKeys.push(reader.take(32, `account ${i}`));
  const recentBlockhash = reader.take(32, "recent blockhash");
  const instructions = readInstructions(reader);
  const lookups = version === 0 ? readLookups(reader) : [];
  if (reader.offset !== reader.bytes.byteLength) throw malformed("message has trailing bytes");
  if (signatureCount !== numSigners) {
    throw malformed(`${signatureCount} signatures for ${numSigners} required signers`);
  }
  return {
    signatures,
    messageBytes: reader.bytes.subarray(messageStart),
    version,
    numSigners,
    numReadonlySigners,
    numReadonlyNonSigners,
    accountKeys,
    recentBlockhash,
    instructions,
    lookups,
  };
}

function readInstructions(reader: Reader): RawInstruction[] {
  const count = reader.shortVec("instruction count");
  const instructions: RawInstruction[] = [];
  for (let i = 0; i < count; i++) {
    const programIndex = reader.u8(`instruction ${i} program`);
    const accountIndexes = reader.take(reader.shortVec(`instruction ${i} accounts`), `instruction ${i} accounts`);
    const data = reader.take(reader.shortVec(`instruction ${i} data`), `instruction ${i} data`);
    instructions.push({ programIndex, accountIndexes, data });
  }
  return instructions;
}

function readLookups(reader: Reader): RawLookup[] {
  const count = reader.shortVec("lookup table count");
  const lookups: RawLookup[] = [];
  for (let i = 0; i < count; i++) {
    const table = reader.take(32, `lookup table ${i}`);
    const writable = reader.take(reader.shortVec(`lookup ${i} writable`), `lookup ${i} writable`);
    const readonly = reader.take(reader.shortVec(`lookup ${i} readonly`), `lookup ${i} readonly`);
    lookups.push({ table, writable, readonly });
  }
  return lookups;
}
