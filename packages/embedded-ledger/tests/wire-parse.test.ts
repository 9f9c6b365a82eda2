// Real components: kit's transaction and message codecs (the reference) against the embedded
// ledger's fast wire reader and base58; transactions are compiled and signed by kit.
import { describe, expect, it } from "bun:test";
import {
  address,
  appendTransactionMessageInstructions,
  compressTransactionMessageUsingAddressLookupTables,
  createNoopSigner,
  createTransactionMessage,
  generateKeyPairSigner,
  getBase58Decoder,
  getBase58Encoder,
  getTransactionEncoder,
  isSignature,
  partiallySignTransactionMessageWithSigners,
  pipe,
  setTransactionMessageFeePayerSigner,
  setTransactionMessageLifetimeUsingBlockhash,
  AccountRole,
  type Address,
  type Blockhash,
  type Instruction,
  type TransactionSigner,
} from "@solana/kit";
import { base58Bytes, base58Text, isSignatureText } from "../src/base58.ts";
import { checkWireTransaction, decodeWithKit } from "../src/wire-guard.ts";
import { parseCanonicalWire } from "../src/wire-parse.ts";
import { malformedVariants } from "./support/fixtures.ts";

const BLOCKHASH = "4uQeVj5tqViQh7yWWGStvkEG1Zmhx6uasJtWCJziofM" as Blockhash;
const ZERO_BLOCKHASH = "11111111111111111111111111111111" as Blockhash;

function randomAddress(): Address {
  return getBase58Decoder().decode(crypto.getRandomValues(new Uint8Array(32))) as Address;
}

type Shape = Readonly<{ version: "legacy" | 0; signers: number; instructions: readonly Instruction[]; lookup?: readonly Address[]; blockhash?: Blockhash }>;

async function buildWire(shape: Shape, signers: readonly TransactionSigner[], feePayerSigns: boolean): Promise<Uint8Array> {
  const [feePayer, ...others] = signers;
  if (!feePayer) throw new Error("no fee payer");
  const signerInstruction: Instruction = {
    programAddress: address("11111111111111111111111111111111"),
    accounts: others.map((signer) => ({ address: signer.address, role: AccountRole.READONLY_SIGNER, signer })),
    data: new Uint8Array([2, 0, 0, 0]),
  };
  const payer = feePayerSigns ? feePayer : createNoopSigner(feePayer.address);
  const lifetime = { blockhash: shape.blockhash ?? BLOCKHASH, lastValidBlockHeight: 10n };
  const instructions = [...(others.length ? [signerInstruction] : []), ...shape.instructions];
  if (shape.version === "legacy") {
    const legacy = pipe(
      createTransactionMessage({ version: "legacy" }),
      (m) => setTransactionMessageFeePayerSigner(payer, m),
      (m) => setTransactionMessageLifetimeUsingBlockhash(lifetime, m),
      (m) => appendTransactionMessageInstructions(instructions, m),
    );
    return new Uint8Array(getTransactionEncoder().encode(await partiallySignTransactionMessageWithSigners(legacy)));
  }
  const v0 = pipe(
    createTransactionMessage({ version: 0 }),
    (m) => setTransactionMessageFeePayerSigner(payer, m),
    (m) => setTransactionMessageLifetimeUsingBlockhash(lifetime, m),
    (m) => appendTransactionMessageInstructions(instructions, m),
  );
  const message = shape.lookup ? compressTransactionMessageUsingAddressLookupTables(v0, { [randomAddress()]: [...shape.lookup] }) : v0;
  return new Uint8Array(getTransactionEncoder().encode(await partiallySignTransactionMessageWithSigners(message)));
}

/** Legacy and v0 transactions of varied shape: extra signers, lookups, empty data and account lists. */
async function sampleWires(): Promise<Uint8Array[]> {
  const signers = await Promise.all(Array.from({ length: 4 }, () => generateKeyPairSigner()));
  const shared = Array.from({ length: 5 }, randomAddress);
  const ix = (accounts: readonly Address[], data: Uint8Array): Instruction => ({
    programAddress: randomAddress(),
    accounts: accounts.map((a, i) => ({ address: a, role: i % 2 ? AccountRole.WRITABLE : AccountRole.READONLY })),
    data,
  });
  const shapes: Shape[] = [
    { version: 0, signers: 1, instructions: [ix(shared.slice(0, 3), new Uint8Array([1, 2, 3]))] },
    { version: "legacy", signers: 1, instructions: [ix(shared.slice(0, 2), new Uint8Array([9]))] },
    { version: 0, signers: 3, instructions: [ix([], new Uint8Array(0)), ix(shared, new Uint8Array(300).fill(7))] },
    { version: "legacy", signers: 2, instructions: [ix(shared.slice(1), new Uint8Array(0))], blockhash: ZERO_BLOCKHASH },
    { version: 0, signers: 2, instructions: [ix(shared, new Uint8Array([4, 5]))], lookup: shared.slice(2) },
    { version: 0, signers: 1, instructions: [] },
  ];
  const wires: Uint8Array[] = [];
  for (const shape of shapes) {
    for (const feePayerSigns of [true, false]) wires.push(await buildWire(shape, signers.slice(0, shape.signers), feePayerSigns));
  }
  return wires;
}

