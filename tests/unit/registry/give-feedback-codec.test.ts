import { describe, expect, test } from "bun:test";
import { getAddressEncoder, getBase58Decoder, type Address } from "@solana/kit";
import {
  decodeGiveFeedbackData,
  encodeGiveFeedbackData,
  feedbackCreationIn,
  GIVE_FEEDBACK_DISCRIMINATOR,
  type GiveFeedbackArgs,
  type LandedInstruction,
} from "../../../src/domain/registry/give-feedback.ts";
import { landedTransactionOf } from "../../../src/infrastructure/ledger/rpc-landed-transaction.ts";
import { anchorDiscriminator, BorshBytes } from "../../support/borsh-bytes.ts";
import { PROGRAM_ID, testAddress } from "../../registry/support/registry-fixtures.ts";

const ARGS: GiveFeedbackArgs = {
  score: 87,
  tag1: new Uint8Array(32).fill(1),
  tag2: new Uint8Array(32),
  detailUri: "https://reviews.example/ü.json",
  detailHash: new Uint8Array(32).fill(2),
  feedbackAuth: new Uint8Array(64).fill(3),
  feedbackNonce: -1_700_000_123n,
};

/** The IDL's args in order: u8, [u8;32], [u8;32], string, [u8;32], [u8;64], i64. */
function handWritten(args: GiveFeedbackArgs): Uint8Array {
  const w = new BorshBytes().raw(anchorDiscriminator("global:give_feedback")).u8(args.score).raw(args.tag1).raw(args.tag2);
  return w.string(args.detailUri).raw(args.detailHash).raw(args.feedbackAuth).i64(args.feedbackNonce).done();
}

const entry = { address: testAddress(6, 1), nftMint: testAddress(1, 1), reviewer: testAddress(4, 1) };

/** give_feedback's accounts in IDL order, no payment receipt (the program id in its slot). */
function giveFeedback(overrides: Partial<LandedInstruction> = {}): LandedInstruction {
  return {
    programAddress: PROGRAM_ID,
    accounts: [entry.reviewer, testAddress(7, 1), testAddress(7, 2), entry.nftMint, entry.address, PROGRAM_ID, testAddress(7, 3), testAddress(7, 4)],
    data: encodeGiveFeedbackData(ARGS),
    ...overrides,
  };
}

describe("give_feedback instruction codec (IDL)", () => {
  test("discriminator is sha256(\"global:give_feedback\")[0..8]; encoding is the IDL's Borsh layout byte for byte", () => {
    expect([...GIVE_FEEDBACK_DISCRIMINATOR]).toEqual([145, 136, 123, 3, 215, 165, 98, 41]);
    expect(encodeGiveFeedbackData(ARGS)).toEqual(handWritten(ARGS));
    expect(decodeGiveFeedbackData(handWritten(ARGS))).toEqual(ARGS);
  });

  test("decoding allows trailing bytes (as Anchor does) and refuses other instructions and truncated data", () => {
    const data = handWritten(ARGS);
    expect(decodeGiveFeedbackData(new Uint8Array([...data, 0, 0]))?.detailUri).toBe(ARGS.detailUri);
    expect(decodeGiveFeedbackData(data.subarray(0, data.length - 1))).toBeNull();
    expect(decodeGiveFeedbackData(new Uint8Array([135, 157, 66, 195, 2, 113, 175, 30, ...data.subarray(8)]))).toBeNull();
    expect(decodeGiveFeedbackData(new Uint8Array(4))).toBeNull();
  });
});

