import {
  bytesEqual,
  type Address,
  type CompiledTransactionMessageWithLifetime,
  type LegacyCompiledTransactionMessage,
  type ReadonlyUint8Array,
  type SignatureBytes,
  type Transaction,
  type TransactionMessageBytes,
  type V0CompiledTransactionMessage,
} from "@solana/kit";
import { parseWireTransaction, type RawInstruction, type RawLookup, type RawTransaction } from "@x84/solana-wire";
import { addressOf, base58Text } from "./base58.ts";

/** The message versions litesvm executes and this ledger accepts. */
export type SupportedMessage = (LegacyCompiledTransactionMessage | V0CompiledTransactionMessage) &
  CompiledTransactionMessageWithLifetime;

/**
 * The fast path of the wire guard: @x84/solana-wire's strict wire reader (the one the facilitator's
 * /verify uses), turned into the objects kit builds.
 *
 * That reader accepts only bytes with every length prefix in its shortest form, every field
 * complete, nothing left over and one signature per signer. Adding distinct signer keys and a
 * signature count kit reads as one envelope, these are exactly the bytes kit's decoders read AND
 * re-encode identically; for them this builds the same transaction and message kit builds
 * (tests/wire-parse.test.ts compares them on valid and mutated transactions). Anything
 * else returns null and goes through kit's full decode-and-re-encode check, so refusals and their
 * reasons are kit's.
 */
export type ParsedWire = Readonly<{
  transaction: Transaction;
  message: SupportedMessage;
  /** Raw 32-byte keys of `message.staticAccounts`, in order. */
  accountKeys: readonly Uint8Array[];
}>;

type Instruction = SupportedMessage["instructions"][number];
type Lookup = Readonly<{ lookupTableAddress: Address; writableIndexes: number[]; readonlyIndexes: number[] }>;

function instructionOf({ programIndex, accountIndexes, data }: RawInstruction): Instruction {
  // kit leaves out empty optional fields.
  return {
    programAddressIndex: programIndex,
    ...(accountIndexes.length ? { accountIndices: Array.from(accountIndexes) } : null),
    ...(data.byteLength ? { data: data.slice() } : null),
  };
}

function lookupOf({ table, writable, readonly }: RawLookup): Lookup {
  return { lookupTableAddress: addressOf(table), writableIndexes: Array.from(writable), readonlyIndexes: Array.from(readonly) };
}

function hasDuplicate(keys: readonly Uint8Array[]): boolean {
  for (let i = 0; i < keys.length; i++) {
    for (let j = i + 1; j < keys.length; j++) if (bytesEqual(keys[i] as Uint8Array, keys[j] as Uint8Array)) return true;
  }
  return false;
}

/** What kit reads differently from the strict reader: 128+ signatures (another envelope), no signer, repeated keys. */
function kitReadsDifferently(raw: RawTransaction): boolean {
  const signers = raw.signatures.length;
  // 128+ signatures would set the first byte's high bit, which kit reads as another envelope.
  if (signers === 0 || signers >= 0x80 || signers > raw.accountKeys.length) return true;
  // kit maps signatures by signer address: a repeated key changes the bytes.
  return hasDuplicate(raw.accountKeys);
}

function messageOf(raw: RawTransaction, keys: readonly Uint8Array[]): SupportedMessage {
  const base = {
    header: { numSignerAccounts: raw.numSigners, numReadonlySignerAccounts: raw.numReadonlySigners, numReadonlyNonSignerAccounts: raw.numReadonlyNonSigners },
    staticAccounts: keys.map(addressOf),
    lifetimeToken: base58Text(raw.recentBlockhash),
    instructions: raw.instructions.map(instructionOf),
  };
  const message =
    raw.version === 0
      ? { ...base, ...(raw.lookups.length ? { addressTableLookups: raw.lookups.map(lookupOf) } : null), version: 0 as const }
      : { ...base, version: "legacy" as const };
  return message as SupportedMessage;
}

/** The canonical transaction in `wire`, or null when kit's full check must decide. */
export function parseCanonicalWire(wire: Uint8Array): ParsedWire | null {
  const parsed = parseWireTransaction(wire);
  if (!parsed.ok || kitReadsDifferently(parsed.value)) return null;
  const raw = parsed.value;
  // Copies: the ledger keeps these after the caller's buffer is gone (and litesvm takes keys as bytes).
  const keys = raw.accountKeys.map((key) => key.slice());
  const message = messageOf(raw, keys);
  const signatureMap: Record<Address, SignatureBytes | null> = {};
  raw.signatures.forEach((signature, i) => {
    // Branded types: these are exactly the 64 signature bytes and the message bytes kit would return.
    signatureMap[message.staticAccounts[i] as Address] = signature.every((b) => b === 0) ? null : (signature.slice() as SignatureBytes);
  });
  const messageBytes: ReadonlyUint8Array = raw.messageBytes.slice();
  const transaction: Transaction = { messageBytes: messageBytes as TransactionMessageBytes, signatures: Object.freeze(signatureMap) };
  return Object.freeze({ transaction, message, accountKeys: keys });
}
