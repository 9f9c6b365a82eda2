import { describe, expect, test } from "bun:test";
import { getBase64Encoder, getCompiledTransactionMessageDecoder, getTransactionDecoder } from "@solana/kit";
import { inspectTransaction } from "../../../src/domain/transaction/inspect-transaction.ts";
import { parseWireTransaction } from "@x84/solana-wire";
import { buildTransaction, createActors, editWire } from "../../../fixtures/payment-builder.ts";

const toBytes = (base64: string) => new Uint8Array(getBase64Encoder().encode(base64));

describe("strict wire reader agrees with kit's decoders (kit-built transactions, no mocks)", async () => {
  const actors = await createActors();

  for (const version of [0, "legacy"] as const) {
    test(`version ${version}: same accounts, signatures, blockhash and instructions as kit`, async () => {
      const base64 = await buildTransaction(actors, { version });
      const inspected = inspectTransaction(base64);
      if (!inspected.ok) throw new Error(inspected.rejection.message);
      const kitTransaction = getTransactionDecoder().decode(toBytes(base64));
      const kitMessage = getCompiledTransactionMessageDecoder().decode(kitTransaction.messageBytes);
      const view = inspected.view;
      if (kitMessage.version === 1) throw new Error("unexpected v1 message");
      expect(view.version).toBe(kitMessage.version);
      expect([...view.staticAccounts]).toEqual(kitMessage.staticAccounts);
      expect(view.recentBlockhash).toBe(kitMessage.lifetimeToken);
      expect(view.messageBytes).toEqual(new Uint8Array(kitTransaction.messageBytes));
      expect(view.transaction.signatures).toEqual(kitTransaction.signatures);
      const ours = view.instructions.map((ix) => [ix.programAddress, ix.accounts, [...ix.data]]);
      expect(JSON.stringify(ours)).toBe(JSON.stringify(
        kitMessage.instructions.map((ix) => [
          kitMessage.staticAccounts[ix.programAddressIndex],
          (ix.accountIndices ?? []).map((i) => kitMessage.staticAccounts[i]),
          [...(ix.data ?? [])],
        ]),
      ));
    });
  }

  test("every truncation and every appended byte is refused", async () => {
    const wire = toBytes(await buildTransaction(actors));
    for (let length = 0; length < wire.byteLength; length++) {
      expect(parseWireTransaction(wire.subarray(0, length)).ok).toBe(false);
    }
    expect(parseWireTransaction(Uint8Array.from([...wire, 0])).ok).toBe(false);
  });

  test("a non-canonical length prefix and an unknown message version are refused", async () => {
    const base64 = await buildTransaction(actors);
    const aliased = toBytes(editWire(base64, (bytes) => Uint8Array.from([0x82, 0x00, ...bytes.subarray(1)])));
    expect(parseWireTransaction(aliased)).toMatchObject({ ok: false });
    const v1 = toBytes(editWire(base64, (bytes) => void (bytes[1 + 128] = 0x81)));
    expect(parseWireTransaction(v1)).toMatchObject({ ok: false, problem: expect.stringContaining("version 1") });
  });
});