/** Deterministic byte changes (every third byte), insertions and deletions (every byte) across the wire. */
function mutations(wire: Uint8Array): Uint8Array[] {
  const out: Uint8Array[] = [];
  for (let i = 0; i < wire.length; i++) {
    for (const value of i % 3 === 0 ? [0x00, 0x7f, 0x80, 0xff, (wire[i] ?? 0) + 1] : []) {
      const changed = wire.slice();
      changed[i] = value & 0xff;
      out.push(changed);
    }
    out.push(new Uint8Array([...wire.subarray(0, i), ...wire.subarray(i + 1)]));
    out.push(new Uint8Array([...wire.subarray(0, i), 0x80, ...wire.subarray(i)]));
  }
  return out;
}

describe("fast wire reader agrees with kit's decode-and-re-encode check (kit codecs)", () => {
  it("reads every valid legacy and v0 transaction exactly as kit decodes it", async () => {
    for (const wire of await sampleWires()) {
      const fast = parseCanonicalWire(wire);
      const kit = decodeWithKit(wire);
      expect(fast).not.toBeNull();
      expect("ok" in kit).toBe(false);
      expect(fast).toStrictEqual(Object.freeze(kit) as typeof fast);
    }
  });

  it("SECURITY: accepts a mutated transaction only when kit accepts it, with kit's result and kit's refusal reasons", async () => {
    let accepted = 0;
    let refused = 0;
    for (const wire of await sampleWires()) {
      for (const variant of [...mutations(wire), ...malformedVariants(wire)]) {
        const fast = parseCanonicalWire(variant);
        if (fast !== null) {
          accepted++;
          const kit = decodeWithKit(variant);
          expect("ok" in kit).toBe(false);
          expect(fast).toStrictEqual(Object.freeze(kit) as typeof fast);
        } else {
          refused++;
        }
      }
    }
    // Both branches were exercised: single-byte changes to signatures/data keep bytes canonical.
    expect(accepted).toBeGreaterThan(100);
    expect(refused).toBeGreaterThan(100);
  }, 60_000);

  it("gives the guard's verdict unchanged: every refusal reason still comes from kit's path", async () => {
    const [wire] = await sampleWires();
    if (!wire) throw new Error("no sample");
    for (const bad of malformedVariants(wire).filter((variant) => variant.length > 0 && variant.length <= 1232)) {
      const kit = decodeWithKit(bad);
      if ("ok" in kit) expect(checkWireTransaction(bad)).toEqual(kit);
    }
    expect(checkWireTransaction(wire.slice(0, wire.length - 1))).toEqual({ ok: false, reason: "message bytes are not canonical" });
    expect(checkWireTransaction(new Uint8Array([...wire, 0]))).toEqual({ ok: false, reason: "message bytes are not canonical" });
    expect(checkWireTransaction(wire).ok).toBe(true);
  });
});

describe("base58 on the ledger's hot path matches kit's codec (kit codecs)", () => {
  it("encodes and decodes random, zero-led and all-zero/all-0xff byte strings identically", () => {
    const kitText = getBase58Decoder();
    const kitBytes = getBase58Encoder();
    for (let i = 0; i < 3000; i++) {
      const bytes = crypto.getRandomValues(new Uint8Array([0, 1, 31, 32, 33, 64][i % 6] ?? 32));
      bytes.fill(0, 0, i % 4);
      if (i % 101 === 0) bytes.fill(0);
      if (i % 103 === 0) bytes.fill(0xff);
      const text = kitText.decode(bytes);
      expect(base58Text(bytes)).toBe(text);
      expect(base58Bytes(text)).toEqual(new Uint8Array(kitBytes.encode(text)));
      expect(isSignatureText(text)).toBe(isSignature(text));
    }
  });

  it("throws kit's error on a character outside the alphabet, as kit's isSignature does", () => {
    const bad = `0${"1".repeat(70)}`;
    expect(() => isSignature(bad)).toThrow();
    expect(() => isSignatureText(bad)).toThrow();
    expect(isSignatureText("1".repeat(63))).toBe(false);
  });
});
