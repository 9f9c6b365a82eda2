/**
 * With simulation on, a simulation that succeeds settles the funds checks (see
 * the preflight in ledger-preflight.ts): only SELF_PAYMENT is left, read from the source's
 * post-simulation state. A failed simulation still reads the accounts to say why.
 */
import { describe, expect, test } from "bun:test";
import type { Address } from "@solana/kit";
import { AccountState, TOKEN_PROGRAM_ADDRESS, getTokenEncoder } from "@solana-program/token";
import type { AccountSnapshot, SimulateOptions, SimulationOutcome } from "../../../src/application/ports/ledger.ts";
import { verifyPayment } from "../../../src/application/payment/verify.ts";
import { DEVNET_USDC_MINT } from "../../../src/domain/networks.ts";
import { fakeLedger } from "../../../fixtures/fake-ledger.ts";
import { ataOf, buildTransaction, createActors, paymentRequest, requirementsFor } from "../../../fixtures/payment-builder.ts";
import { verifyDeps } from "../../../fixtures/verify-deps.ts";

function tokenAccount(address: Address, owner: Address, amount: bigint, mint: Address = DEVNET_USDC_MINT as Address): AccountSnapshot {
  const data = getTokenEncoder().encode({
    mint, owner, amount, delegate: null, state: AccountState.Initialized, isNative: null, delegatedAmount: 0n, closeAuthority: null,
  });
  return { address, owner: TOKEN_PROGRAM_ADDRESS, lamports: 2_039_280n, data: new Uint8Array(data), executable: false };
}

describe("verifyPayment: the funds read folded into the simulation", async () => {
  const actors = await createActors();
  const request = paymentRequest(await buildTransaction(actors), requirementsFor(actors));
  const source = await ataOf(actors.payer.address);

  /** A ledger whose simulation answers `outcome` with `post` as the source's state, counting account reads. */
  function ledgerWith(outcome: "ok" | "fails", post: AccountSnapshot | null | "absent", accounts: readonly (AccountSnapshot | null)[] = []) {
    const seen: { asked: SimulateOptions | undefined; reads: number } = { asked: undefined, reads: 0 };
    const ledger = fakeLedger({
      isBlockhashValid: async () => true,
      async simulateTransaction(_wire, options): Promise<SimulationOutcome> {
        seen.asked = options;
        if (outcome === "fails") return { ok: false, error: "InstructionError(2, Custom(1))", logs: [] };
        return post === "absent" ? { ok: true, unitsConsumed: 6_000n, logs: [] } : { ok: true, unitsConsumed: 6_000n, logs: [], accounts: [post] };
      },
      async getMultipleAccounts(addresses) {
        seen.reads++;
        return addresses.map((_, i) => accounts[i] ?? null);
      },
    }, "the simulation-funds tests");
    return { ledger, seen };
  }

  test("a successful simulation asks for the source's post state and reads no account", async () => {
    const { ledger, seen } = ledgerWith("ok", tokenAccount(source, actors.payer.address, 0n));
    const result = await verifyPayment(request, verifyDeps(actors, { ledger }));
    expect(result.ok).toBe(true);
    expect(seen.asked).toEqual({ sigVerify: false, accounts: [source] });
    expect(seen.reads).toBe(0);
  });

  test("a source owned by payTo is SELF_PAYMENT from the post-simulation state", async () => {
    const { ledger, seen } = ledgerWith("ok", tokenAccount(source, actors.payTo.address, 0n));
    const result = await verifyPayment(request, verifyDeps(actors, { ledger }));
    expect(result).toMatchObject({ ok: false, reason: "SELF_PAYMENT", message: `source ${source} belongs to the recipient payTo ${actors.payTo.address}` });
    expect(seen.reads).toBe(0);
  });

  test("without a usable post state (none given, not a token account, another mint) the accounts are read", async () => {
    const other = (await createActors()).payTo.address;
    for (const post of ["absent", null, { ...tokenAccount(source, actors.payer.address, 0n), owner: other }, tokenAccount(source, actors.payer.address, 0n, other)] as const) {
      const { ledger, seen } = ledgerWith("ok", post, [tokenAccount(source, actors.payTo.address, 5_000n)]);
      expect(await verifyPayment(request, verifyDeps(actors, { ledger }))).toMatchObject({ ok: false, reason: "SELF_PAYMENT" });
      expect(seen.reads).toBe(1);
    }
  });

  test("a failed simulation reads the accounts: their reason first, else SIMULATION_FAILED", async () => {
    const poor = ledgerWith("fails", "absent", [tokenAccount(source, actors.payer.address, 10n)]);
    expect(await verifyPayment(request, verifyDeps(actors, { ledger: poor.ledger }))).toMatchObject({
      ok: false, reason: "INSUFFICIENT_FUNDS", message: `source ${source} can pay 10, the payment needs 1000`,
    });
    expect(poor.seen.reads).toBe(1);
    const funded = ledgerWith("fails", "absent", [tokenAccount(source, actors.payer.address, 5_000n), tokenAccount(source, actors.payTo.address, 0n)]);
    expect(await verifyPayment(request, verifyDeps(actors, { ledger: funded.ledger }))).toMatchObject({ ok: false, reason: "SIMULATION_FAILED" });
    expect(funded.seen.reads).toBe(1);
  });
});
