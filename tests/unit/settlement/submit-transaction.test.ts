import { describe, expect, test } from "bun:test";
import { fakeLedger } from "../../../fixtures/fake-ledger.ts";
import type { Signature } from "@solana/kit";
import { type Ledger, LedgerError, type SendOptions } from "../../../src/application/ports/ledger.ts";
import { submitTransaction } from "../../../src/application/settlement/submit-transaction.ts";

const SIGNATURE = "expected-signature" as Signature;

/** Hand-written fake Ledger whose sendTransaction answers from a script, one entry per call. */
function sendingLedger(answers: readonly (Signature | LedgerError)[]): { ledger: Ledger; sends: () => number; options: () => readonly (SendOptions | undefined)[] } {
  let sends = 0;
  const options: (SendOptions | undefined)[] = [];
  const ledger = fakeLedger({
    async sendTransaction(_wire, sendOptions) {
      options.push(sendOptions);
      const answer = answers[Math.min(sends, answers.length - 1)];
      sends += 1;
      if (answer instanceof LedgerError) throw answer;
      return answer ?? SIGNATURE;
    },
  }, "submission");
  return { ledger, sends: () => sends, options: () => options };
}

const wire = new Uint8Array([1, 2, 3]);

/** The ledger's structured code for a resend of bytes that already landed. */
const ALREADY_PROCESSED = { name: "AlreadyProcessed", instructionIndex: null, detail: null } as const;

describe("submitTransaction (hand-written fake ledger)", () => {
  test("sends without the ledger's preflight by default (settlement simulated before signing), with it when asked", async () => {
    const { ledger, options } = sendingLedger([SIGNATURE]);
    expect(await submitTransaction(ledger, wire, SIGNATURE, 3, 1)).toEqual({ kind: "sent" });
    expect(await submitTransaction(ledger, wire, SIGNATURE, 3, 1, { skipPreflight: false })).toEqual({ kind: "sent" });
    expect(options()).toEqual([{ skipPreflight: true }, { skipPreflight: false }]);
  });

  test("a first refusal is final: rejected, sent once", async () => {
    const { ledger, sends } = sendingLedger([new LedgerError("rejected", "insufficient funds")]);
    expect(await submitTransaction(ledger, wire, SIGNATURE, 3, 1)).toEqual({ kind: "rejected", error: "insufficient funds" });
    expect(sends()).toBe(1);
  });

  test("a refusal after a lost answer is not final: the first send may land (uncertain)", async () => {
    const { ledger } = sendingLedger([new LedgerError("unavailable", "timeout"), new LedgerError("rejected", "Blockhash not found")]);
    expect((await submitTransaction(ledger, wire, SIGNATURE, 3, 1)).kind).toBe("uncertain");
  });

  test("transport failures are retried with the same bytes; the AlreadyProcessed code counts as sent", async () => {
    const landed = new LedgerError("rejected", "Transaction simulation failed: This transaction has already been processed", [], ALREADY_PROCESSED);
    const { ledger, sends } = sendingLedger([new LedgerError("unavailable", "503"), landed]);
    expect(await submitTransaction(ledger, wire, SIGNATURE, 3, 1)).toEqual({ kind: "sent" });
    expect(sends()).toBe(2);
  });

  test("SECURITY: 'already processed' in the message (a payer's memo in the logs) without the code is a refusal", async () => {
    const logs = ['Program log: Memo (len 34): "already processed AlreadyProcessed"'];
    const text = `Transaction simulation failed: Error processing Instruction 1: custom program error: 0x1\nlogs:\n${logs.join("\n")}`;
    const code = { name: "InstructionError", instructionIndex: 1, detail: { Custom: 1 } };
    const { ledger, sends } = sendingLedger([new LedgerError("rejected", text, logs, code)]);
    expect(await submitTransaction(ledger, wire, SIGNATURE, 3, 1)).toEqual({ kind: "rejected", error: text });
    expect(sends()).toBe(1);
  });

  test("every attempt lost: uncertain after the bounded attempts", async () => {
    const { ledger, sends } = sendingLedger([new LedgerError("unavailable", "connection refused")]);
    expect(await submitTransaction(ledger, wire, SIGNATURE, 3, 1)).toEqual({ kind: "uncertain", error: "connection refused" });
    expect(sends()).toBe(3);
  });
});
