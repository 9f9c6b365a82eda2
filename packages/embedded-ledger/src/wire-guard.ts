import {
  getCompiledTransactionMessageDecoder,
  getCompiledTransactionMessageEncoder,
  getTransactionDecoder,
  getTransactionEncoder,
  bytesEqual,
  type Address,
  type CompiledTransactionMessage,
  type CompiledTransactionMessageWithLifetime,
  type Signature,
  type ReadonlyUint8Array,
  type Transaction,
} from "@solana/kit";
import { signatureOf } from "./base58.ts";
import { parseCanonicalWire, type SupportedMessage } from "./wire-parse.ts";

/** Largest wire transaction a Solana node accepts (one UDP packet minus headers). */
export const MAX_WIRE_TRANSACTION_BYTES = 1232;

export type CheckedTransaction = Readonly<{
  transaction: Transaction;
  message: SupportedMessage;
  /** First signature (the fee payer's) in base58; null when that slot is all zeros. */
  signature: Signature | null;
  feePayer: Address;
  blockhash: string;
  /** Raw 32-byte keys of `message.staticAccounts`, in order (litesvm takes keys as bytes). */
  accountKeys: readonly Uint8Array[];
}>;

export type WireCheck = Readonly<{ ok: true; value: CheckedTransaction }> | Readonly<{ ok: false; reason: string }>;

function fail(reason: string): WireCheck {
  return Object.freeze({ ok: false, reason });
}

/** Structural checks kit's codecs do not make but the runtime's sanitizer relies on. */
function structuralProblem(message: SupportedMessage, signatureCount: number): string | null {
  const { header, staticAccounts, instructions } = message;
  if (header.numSignerAccounts === 0) return "transaction has no signer";
  if (signatureCount !== header.numSignerAccounts) return "signature count does not match the message header";
  if (staticAccounts.length < header.numSignerAccounts) return "more signers than account keys";
  if (header.numReadonlySignerAccounts >= header.numSignerAccounts) return "fee payer must be a writable signer";
  if (header.numReadonlyNonSignerAccounts > staticAccounts.length - header.numSignerAccounts) {
    return "readonly account count out of range";
  }
  if (new Set(staticAccounts).size !== staticAccounts.length) return "account loaded twice";
  const lookups = "addressTableLookups" in message ? (message.addressTableLookups ?? []) : [];
  const loaded = lookups.reduce((n, l) => n + l.readonlyIndexes.length + l.writableIndexes.length, 0);
  const totalAccounts = staticAccounts.length + loaded;
  if (totalAccounts > 256) return "too many account keys";
  for (const ix of instructions) {
    // Programs must be static keys (never loaded from a lookup table) and not the fee payer.
    if (ix.programAddressIndex === 0 || ix.programAddressIndex >= staticAccounts.length) {
      return "instruction program index out of range";
    }
    for (const index of ix.accountIndices ?? []) {
      if (index >= totalAccounts) return "instruction account index out of range";
    }
  }
  return null;
}

/** Offset of the first static key: optional version byte, 3 header bytes, shortU16 key count. */
function keysOffset(message: SupportedMessage, messageBytes: ReadonlyUint8Array): number {
  let at = (message.version === "legacy" ? 0 : 1) + 3;
  while (((messageBytes[at] ?? 0) & 0x80) !== 0) at++;
  return at + 1;
}

function keyBytesOf(message: SupportedMessage, messageBytes: ReadonlyUint8Array): Uint8Array[] {
  const start = keysOffset(message, messageBytes);
  return message.staticAccounts.map((_, i) => Uint8Array.from(messageBytes.subarray(start + 32 * i, start + 32 * (i + 1))));
}

type Decoded = Readonly<{ transaction: Transaction; message: SupportedMessage; accountKeys: readonly Uint8Array[] }>;

/** kit's decode of the transaction and its message, each re-encoded to the identical bytes. */
export function decodeWithKit(wire: Uint8Array): Decoded | WireCheck {
  let transaction: Transaction;
  let message: CompiledTransactionMessage & CompiledTransactionMessageWithLifetime;
  try {
    transaction = getTransactionDecoder().decode(wire);
    if (!bytesEqual(getTransactionEncoder().encode(transaction), wire)) {
      return fail("transaction bytes are not canonical");
    }
    message = getCompiledTransactionMessageDecoder().decode(transaction.messageBytes);
    if (!bytesEqual(getCompiledTransactionMessageEncoder().encode(message), transaction.messageBytes)) {
      return fail("message bytes are not canonical");
    }
  } catch {
    return fail("failed to deserialize transaction");
  }
  if (message.version !== "legacy" && message.version !== 0) return fail("unsupported transaction version");
  const supported: SupportedMessage = message;
  return { transaction, message: supported, accountKeys: keyBytesOf(supported, transaction.messageBytes) };
}

/**
 * SECURITY: litesvm aborts the whole process on wire bytes its deserializer rejects, and
 * kit's decoder alone accepts some of those (a message missing its last byte decodes
 * fine at the transaction level). Untrusted bytes reach litesvm only when kit decodes
 * both the transaction and the message AND re-encoding each gives the identical bytes,
 * the version is one litesvm executes, and the layout passes the sanitizer's rules.
 * The fast path (wire-parse.ts, over @x84/solana-wire's strict reader) accepts only bytes that pass that same test, with the
 * same decoded result, without kit's per-key base58; everything else takes kit's path.
 */
export function checkWireTransaction(wire: Uint8Array): WireCheck {
  if (wire.length === 0) return fail("empty transaction");
  if (wire.length > MAX_WIRE_TRANSACTION_BYTES) {
    return fail(`transaction too large: ${wire.length} bytes (max: ${MAX_WIRE_TRANSACTION_BYTES})`);
  }
  const decoded = parseCanonicalWire(wire) ?? decodeWithKit(wire);
  if ("ok" in decoded) return decoded;
  const { transaction, message, accountKeys } = decoded;
  const signers = Object.keys(transaction.signatures);
  const problem = structuralProblem(message, signers.length);
  if (problem !== null) return fail(problem);
  const feePayer = message.staticAccounts[0];
  if (feePayer === undefined) return fail("transaction has no fee payer");
  const first = transaction.signatures[feePayer];
  const signature = first ? signatureOf(Uint8Array.from(first)) : null;
  return Object.freeze({
    ok: true,
    value: Object.freeze({ transaction, message, signature, feePayer, blockhash: message.lifetimeToken, accountKeys: Object.freeze(accountKeys) }),
  });
}
