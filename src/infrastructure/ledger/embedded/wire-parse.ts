import type { Address, ReadonlyUint8Array, SignatureBytes, Transaction, TransactionMessageBytes } from "@solana/kit";
import { addressOf, base58Text } from "./base58.ts";
import type { SupportedMessage } from "./wire-guard.ts";

/**
 * A direct reader for the canonical legacy/v0 wire layout, the fast path of the wire guard.
 *
 * It accepts only bytes that kit's decoders read AND re-encode to the identical bytes:
 * every length prefix in its shortest form, every field complete, nothing left over,
 * distinct signer keys, one signature per signer. For those bytes it builds the same
 * transaction and message objects kit builds (tests/ledger/wire-parse.test.ts compares
 * them on valid and mutated transactions). Anything else returns null and goes through
 * kit's full decode-and-re-encode check, so refusals and their reasons are kit's.
 */
export type ParsedWire = Readonly<{
  transaction: Transaction;
  message: SupportedMessage;
  /** Raw 32-byte keys of `message.staticAccounts`, in order. */
  accountKeys: readonly Uint8Array[];
}>;

const SIGNATURE_BYTES = 64;
const KEY_BYTES = 32;

/** A cursor over untrusted bytes; every read fails (returns -1 / null) instead of running past the end. */
type Cursor = { bytes: Uint8Array; at: number };

/** shortU16 in its shortest encoding only (kit re-encodes shortest, so a longer form is not canonical). */
function readShortU16(cursor: Cursor): number {
  let value = 0;
  for (let i = 0; i < 3; i++) {
    const byte = cursor.bytes[cursor.at + i];
    if (byte === undefined) return -1;
    value |= (byte & 0x7f) << (7 * i);
    if ((byte & 0x80) === 0) {
      // A zero continuation byte means a longer-than-needed form.
      if (i > 0 && byte === 0) return -1;
      if (value > 0xffff) return -1;
      cursor.at += i + 1;
      return value;
    }
  }
  return -1;
}

function readU8(cursor: Cursor): number {
  const byte = cursor.bytes[cursor.at];
  if (byte === undefined) return -1;
  cursor.at += 1;
  return byte;
}

function readBytes(cursor: Cursor, length: number): Uint8Array | null {
  if (length < 0 || cursor.at + length > cursor.bytes.length) return null;
  const out = cursor.bytes.slice(cursor.at, cursor.at + length);
  cursor.at += length;
  return out;
}

function readU8Array(cursor: Cursor): number[] | null {
  const count = readShortU16(cursor);
  const bytes = readBytes(cursor, count);
  return bytes ? Array.from(bytes) : null;
}

type Instruction = SupportedMessage["instructions"][number];

function readInstruction(cursor: Cursor): Instruction | null {
  const programAddressIndex = readU8(cursor);
  if (programAddressIndex < 0) return null;
  const accountIndices = readU8Array(cursor);
  if (!accountIndices) return null;
  const data = readBytes(cursor, readShortU16(cursor));
  if (!data) return null;
  // kit leaves out empty optional fields.
  return {
    programAddressIndex,
    ...(accountIndices.length ? { accountIndices } : null),
    ...(data.byteLength ? { data } : null),
  };
}

type Lookup = Readonly<{ lookupTableAddress: Address; writableIndexes: number[]; readonlyIndexes: number[] }>;

function readLookup(cursor: Cursor): Lookup | null {
  const key = readBytes(cursor, KEY_BYTES);
  const writableIndexes = key ? readU8Array(cursor) : null;
  const readonlyIndexes = writableIndexes ? readU8Array(cursor) : null;
  if (!key || !writableIndexes || !readonlyIndexes) return null;
  return { lookupTableAddress: addressOf(key), writableIndexes, readonlyIndexes };
}

function readList<T>(cursor: Cursor, read: (cursor: Cursor) => T | null): T[] | null {
  const count = readShortU16(cursor);
  if (count < 0) return null;
  const items: T[] = [];
  for (let i = 0; i < count; i++) {
    const item = read(cursor);
    if (item === null) return null;
    items.push(item);
  }
  return items;
}

