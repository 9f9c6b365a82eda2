import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Address } from "@solana/kit";
import type { LocalLedger } from "../../src/infrastructure/ledger/local-ledger.ts";
import { DEFAULT_AMOUNT, LAMPORTS_PER_SIGNATURE, type Payment, fundedPayment, settlementKeyOfPayment, usdcOf } from "../../fixtures/payments.ts";
import { type TestService, extensionsOf, postJson, startService } from "./support/service-harness.ts";

let service: TestService;
let ledger: LocalLedger;
let feePayer: Address;

beforeAll(async () => {
  service = await startService();
  if (!service.embeddedLedger) throw new Error("expected the embedded ledger");
  ledger = service.embeddedLedger;
  const first = service.feePayers.addresses[0];
  if (!first) throw new Error("expected a development fee payer");
  feePayer = first;
}, 30_000);

afterAll(async () => {
  await service.dispose();
});

type Balances = Readonly<{ payer: bigint; payTo: bigint; feePayerSol: bigint; payerSol: bigint }>;

async function balances(payment: Payment): Promise<Balances> {
  return {
    payer: await usdcOf(ledger, payment.actors.payer.address),
    payTo: await usdcOf(ledger, payment.actors.payTo.address),
    feePayerSol: ledger.getBalance(feePayer),
    payerSol: ledger.getBalance(payment.actors.payer.address),
  };
}

describe("settle end to end (buildService: embedded litesvm ledger with real SPL Token, PGlite store, app.handle)", () => {
  let payment: Payment;
  let signature = "";
  let before: Balances;

  test("a valid payment settles: payTo gains exactly the amount, the fee payer pays exactly the fee, the record is settled", async () => {
    payment = await fundedPayment(ledger, feePayer);
    before = await balances(payment);

    const reply = await postJson(service.facilitatorApp, "/settle", payment.body);

    expect(reply.status).toBe(200);
    expect(reply.body["success"]).toBe(true);
    expect(reply.body["network"]).toBe(service.config.NETWORK);
    expect(reply.body["payer"]).toBe(payment.actors.payer.address);
    expect(extensionsOf(reply)["replayed"]).toBeUndefined();
    signature = String(reply.body["transaction"]);
    expect(signature.length).toBeGreaterThan(80);

    const after = await balances(payment);
    expect(after.payTo - before.payTo).toBe(DEFAULT_AMOUNT);
    expect(before.payer - after.payer).toBe(DEFAULT_AMOUNT);
    // Two signatures (fee payer + payer), no priority fee: the facilitator pays 10,000 lamports and nothing else.
    expect(before.feePayerSol - after.feePayerSol).toBe(2n * LAMPORTS_PER_SIGNATURE);
    expect(after.payerSol).toBe(before.payerSol);

    const landed = ledger.getTransaction(signature as Parameters<LocalLedger["getTransaction"]>[0]);
    expect(landed).not.toBeNull();
    expect(landed?.err).toBeNull();
    const record = await service.store.settlements.get(settlementKeyOfPayment(payment));
    expect(record?.state).toBe("settled");
    expect(record?.signature).toBe(signature);
    expect(record?.amount).toBe(DEFAULT_AMOUNT);
    expect(record?.payTo).toBe(payment.actors.payTo.address);
    expect(record?.error).toBeNull();
  });

  test("a second settle of the same payment returns the same signature with replayed:true and moves nothing", async () => {
    const settled = await balances(payment);
    const reply = await postJson(service.facilitatorApp, "/settle", payment.body);

    expect(reply.status).toBe(200);
    expect(reply.body["success"]).toBe(true);
    expect(reply.body["transaction"]).toBe(signature);
    expect(extensionsOf(reply)["replayed"]).toBe(true);
    expect(await balances(payment)).toEqual(settled);
  });

  test("/verify of the settled payment answers ALREADY_SETTLED", async () => {
    const reply = await postJson(service.facilitatorApp, "/verify", payment.body);
    expect(reply.status).toBe(200);
    expect(reply.body["isValid"]).toBe(false);
    expect(reply.body["invalidReason"]).toBe("ALREADY_SETTLED");
  });

  test("the settled payment resent with junk in our fee-payer slot is refused (ALREADY_SIGNED) and moves nothing", async () => {
    const settled = await balances(payment);
    const bytes = Uint8Array.from(atob(payment.transaction), (c) => c.charCodeAt(0));
    // The fee-payer signature slot (first 64 bytes after the count) is ours to fill: junk there changes nothing.
    bytes.fill(7, 1, 65);
    let binary = "";
    for (const byte of bytes) binary += String.fromCharCode(byte);
    const body = structuredClone(payment.body) as { paymentPayload: { payload: { transaction: string } } };
    body.paymentPayload.payload.transaction = btoa(binary);

    const reply = await postJson(service.facilitatorApp, "/settle", body);
    // Verification runs first and refuses a filled fee-payer slot; never a second transfer.
    expect(reply.body["success"]).toBe(false);
    expect(reply.body["errorReason"]).toBe("ALREADY_SIGNED");
    expect(await balances(payment)).toEqual(settled);
  });
});

describe("settle with insufficient funds (buildService: embedded litesvm ledger, PGlite store)", () => {
  test("INSUFFICIENT_FUNDS before anything is signed: nothing moves, nothing is recorded; after funding the same transaction settles", async () => {
    const payment = await fundedPayment(ledger, feePayer, { fund: DEFAULT_AMOUNT - 1n });
    const before = await balances(payment);

    const failed = await postJson(service.facilitatorApp, "/settle", payment.body);

    expect(failed.status).toBe(200);
    expect(failed.body["success"]).toBe(false);
    expect(failed.body["transaction"]).toBe("");
    expect(failed.body["network"]).toBe(service.config.NETWORK);
    expect(failed.body["errorReason"]).toBe("INSUFFICIENT_FUNDS");
    expect(String(failed.body["errorMessage"])).toBe(`source ${payment.payerAta} can pay ${DEFAULT_AMOUNT - 1n}, the payment needs ${DEFAULT_AMOUNT}`);
    expect(await balances(payment)).toEqual(before);
    // No claim: a claim holds our signature, and none was made.
    const key = settlementKeyOfPayment(payment);
    expect(await service.store.settlements.get(key)).toBeNull();

    await ledger.setTokenAccount(payment.actors.payer.address, payment.requirements.asset as Address, { amount: DEFAULT_AMOUNT });
    const retried = await postJson(service.facilitatorApp, "/settle", payment.body);

    expect(retried.body["success"]).toBe(true);
    expect(await usdcOf(ledger, payment.actors.payTo.address)).toBe(DEFAULT_AMOUNT);
    expect(await usdcOf(ledger, payment.actors.payer.address)).toBe(0n);
    const settled = await service.store.settlements.get(key);
    expect(settled?.state).toBe("settled");
    expect(settled?.attempts).toBe(1);
    expect(settled?.signature).toBe(String(retried.body["transaction"]));
  });
});
