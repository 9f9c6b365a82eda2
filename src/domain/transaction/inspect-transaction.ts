import {
  type Address,
  type ReadonlyUint8Array,
  type SignatureBytes,
  type SignaturesMap,
  type Transaction,
  type TransactionMessageBytes,
} from "@solana/kit";
import { reject, type Rejection } from "../rejection.ts";
import { fromBase64 } from "../codecs/base64.ts";
import { createAddressCache } from "./address-cache.ts";
import { decodeInstructionMeaning } from "./decode-instruction.ts";
import type { InspectedInstruction, SignatureSlot, TransactionView } from "./transaction-view.ts";
import { parseWireTransaction, type RawTransaction } from "@x84/solana-wire";

export type InspectionResult = Readonly<{ ok: true; view: TransactionView }> | Readonly<{ ok: false; rejection: Rejection }>;

const addresses = createAddressCache();
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

/** Upper bound on what is even decoded: several times the packet limit, so size errors stay precise. */
const MAX_DECODED_BYTES = 8 * 1232;

/** Strict base64 (padded, standard alphabet) to bytes, or a rejection. */
export function decodeBase64Transaction(base64: string): Uint8Array | Rejection {
  if (base64 === "") return reject("INVALID_TRANSACTION", "transaction is empty");
  // SECURITY: bound the work an attacker can make us do before any size rule applies.
  if (base64.length > (MAX_DECODED_BYTES * 4) / 3 + 4) {
    return reject("TRANSACTION_TOO_LARGE", `transaction is over ${MAX_DECODED_BYTES} bytes`);
  }
  if (!BASE64.test(base64)) return reject("INVALID_TRANSACTION", "transaction is not valid base64");
  // The pattern above is the strictness; past it the native decoder gives kit's bytes, faster.
  return fromBase64(base64);
}

/**
 * Decodes wire bytes into a {@link TransactionView}. Payment problems come back as a
 * rejection (INVALID_TRANSACTION); this function never throws.
 *
 * SECURITY: the bytes we check must be the bytes that run. The strict reader refuses
 * truncated, padded and non-canonical encodings (kit's decoder alone accepts some, such as a
 * message missing its last byte, that the ledger reads differently or that crash litesvm).
 */
export function inspectWireTransaction(wire: Uint8Array): InspectionResult {
  const parsed = parseWireTransaction(wire);
  if (!parsed.ok) return failed(`transaction does not decode: ${parsed.problem}`);
  return buildView(wire, parsed.value);
}

/** {@link decodeBase64Transaction} then {@link inspectWireTransaction}. */
export function inspectTransaction(base64: string): InspectionResult {
  const wire = decodeBase64Transaction(base64);
  if (!(wire instanceof Uint8Array)) return { ok: false, rejection: wire };
  return inspectWireTransaction(wire);
}

function buildView(wire: Uint8Array, raw: RawTransaction): InspectionResult {
  const staticAccounts = raw.accountKeys.map((key) => addresses.toAddress(key));
  const feePayer = staticAccounts[0];
  if (!feePayer) return failed("message has no accounts");
  if (new Set(staticAccounts).size !== staticAccounts.length) {
    // SECURITY: a repeated account would collapse in the signature map and is rejected by the runtime.
    return failed("message lists an account twice");
  }
  if (raw.numSigners < 1 || raw.numReadonlySigners >= raw.numSigners) {
    return failed("message header leaves no writable fee payer");
  }
  if (raw.numSigners + raw.numReadonlyNonSigners > staticAccounts.length) {
    return failed("message header counts more accounts than the message lists");
  }
  const lookupTables = raw.lookups.map((lookup) => addresses.toAddress(lookup.table));
  const lookupAccountCount = raw.lookups.reduce((sum, l) => sum + l.writable.byteLength + l.readonly.byteLength, 0);
  const instructions = inspectInstructions(raw, staticAccounts, lookupAccountCount);
  if (typeof instructions === "string") return failed(instructions);

  const signatureSlots: SignatureSlot[] = [];
  const signatures: Record<Address, SignatureBytes | null> = {};
  for (let i = 0; i < raw.numSigners; i++) {
    const address = staticAccounts[i];
    const publicKey = raw.accountKeys[i];
    const bytes = raw.signatures[i];
    if (!address || !publicKey || !bytes) return failed("signature slots do not match the signers");
    const signature = isAllZero(bytes) ? null : new Uint8Array(bytes);
    signatureSlots.push({ address, publicKey: new Uint8Array(publicKey), signature });
    // kit's own representation, so settlement can co-sign without decoding again.
    signatures[address] = signature as SignatureBytes | null;
  }
  const messageBytes = new Uint8Array(raw.messageBytes);
  const transaction: Transaction = Object.freeze({
    messageBytes: messageBytes as ReadonlyUint8Array as TransactionMessageBytes,
    signatures: Object.freeze(signatures) as SignaturesMap,
  });
  const view: TransactionView = {
    wire,
    transaction,
    messageBytes,
    version: raw.version,
    feePayer,
    signatureSlots,
    staticAccounts,
    lookupTables,
    instructions,
    recentBlockhash: addresses.toAddress(raw.recentBlockhash),
  };
  return { ok: true, view: Object.freeze(view) };
}

/** Resolves account indexes against the static list; returns a problem description on failure. */
function inspectInstructions(
  raw: RawTransaction,
  accounts: readonly Address[],
  lookupAccountCount: number,
): InspectedInstruction[] | string {
  const result: InspectedInstruction[] = [];
  for (const [index, instruction] of raw.instructions.entries()) {
    const program = accounts[instruction.programIndex];
    if (!program) return `instruction ${index} names a program outside the static accounts`;
    const listed: Address[] = [];
    for (const accountIndex of instruction.accountIndexes) {
      const account = accounts[accountIndex];
      if (account) {
        listed.push(account);
        continue;
      }
      // Lookup-table accounts are unresolvable here; the lookup rule rejects the transaction anyway.
      if (accountIndex >= accounts.length + lookupAccountCount) {
        return `instruction ${index} names an account outside the message`;
      }
    }
    const data = new Uint8Array(instruction.data);
    result.push({ index, programAddress: program, accounts: listed, data, meaning: decodeInstructionMeaning(program, listed, data) });
  }
  return result;
}

function isAllZero(bytes: Uint8Array): boolean {
  for (const byte of bytes) if (byte !== 0) return false;
  return true;
}

function failed(message: string): InspectionResult {
  return { ok: false, rejection: reject("INVALID_TRANSACTION", message) };
}
