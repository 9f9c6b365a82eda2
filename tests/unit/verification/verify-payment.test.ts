import { describe, expect, test } from "bun:test";
import { verifyStandardPayment as verifyPayment } from "../../../src/application/payment/standard-checks.ts";
import { LedgerError } from "../../../src/application/ports/ledger.ts";
import { settlementKeyOf } from "../../../src/domain/payment/settlement-key.ts";
import { buildTransaction, createActors, paymentRequest, requirementsFor } from "../../../fixtures/payment-builder.ts";
import { verifyDeps } from "../../../fixtures/verify-deps.ts";

describe("verifyPayment use case (kit-built transactions, hand-written fake ledger)", async () => {
  const actors = await createActors();
  const transaction = await buildTransaction(actors);
  const request = paymentRequest(transaction, requirementsFor(actors));

  test("a valid payment passes and returns what settlement needs", async () => {
    const deps = verifyDeps(actors);
    const result = await verifyPayment(request, deps);
    if (!result.ok) throw new Error(`${result.reason}: ${result.message}`);
    expect(result.payer).toBe(actors.payer.address);
    expect(result.feePayer).toBe(actors.feePayer.address);
    expect(result.amount).toBe(1_000n);
    expect(result.settlementKey).toBe(settlementKeyOf(new Uint8Array(result.transaction.messageBytes)));
    expect(result.settlementKey).toMatch(/^[0-9a-f]{64}$/);
    expect(result.paymentId).toBeNull();
    expect(result.transaction.signatures[actors.feePayer.address]).toBeNull();
    expect(result.transaction.signatures[actors.payer.address]).toBeInstanceOf(Uint8Array);
    expect(result.unitsConsumed).toBe(6_000n);
  });

  test("simulation runs without signature verification on the exact wire bytes, and no signer is called", async () => {
    const deps = verifyDeps(actors);
    const result = await verifyPayment(request, deps);
    expect(result.ok).toBe(true);
    const simulated = deps.ledger.lastSimulated();
    expect(simulated?.sigVerify).toBe(false);
    expect(btoa(String.fromCharCode(...(simulated?.wire ?? [])))).toBe(transaction);
    expect(deps.ledger.calls.blockhash).toBe(1);
  });

  test("a failed simulation is SIMULATION_FAILED carrying the ledger's error", async () => {
    const deps = verifyDeps(actors);
    deps.ledger.setSimulation({ ok: false, error: "InstructionError(2, Custom(1))", logs: [] });
    const result = await verifyPayment(request, deps);
    expect(result).toMatchObject({ ok: false, reason: "SIMULATION_FAILED", payer: actors.payer.address });
    if (!result.ok) expect(result.message).toContain("InstructionError(2, Custom(1))");
  });

  test("a ledger that refuses the bytes is SIMULATION_FAILED; an unreachable one throws", async () => {
    const refusing = verifyDeps(actors);
    refusing.ledger.setSimulation(new LedgerError("rejected", "invalid transaction"));
    expect(await verifyPayment(request, refusing)).toMatchObject({ ok: false, reason: "SIMULATION_FAILED" });
    const down = verifyDeps(actors);
    down.ledger.setSimulation(new LedgerError("unavailable", "connection refused"));
    await expect(verifyPayment(request, down)).rejects.toThrow("connection refused");
  });

  test("an expired blockhash is BLOCKHASH_EXPIRED", async () => {
    const deps = verifyDeps(actors);
    deps.ledger.setBlockhashValid(false);
    expect(await verifyPayment(request, deps)).toMatchObject({ ok: false, reason: "BLOCKHASH_EXPIRED" });
  });

  test("VERIFY_SIMULATE off skips both ledger checks", async () => {
    const deps = verifyDeps(actors, { simulate: false });
    deps.ledger.setBlockhashValid(false);
    deps.ledger.setSimulation({ ok: false, error: "would fail", logs: [] });
    const result = await verifyPayment(request, deps);
    expect(result.ok).toBe(true);
    expect(deps.ledger.calls).toEqual({ simulate: 0, blockhash: 0, account: 0 });
  });

  test("settledLookup (hand-written fake store) gives ALREADY_SETTLED by key or paymentId", async () => {
    const seen: Array<[string, string | null]> = [];
    const settledKeys = new Set<string>();
    const settledIds = new Set(["ab12"]);
    const deps = verifyDeps(actors, {
      settledLookup: async (key, scoped) => {
        seen.push([key, scoped?.paymentId ?? null]);
        return settledKeys.has(key) || (scoped !== null && scoped.payer === actors.payer.address && settledIds.has(scoped.paymentId));
      },
    });
    const first = await verifyPayment(request, deps);
    expect(first.ok).toBe(true);
    if (first.ok) settledKeys.add(first.settlementKey);
    expect(await verifyPayment(request, deps)).toMatchObject({ ok: false, reason: "ALREADY_SETTLED" });

    const fresh = paymentRequest(await buildTransaction(actors), requirementsFor(actors), { extensions: { paymentId: "ab12" } });
    expect(await verifyPayment(fresh, deps)).toMatchObject({ ok: false, reason: "ALREADY_SETTLED" });
    expect(seen.at(-1)?.[1]).toBe("ab12");
  });

  test("the fee payer list may be a function, read per request (signer pool)", async () => {
    let pool: readonly (typeof actors.feePayer.address)[] = [];
    const deps = verifyDeps(actors, { feePayers: () => pool });
    expect(await verifyPayment(request, deps)).toMatchObject({ ok: false, reason: "FEE_PAYER_MISMATCH" });
    pool = [actors.feePayer.address];
    expect((await verifyPayment(request, deps)).ok).toBe(true);
  });
});
