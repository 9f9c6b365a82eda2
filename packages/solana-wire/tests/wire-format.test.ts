// Pure: the strict wire reader against kit's own decoders, on transactions kit builds and signs.
import { describe, expect, test } from "bun:test";
import {
  AccountRole,
  appendTransactionMessageInstructions,
  compressTransactionMessageUsingAddressLookupTables,
  createTransactionMessage,
  generateKeyPairSigner,
  getAddressDecoder,
  getBase58Encoder,
  getCompiledTransactionMessageDecoder,
  getTransactionDecoder,
  getTransactionEncoder,
  pipe,
  setTransactionMessageFeePayerSigner,
  setTransactionMessageLifetimeUsingBlockhash,
  signTransactionMessageWithSigners,
  type Address,
  type Blockhash,
} from "@solana/kit";
import { base58Text, MEMO_PROGRAM, parseWireTransaction, SYSTEM_PROGRAM, type RawTransaction } from "../src/index.ts";

const BLOCKHASH = "4vJ9JU1bJJE96FWSJKvHsmmFADCg4gpZQff4P3bkLKi" as Blockhash;
const randomAddress = () => getAddressDecoder().decode(crypto.getRandomValues(new Uint8Array(32)));

async function signedWire(version: 0 | "legacy", lookupTable?: Readonly<{ table: Address; addresses: Address[] }>): Promise<Uint8Array> {
  const payer = await generateKeyPairSigner();
  const cosigner = await generateKeyPairSigner();
  const readonlyAccount = lookupTable?.addresses[0] ?? randomAddress();
  const message = pipe(
    createTransactionMessage({ version }),
    (m) => setTransactionMessageFeePayerSigner(payer, m),
    (m) => setTransactionMessageLifetimeUsingBlockhash({ blockhash: BLOCKHASH, lastValidBlockHeight: 100n }, m),
    (m) =>
      appendTransactionMessageInstructions(
        [
          { programAddress: MEMO_PROGRAM, data: new TextEncoder().encode("hello"), accounts: [{ address: cosigner.address, role: AccountRole.READONLY_SIGNER, signer: cosigner }] },
          { programAddress: SYSTEM_PROGRAM, data: new Uint8Array([2, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0]), accounts: [{ address: readonlyAccount, role: AccountRole.READONLY }] },
        ],
        m,
      ),
  );
  const compressed = lookupTable && version === 0
    ? compressTransactionMessageUsingAddressLookupTables(message as never, { [lookupTable.table]: lookupTable.addresses })
    : message;
  const signed = await signTransactionMessageWithSigners(compressed as typeof message);
  return new Uint8Array(getTransactionEncoder().encode(signed));
}

function parsed(wire: Uint8Array): RawTransaction {
  const result = parseWireTransaction(wire);
  if (!result.ok) throw new Error(result.problem);
  return result.value;
}

describe("strict wire reader agrees with kit's decoders (kit-built, kit-signed transactions)", () => {
  const cases = [
    ["legacy", () => signedWire("legacy")],
    ["v0", () => signedWire(0)],
    ["v0 with an address lookup table", () => signedWire(0, { table: randomAddress(), addresses: [randomAddress(), randomAddress()] })],
  ] as const;

  for (const [name, build] of cases) {
    test(`${name}: same signatures, accounts, blockhash, instructions and lookups as kit`, async () => {
      const wire = await build();
      const ours = parsed(wire);
      const kitTransaction = getTransactionDecoder().decode(wire);
      const kitMessage = getCompiledTransactionMessageDecoder().decode(kitTransaction.messageBytes);
      if (kitMessage.version === 1) throw new Error("kit built a v1 message");
      expect(ours.version).toBe(kitMessage.version);
      expect(ours.messageBytes).toEqual(new Uint8Array(kitTransaction.messageBytes));
      expect(ours.accountKeys.map((key) => base58Text(key))).toEqual([...kitMessage.staticAccounts]);
      expect(base58Text(ours.recentBlockhash)).toBe(kitMessage.lifetimeToken);
      expect(ours.numSigners).toBe(kitMessage.header.numSignerAccounts);
      expect(ours.numReadonlySigners).toBe(kitMessage.header.numReadonlySignerAccounts);
      expect(ours.numReadonlyNonSigners).toBe(kitMessage.header.numReadonlyNonSignerAccounts);
      expect(ours.signatures.map((s) => [...s])).toEqual(Object.values(kitTransaction.signatures).map((s) => [...(s ?? [])]));
      expect(ours.instructions.map((ix) => [ix.programIndex, [...ix.accountIndexes], [...ix.data]])).toEqual(
        kitMessage.instructions.map((ix) => [ix.programAddressIndex, [...(ix.accountIndices ?? [])], [...(ix.data ?? [])]]),
      );
      const kitLookups = "addressTableLookups" in kitMessage ? (kitMessage.addressTableLookups ?? []) : [];
      expect(ours.lookups.map((l) => [base58Text(l.table), [...l.writable], [...l.readonly]])).toEqual(
        kitLookups.map((l) => [l.lookupTableAddress, [...l.writableIndexes], [...l.readonlyIndexes]]),
      );
    });
  }

  test("every truncation and every appended byte is refused", async () => {
    const wire = await signedWire(0);
    for (let length = 0; length < wire.byteLength; length++) expect(parseWireTransaction(wire.subarray(0, length)).ok).toBe(false);
    expect(parseWireTransaction(Uint8Array.from([...wire, 0])).ok).toBe(false);
  });

  test("a non-canonical length prefix, a length past u16 and message version 1 are refused", async () => {
    const wire = await signedWire(0);
    const aliased = Uint8Array.from([0x81, 0x00, ...wire.subarray(1)]);
    expect(parseWireTransaction(aliased)).toEqual({ ok: false, problem: expect.stringContaining("non-canonical") });
    expect(parseWireTransaction(Uint8Array.from([0xff, 0xff, 0x7f]))).toMatchObject({ ok: false });
    const v1 = Uint8Array.from(wire);
    v1[1 + 2 * 64] = 0x81;
    expect(parseWireTransaction(v1)).toMatchObject({ ok: false, problem: expect.stringContaining("version 1") });
  });

  test("base58 of the blockhash round-trips through kit's encoder", () => {
    expect(base58Text(new Uint8Array(getBase58Encoder().encode(BLOCKHASH)))).toBe(BLOCKHASH);
  });
});
