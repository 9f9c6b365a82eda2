/**
 * Attack payments on the embedded ledger: fresh funded parties, a transaction of the test's own
 * instructions with the service's fee payer in the fee-payer slot, and the refusal every attack
 * expects from both /verify and /settle.
 */
import { expect } from "bun:test";
import { type Address, type Blockhash, type Instruction, generateKeyPairSigner } from "@solana/kit";
import type { PaymentRequirements } from "../../../src/domain/payment/payment-request.ts";
import type { LocalLedger } from "../../../src/infrastructure/ledger/local-ledger.ts";
import { settleBody } from "../../../fixtures/payments.ts";
import { type JsonReply, postJson } from "../../settlement/support/service-harness.ts";
import { type Actors, USDC, buildTransaction, requirementsFor } from "../../../fixtures/payment-builder.ts";

/** Where a payment is built: a ledger for the blockhash and the fee payer that would co-sign. */
export type PaymentTarget = Readonly<{ ledger: LocalLedger; feePayer: Address }>;

/** A fresh payer holding `fund` USDC and a fresh payTo with an empty token account; the fee payer's key is not ours. */
export async function fundedActors(ledger: LocalLedger, fund: bigint): Promise<Actors> {
  const [payer, payTo] = await Promise.all([generateKeyPairSigner(), generateKeyPairSigner()]);
  await ledger.setTokenAccount(payer.address, USDC, { amount: fund });
  await ledger.setTokenAccount(payTo.address, USDC, { amount: 0n });
  return { payer, payTo, feePayer: payer };
}

export type SignedPayment = Readonly<{ transaction: string; body: Readonly<Record<string, unknown>> }>;

/**
 * Exactly `instructions`, signed by `actors.payer` on a real blockhash of the target's ledger with
 * its fee payer, and the /verify and /settle body for it under `requirements` (extra.feePayer set).
 */
export async function paymentOn(target: PaymentTarget, actors: Actors, instructions: readonly Instruction[], requirements: Partial<PaymentRequirements>): Promise<SignedPayment> {
  const { blockhash } = await target.ledger.getLatestBlockhash();
  const transaction = await buildTransaction(actors, { feePayerAddress: target.feePayer, blockhash: blockhash as Blockhash, instructions });
  const body = settleBody(transaction, requirementsFor(actors, { ...requirements, extra: { feePayer: target.feePayer, ...requirements.extra } }));
  return { transaction, body };
}

type Handles = Readonly<{ handle(request: Request): Promise<Response> | Response }>;

/** /verify answers invalid and /settle unsuccessful, both 200 with `reason` and no transaction. */
export async function expectRefusedOnBoth(app: Handles, body: Readonly<Record<string, unknown>>, reason: string): Promise<[JsonReply, JsonReply]> {
  const verified = await postJson(app, "/verify", body);
  expect(verified.status).toBe(200);
  expect(verified.body).toMatchObject({ isValid: false, invalidReason: reason });
  const settled = await postJson(app, "/settle", body);
  expect(settled.status).toBe(200);
  expect(settled.body).toMatchObject({ success: false, transaction: "", errorReason: reason });
  return [verified, settled];
}