describe("finding the give_feedback that created an entry (SECURITY: only the registry program's, in a successful transaction, for this entry)", () => {
  test("found among the instructions (top-level and inner ones are one list), whatever comes before it", () => {
    const other: LandedInstruction = { programAddress: testAddress(8, 1), accounts: [], data: Uint8Array.of(2, 0, 0, 0, 0) };
    expect(feedbackCreationIn({ err: null, instructions: [other, giveFeedback()] }, PROGRAM_ID, entry)?.args.detailUri).toBe(ARGS.detailUri);
  });

  test("the payment_receipt slot: the program id (Anchor's absent optional account) is none, any other address is the receipt consumed", () => {
    expect(feedbackCreationIn({ err: null, instructions: [giveFeedback()] }, PROGRAM_ID, entry)?.paymentReceipt).toBeNull();
    const receipt = testAddress(7, 9);
    const withReceipt = giveFeedback({ accounts: [entry.reviewer, testAddress(7, 1), testAddress(7, 2), entry.nftMint, entry.address, receipt, testAddress(7, 3), testAddress(7, 4)] });
    expect(feedbackCreationIn({ err: null, instructions: [withReceipt] }, PROGRAM_ID, entry)?.paymentReceipt).toBe(receipt);
  });

  test("refused: a failed transaction, another program, the entry in another slot, another reviewer or mint, data that is not give_feedback", () => {
    const cases: [string, Parameters<typeof feedbackCreationIn>[0]][] = [
      ["failed", { err: '{"InstructionError":[0,{"Custom":6003}]}', instructions: [giveFeedback()] }],
      ["other program", { err: null, instructions: [giveFeedback({ programAddress: testAddress(8, 1) })] }],
      ["entry in another slot", { err: null, instructions: [giveFeedback({ accounts: [entry.reviewer, testAddress(7, 1), testAddress(7, 2), entry.nftMint, testAddress(6, 9), entry.address, testAddress(7, 3), testAddress(7, 4)] })] }],
      ["other reviewer", { err: null, instructions: [giveFeedback({ accounts: [testAddress(4, 9), testAddress(7, 1), testAddress(7, 2), entry.nftMint, entry.address, PROGRAM_ID, testAddress(7, 3), testAddress(7, 4)] })] }],
      ["other mint", { err: null, instructions: [giveFeedback({ accounts: [entry.reviewer, testAddress(7, 1), testAddress(7, 2), testAddress(1, 9), entry.address, PROGRAM_ID, testAddress(7, 3), testAddress(7, 4)] })] }],
      ["not give_feedback", { err: null, instructions: [giveFeedback({ data: new Uint8Array(8) })] }],
      ["too few accounts", { err: null, instructions: [giveFeedback({ accounts: [entry.reviewer] })] }],
    ];
    for (const [name, transaction] of cases) expect({ name, found: feedbackCreationIn(transaction, PROGRAM_ID, entry) }).toEqual({ name, found: null });
  });
});

describe("getTransaction `json` answers resolved to addresses (RPC adapter)", () => {
  const keys = [testAddress(9, 0), testAddress(9, 1), PROGRAM_ID];
  const loadedWritable = testAddress(9, 2);
  const loadedReadonly = testAddress(9, 3);
  const base58 = (bytes: Uint8Array) => getBase58Decoder().decode(bytes);
  const render = (err: unknown) => JSON.stringify(err);

  test("v0: indexes past the static keys name the lookup-table addresses (writable, then read-only); inner instructions follow", () => {
    const landed = landedTransactionOf(
      {
        meta: {
          err: null,
          loadedAddresses: { writable: [loadedWritable], readonly: [loadedReadonly] },
          innerInstructions: [{ instructions: [{ programIdIndex: 4n, accounts: [0n, 3n], data: base58(Uint8Array.of(9, 9)) }] }],
        },
        transaction: { message: { accountKeys: keys, instructions: [{ programIdIndex: 2, accounts: [0, 1, 3, 4], data: base58(Uint8Array.of(1, 2, 3)) }] } },
      },
      render,
    );
    expect(landed).toEqual({
      err: null,
      instructions: [
        { programAddress: PROGRAM_ID, accounts: [keys[0] as Address, keys[1] as Address, loadedWritable, loadedReadonly], data: Uint8Array.of(1, 2, 3) },
        { programAddress: loadedReadonly, accounts: [keys[0] as Address, loadedWritable], data: Uint8Array.of(9, 9) },
      ],
    });
  });

  test("an index outside the keys or data that is not base58 drops that instruction; no metadata counts as failed; errors are rendered", () => {
    const message = {
      accountKeys: keys,
      instructions: [
        { programIdIndex: 7, accounts: [0], data: "" },
        { programIdIndex: 2, accounts: [0, 9], data: "" },
        { programIdIndex: 2, accounts: [0], data: "0OIl" },
        { programIdIndex: 2, accounts: [1], data: base58(new Uint8Array(getAddressEncoder().encode(PROGRAM_ID))) },
      ],
    };
    const landed = landedTransactionOf({ meta: { err: { InstructionError: [0, { Custom: 1 }] } }, transaction: { message } }, render);
    expect(landed.err).toBe('{"InstructionError":[0,{"Custom":1}]}');
    expect(landed.instructions.map((i) => i.accounts)).toEqual([[keys[1] as Address]]);
    expect(landedTransactionOf({ meta: null, transaction: { message } }, render).err).not.toBeNull();
  });
});