function readKeys(cursor: Cursor): Uint8Array[] | null {
  const count = readShortU16(cursor);
  const keys: Uint8Array[] = [];
  for (let i = 0; i < count; i++) {
    const key = readBytes(cursor, KEY_BYTES);
    if (!key) return null;
    keys.push(key);
  }
  return count < 0 ? null : keys;
}

function sameKey(a: ReadonlyUint8Array, b: ReadonlyUint8Array): boolean {
  for (let i = 0; i < KEY_BYTES; i++) if (a[i] !== b[i]) return false;
  return true;
}

function hasDuplicate(keys: readonly Uint8Array[]): boolean {
  for (let i = 0; i < keys.length; i++) {
    for (let j = i + 1; j < keys.length; j++) if (sameKey(keys[i] as Uint8Array, keys[j] as Uint8Array)) return true;
  }
  return false;
}

function readMessage(messageBytes: Uint8Array): Readonly<{ message: SupportedMessage; keys: Uint8Array[] }> | null {
  const cursor: Cursor = { bytes: messageBytes, at: 0 };
  const first = messageBytes[0];
  if (first === undefined) return null;
  // High bit set: a versioned message; only version 0 takes this path.
  const versioned = (first & 0x80) !== 0;
  if (versioned && first !== 0x80) return null;
  if (versioned) cursor.at = 1;
  const header = readBytes(cursor, 3);
  const keys = header ? readKeys(cursor) : null;
  const lifetime = keys ? readBytes(cursor, KEY_BYTES) : null;
  const instructions = lifetime ? readList(cursor, readInstruction) : null;
  if (!header || !keys || !lifetime || !instructions) return null;
  const lookups = versioned ? readList(cursor, readLookup) : [];
  if (!lookups || cursor.at !== messageBytes.length) return null;
  const base = {
    header: { numSignerAccounts: header[0] ?? 0, numReadonlySignerAccounts: header[1] ?? 0, numReadonlyNonSignerAccounts: header[2] ?? 0 },
    staticAccounts: keys.map(addressOf),
    lifetimeToken: base58Text(lifetime),
    instructions,
  };
  const message = versioned
    ? { ...base, ...(lookups.length ? { addressTableLookups: lookups } : null), version: 0 as const }
    : { ...base, version: "legacy" as const };
  return { message: message as SupportedMessage, keys };
}

/** The canonical transaction in `wire`, or null when kit's full check must decide. */
export function parseCanonicalWire(wire: Uint8Array): ParsedWire | null {
  const cursor: Cursor = { bytes: wire, at: 0 };
  const signatureCount = readShortU16(cursor);
  // 128+ signatures would set the first byte's high bit, which kit reads as another envelope.
  if (signatureCount <= 0 || signatureCount >= 0x80) return null;
  const signatures: Uint8Array[] = [];
  for (let i = 0; i < signatureCount; i++) {
    const signature = readBytes(cursor, SIGNATURE_BYTES);
    if (!signature) return null;
    signatures.push(signature);
  }
  const messageBytes = wire.slice(cursor.at);
  const parsed = readMessage(messageBytes);
  if (!parsed) return null;
  const { message, keys } = parsed;
  const signers = message.header.numSignerAccounts;
  // kit maps signatures by signer address: a repeated key or a count mismatch changes the bytes.
  if (signers !== signatureCount || signers > keys.length || hasDuplicate(keys)) return null;
  const signatureMap: Record<Address, SignatureBytes | null> = {};
  signatures.forEach((signature, i) => {
    // Branded types: these are exactly the 64 signature bytes and the message bytes kit would return.
    signatureMap[message.staticAccounts[i] as Address] = signature.every((b) => b === 0) ? null : (signature as SignatureBytes);
  });
  const readonlyMessage: ReadonlyUint8Array = messageBytes;
  const transaction: Transaction = { messageBytes: readonlyMessage as TransactionMessageBytes, signatures: Object.freeze(signatureMap) };
  return Object.freeze({ transaction, message, accountKeys: keys });
}
