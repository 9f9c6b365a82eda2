import { describe, expect, test } from "bun:test";
import type { Address } from "@solana/kit";
import { LedgerError } from "../../../src/application/ports/ledger.ts";
import { createSharedBlockhashCheck } from "../../../src/application/payment/shared-blockhash-check.ts";
import { verifyPayment } from "../../../src/application/payment/verify.ts";
import { createFakeLedger } from "../../../fixtures/fake-verification-ledger.ts";
import { buildTransaction, createActors, paymentRequest, requirementsFor } from "../../../fixtures/payment-builder.ts";
import { verifyDeps } from "../../../fixtures/verify-deps.ts";

/** A hand-written fake ledger whose isBlockhashValid answers only when the test opens the gate. */
function gatedLedger(payer: Address) {
  const base = createFakeLedger(payer);
  let calls = 0;
  let open: ((valid: boolean) => void) | null = null;
  let fail: ((error: Error) => void) | null = null;
  const ledger = {
    ...base,
    isBlockhashValid: () => {
      calls++;
      return new Promise<boolean>((resolve, reject) => {
        open = resolve;
        fail = reject;
      });
    },
  };
  return {
    ledger,
    simulations: () => base.calls.simulate,
    blockhashCalls: () => calls,
    answer: (valid: boolean) => open?.(valid),
    breakDown: (error: Error) => fail?.(error),
  };
}

/** Yields to the event loop until `ready()` holds (signature checks run off-thread first). */
async function until(ready: () => boolean): Promise<void> {
  for (let i = 0; i < 1000 && !ready(); i++) await new Promise((resolve) => setTimeout(resolve, 1));
  expect(ready()).toBe(true);
}

describe("blockhash check shared by concurrent verifications (gated hand-written fake ledger)", async () => {
  const actors = await createActors();
  const request = paymentRequest(await buildTransaction(actors), requirementsFor(actors));

  test("concurrent verifications of one blockhash send one isBlockhashValid call and all get its answer", async () => {
    const gate = gatedLedger(actors.payer.address);
    const deps = verifyDeps(actors, { ledger: gate.ledger, blockhashCheck: createSharedBlockhashCheck(gate.ledger) });
    const pending = Array.from({ length: 5 }, () => verifyPayment(request, deps));
    await until(() => gate.simulations() === 5);
    expect(gate.blockhashCalls()).toBe(1);
    gate.answer(true);
    const results = await Promise.all(pending);
    expect(results.map((r) => r.ok)).toEqual([true, true, true, true, true]);
  });

  test("an expired answer reaches every joined verification as BLOCKHASH_EXPIRED", async () => {
    const gate = gatedLedger(actors.payer.address);
    const deps = verifyDeps(actors, { ledger: gate.ledger, blockhashCheck: createSharedBlockhashCheck(gate.ledger) });
    const pending = Array.from({ length: 3 }, () => verifyPayment(request, deps));
    await until(() => gate.simulations() === 3);
    gate.answer(false);
    const results = await Promise.all(pending);
    expect(results.map((r) => (r.ok ? "ok" : r.reason))).toEqual(["BLOCKHASH_EXPIRED", "BLOCKHASH_EXPIRED", "BLOCKHASH_EXPIRED"]);
    expect(gate.blockhashCalls()).toBe(1);
  });

  test("nothing is cached: once the call has answered, the next verification asks the ledger again", async () => {
    const gate = gatedLedger(actors.payer.address);
    const deps = verifyDeps(actors, { ledger: gate.ledger, blockhashCheck: createSharedBlockhashCheck(gate.ledger) });
    const first = verifyPayment(request, deps);
    await until(() => gate.simulations() === 1);
    gate.answer(true);
    expect((await first).ok).toBe(true);
    const second = verifyPayment(request, deps);
    await until(() => gate.blockhashCalls() === 2);
    gate.answer(false);
    expect(await second).toMatchObject({ ok: false, reason: "BLOCKHASH_EXPIRED" });
  });

  test("an unreachable ledger fails every joined verification, and the next one retries", async () => {
    const gate = gatedLedger(actors.payer.address);
    const deps = verifyDeps(actors, { ledger: gate.ledger, blockhashCheck: createSharedBlockhashCheck(gate.ledger) });
    const pending = Array.from({ length: 2 }, () => verifyPayment(request, deps));
    await until(() => gate.simulations() === 2);
    gate.breakDown(new LedgerError("unavailable", "connection refused"));
    const settled = await Promise.allSettled(pending);
    expect(settled.map((s) => (s.status === "rejected" ? String(s.reason) : "resolved"))).toEqual([
      "LedgerError: connection refused",
      "LedgerError: connection refused",
    ]);
    const retry = verifyPayment(request, deps);
    await until(() => gate.blockhashCalls() === 2);
    gate.answer(true);
    expect((await retry).ok).toBe(true);
  });
});
