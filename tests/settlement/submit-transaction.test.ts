import { describe, expect, test } from "bun:test";
import type { Signature } from "@solana/kit";
import { type Ledger, LedgerError } from "../../src/application/ports/ledger.ts";
import { submitTransaction } from "../../src/application/settlement/submit-transaction.ts";

const SIGNATURE = "expected-signature" as Signature;

/** Hand-written fake Ledger whose sendTransaction answers from a script, one entry per call. */
function sendingLedger(answers: readonly (Signature | LedgerError)[]): { ledger: Ledger; sends: () => number } {
  let sends = 0;
  const unused = () => Promise.reject(new Error("not used by submission"));
  const ledger: Ledger = {
    async sendTransaction() {
      const answer = answers[Math.min(sends, answers.length - 1)];
      sends += 1;
      if (answer instanceof LedgerError) throw answer;
      return answer ?? SIGNATURE;
    },
    getSignatureStatuses: unused,
    getBlockHeight: unused,
    getLatestBlockhash: unused,
    isBlockhashValid: unused,
    getAccount: unused,
    getMultipleAccounts: unused,
    getProgramAccounts: unused,
    simulateTransaction: unused,
    ping: unused,
  };
  return { ledger, sends: () => sends };
}

const wire = new Uint8Array([1, 2, 3]);

describe("submitTransaction (hand-written fake ledger)", () => {
  test("a first refusal is final: rejected, sent once", async () => {
    const { ledger, sends } = sendingLedger([new LedgerError("rejected", "insufficient funds")]);
    expect(await submitTransaction(ledger, wire, SIGNATURE, 3, 1)).toEqual({ kind: "rejected", error: "insufficient funds" });
    expect(sends()).toBe(1);
  });

  test("a refusal after a lost answer is not final: the first send may land (uncertain)", async () => {
    const { ledger } = sendingLedger([new LedgerError("unavailable", "timeout"), new LedgerError("rejected", "Blockhash not found")]);
    expect((await submitTransaction(ledger, wire, SIGNATURE, 3, 1)).kind).toBe("uncertain");
  });

  test("transport failures are retried with the same bytes; 'already processed' counts as sent", async () => {
    const { ledger, sends } = sendingLedger([new LedgerError("unavailable", "503"), new LedgerError("rejected", "AlreadyProcessed")]);
    expect(await submitTransaction(ledger, wire, SIGNATURE, 3, 1)).toEqual({ kind: "sent" });
    expect(sends()).toBe(2);
  });

  test("every attempt lost: uncertain after the bounded attempts", async () => {
    const { ledger, sends } = sendingLedger([new LedgerError("unavailable", "connection refused")]);
    expect(await submitTransaction(ledger, wire, SIGNATURE, 3, 1)).toEqual({ kind: "uncertain", error: "connection refused" });
    expect(sends()).toBe(3);
  });
});
