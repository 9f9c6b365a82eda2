import type { Transaction } from "@solana/kit";

const SIGNATURE_BYTES = 64;

/**
 * A transaction's wire bytes, exactly as kit's `getTransactionEncoder().encode` writes them: the
 * signature count (compact-u16), each signer's 64 bytes in the order of `signatures` (zeros for a
 * missing one), then the message. One allocation and three copies: kit's composed encoder cost
 * each settlement more than its signing did in our server's profile (issue 26, fourth round).
 * Legacy and v0 messages only (the versions payments are parsed as); kit writes a v1 message
 * first, so anything else throws rather than being written in the wrong shape.
 */
export function transactionWire(transaction: Transaction): Uint8Array {
  const message = transaction.messageBytes as unknown as Uint8Array;
  const first = message[0];
  if (first === undefined) throw new RangeError("an empty message");
  if ((first & 0x80) !== 0 && (first & 0x7f) !== 0) throw new RangeError(`message version ${first & 0x7f} is not written signatures first`);
  const signatures = Object.values(transaction.signatures);
  if (signatures.length === 0) throw new RangeError("a transaction without signers");
  const count = compactU16(signatures.length);
  const wire = new Uint8Array(count.length + signatures.length * SIGNATURE_BYTES + message.length);
  wire.set(count, 0);
  let offset = count.length;
  for (const signature of signatures) {
    if (signature) {
      if (signature.length !== SIGNATURE_BYTES) throw new RangeError(`a signature of ${signature.length} bytes`);
      wire.set(signature, offset);
    }
    offset += SIGNATURE_BYTES;
  }
  wire.set(message, offset);
  return wire;
}

/** Solana's shortvec: 7 bits a byte, low first, the high bit set on every byte but the last. */
function compactU16(value: number): Uint8Array {
  if (!Number.isInteger(value) || value < 0 || value > 0xffff) throw new RangeError(`${value} is no u16`);
  const bytes: number[] = [];
  let rest = value;
  do {
    let byte = rest & 0x7f;
    rest >>= 7;
    if (rest > 0) byte |= 0x80;
    bytes.push(byte);
  } while (rest > 0);
  return Uint8Array.from(bytes);
}
