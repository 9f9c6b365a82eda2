/**
 * Claiming someone else's atomic or attestation payment, through the whole service (embedded
 * litesvm ledger, real SPL Token, PGlite). Every payment is a REAL transaction of TransferChecked
 * instructions signed by the payer (net to payTo, fee to a treasury, as the x84 client pays);
 * its PaymentReceipt is written with the ledger's setAccount, because the x84 program cannot
 * run in litesvm. A receipt is public on chain: paymentId and txSignature are no secret.
 */
import { describe, expect, test } from "bun:test";
import type { Address } from "@solana/kit";
import { SOLANA_DEVNET, DEVNET_USDC_MINT } from "../../src/domain/networks.ts";
import { modeSettlementKey } from "../../src/domain/settlement/mode-settlement-key.ts";
import {
  claimProof,
  createOtherMint,
  fundReceiptParties,
  newWallet,
  payWithReceipt,
  type Movement,
  type ReceiptPayment,
  type Wallet,
} from "../modes/support/receipt-payments.ts";
import { type JsonReply, postJson } from "../settlement/support/service-harness.ts";
import { useEmbeddedService } from "./support/embedded-service.ts";
import { expectRefusedOnBoth } from "./support/payments.ts";

const AMOUNT = 1_000_000n;
const FEE = 10_000n;
const RESOURCE_URL = "https://agent.example/a2a";
const RECEIPT_RESOURCE = "/a2a";

const rig = useEmbeddedService();

const nowSeconds = () => Math.floor(Date.now() / 1000);

type Parties = Readonly<{ payer: Wallet; payTo: Wallet; treasury: Wallet; stranger: Wallet }>;

async function parties(balance = 10_000_000n): Promise<Parties> {
  const [payer, payTo, treasury, stranger] = await Promise.all([newWallet(), newWallet(), newWallet(), newWallet()]);
  await fundReceiptParties(rig.ledger, payer.address, [payTo.address, treasury.address, stranger.address], balance);
  return { payer, payTo, treasury, stranger };
}

async function pay(p: Parties, options: { mode?: "atomic" | "attestation"; movements?: readonly Movement[]; landFailed?: boolean } = {}): Promise<ReceiptPayment> {
  return payWithReceipt(rig.ledger, { payer: p.payer, payTo: p.payTo.address, treasury: p.treasury.address, amount: AMOUNT, feeAmount: FEE, resource: RECEIPT_RESOURCE, ...options });
}

/** A /verify and /settle body for the receipt, with `proof` (or none) and the requirements' resource. */
function body(paid: ReceiptPayment, payTo: Address, proof: Record<string, unknown>, resource = RESOURCE_URL): Record<string, unknown> {
  const requirements = { scheme: "exact", network: SOLANA_DEVNET, asset: DEVNET_USDC_MINT, amount: AMOUNT.toString(), payTo, resource };
  const extensions = { mode: paid.receipt.settlementMode, paymentId: paid.paymentIdHex, txSignature: paid.txSignature, ...proof };
  return { paymentPayload: { x402Version: 2, accepted: requirements, payload: {}, extensions }, paymentRequirements: requirements };
}

/** The honest payer's fresh claim. */
function honestProof(p: Parties, paid: ReceiptPayment, timestamp = nowSeconds()) {
  return claimProof(p.payer.secret, paid.paymentIdHex, RECEIPT_RESOURCE, timestamp);
}

async function recordOf(paid: ReceiptPayment) {
  return rig.service.store.settlements.get(modeSettlementKey(paid.receipt.settlementMode as "atomic" | "attestation", paid.paymentIdHex));
}

/** /verify and /settle both refuse with `reason`, and no settlement is recorded for the payment. */
async function expectRefusedEverywhere(paid: ReceiptPayment, request: Record<string, unknown>, reason: string): Promise<[JsonReply, JsonReply]> {
  const replies = await expectRefusedOnBoth(rig.service.facilitatorApp, request, reason);
  expect(await recordOf(paid)).toBeNull();
  return replies;
}

describe("receipt-claim attacks on /verify and /settle (atomic and attestation)", () => {
  for (const mode of ["atomic", "attestation"] as const) {
    test(`${mode}: a stranger presenting someone else's valid receipt without a proof is refused (MODE_PROOF_INVALID) and nothing is recorded`, async () => {
      const p = await parties();
      const paid = await pay(p, { mode });
      await expectRefusedEverywhere(paid, body(paid, p.payTo.address, {}), "MODE_PROOF_INVALID");
      // The receipt itself was valid all along: its payer's proof makes the very same request pass.
      expect((await postJson(rig.service.facilitatorApp, "/verify", body(paid, p.payTo.address, await honestProof(p, paid)))).body).toMatchObject({ isValid: true, payer: p.payer.address });
    });
  }

  test("a stranger's own signature, a forged one, or naming itself as payer is refused, and nothing is recorded", async () => {
    const p = await parties();
    const paid = await pay(p);
    const byStranger = await claimProof(p.stranger.secret, paid.paymentIdHex, RECEIPT_RESOURCE, nowSeconds());
    await expectRefusedEverywhere(paid, body(paid, p.payTo.address, byStranger), "MODE_PROOF_INVALID");
    const forged = { signature: Buffer.from(new Uint8Array(64).fill(9)).toString("base64"), timestamp: nowSeconds() };
    await expectRefusedEverywhere(paid, body(paid, p.payTo.address, forged), "MODE_PROOF_INVALID");
    // The payer's signature over another paymentId (a different payment of theirs) does not transfer.
    const otherPayment = await claimProof(p.payer.secret, "ab".repeat(32), RECEIPT_RESOURCE, nowSeconds());
    await expectRefusedEverywhere(paid, body(paid, p.payTo.address, otherPayment), "MODE_PROOF_INVALID");
    // Claiming to be the payer changes nothing: the receipt says who paid.
    await expectRefusedEverywhere(paid, body(paid, p.payTo.address, { ...byStranger, payer: p.stranger.address }), "MODE_RECEIPT_MISMATCH");
  });

  test("a proof older than 60 s (e.g. captured from an earlier request) is refused (MODE_PROOF_EXPIRED)", async () => {
    const p = await parties();
    const paid = await pay(p);
    await expectRefusedEverywhere(paid, body(paid, p.payTo.address, await honestProof(p, paid, nowSeconds() - 61)), "MODE_PROOF_EXPIRED");
    await expectRefusedEverywhere(paid, body(paid, p.payTo.address, await honestProof(p, paid, nowSeconds() + 120)), "MODE_PROOF_EXPIRED");
  });

  test("a receipt for another resource is refused (MODE_RECEIPT_MISMATCH), even with its payer's proof", async () => {
    const p = await parties();
    const paid = await pay(p);
    const proof = await honestProof(p, paid);
    await expectRefusedEverywhere(paid, body(paid, p.payTo.address, proof, "https://agent.example/mcp"), "MODE_RECEIPT_MISMATCH");
    await expectRefusedEverywhere(paid, body(paid, p.payTo.address, proof, "https://agent.example/a2a/premium"), "MODE_RECEIPT_MISMATCH");
  });

  test("a receipt whose transaction moved less than its amount is refused (MODE_TRANSFER_MISMATCH)", async () => {
    const p = await parties();
    const paid = await pay(p, { movements: [{ to: p.payTo.address, amount: 490_000n }, { to: p.treasury.address, amount: FEE }] });
    await expectRefusedEverywhere(paid, body(paid, p.payTo.address, await honestProof(p, paid)), "MODE_TRANSFER_MISMATCH");
  });

  test("a receipt whose transaction moved another mint is refused (MODE_TRANSFER_MISMATCH)", async () => {
    const p = await parties();
    const other = await createOtherMint(rig.ledger);
    for (const owner of [p.payer.address, p.payTo.address, p.treasury.address]) await rig.ledger.setTokenAccount(owner, other, { amount: owner === p.payer.address ? AMOUNT : 0n });
    const paid = await pay(p, { movements: [{ to: p.payTo.address, amount: AMOUNT - FEE, mint: other }, { to: p.treasury.address, amount: FEE, mint: other }] });
    await expectRefusedEverywhere(paid, body(paid, p.payTo.address, await honestProof(p, paid)), "MODE_TRANSFER_MISMATCH");
  });

  test("a receipt whose transaction paid someone else is refused (MODE_TRANSFER_MISMATCH)", async () => {
    const p = await parties();
    const paid = await pay(p, { movements: [{ to: p.stranger.address, amount: AMOUNT - FEE }, { to: p.treasury.address, amount: FEE }] });
    await expectRefusedEverywhere(paid, body(paid, p.payTo.address, await honestProof(p, paid)), "MODE_TRANSFER_MISMATCH");
  });

  test("a receipt whose transaction failed on chain is refused (MODE_TX_FAILED)", async () => {
    // 0.5 USDC cannot pay 0.99: the transaction lands (fee charged) and fails.
    const p = await parties(500_000n);
    const paid = await pay(p, { landFailed: true });
    expect((await rig.ledger.getSignatureStatuses([paid.txSignature]))[0]?.err).not.toBeNull();
    await expectRefusedEverywhere(paid, body(paid, p.payTo.address, await honestProof(p, paid)), "MODE_TX_FAILED");
  });

  test("the honest payer's proof passes and records once; a second settle replays; a stranger still cannot claim it afterwards", async () => {
    const p = await parties();
    const paid = await pay(p);
    const request = body(paid, p.payTo.address, await honestProof(p, paid));

    expect((await postJson(rig.service.facilitatorApp, "/verify", request)).body).toMatchObject({ isValid: true, payer: p.payer.address });
    const settled = await postJson(rig.service.facilitatorApp, "/settle", request);
    expect(settled.body).toMatchObject({ success: true, transaction: paid.txSignature, payer: p.payer.address, extensions: { mode: "atomic" } });
    expect(settled.body["extensions"]).not.toMatchObject({ replayed: true });
    expect(await recordOf(paid)).toMatchObject({ state: "settled", signature: paid.txSignature, payer: p.payer.address });

    const replay = await postJson(rig.service.facilitatorApp, "/settle", request);
    expect(replay.body).toMatchObject({ success: true, transaction: paid.txSignature, extensions: { replayed: true } });
    expect((await postJson(rig.service.facilitatorApp, "/verify", request)).body).toMatchObject({ isValid: false, invalidReason: "ALREADY_SETTLED" });

    // SECURITY: a settled receipt is not answered from the record to whoever copies its public
    // paymentId and txSignature: /settle verifies the claim again first.
    const stranger = await postJson(rig.service.facilitatorApp, "/settle", body(paid, p.payTo.address, {}));
    expect(stranger.body).toMatchObject({ success: false, transaction: "", errorReason: "MODE_PROOF_INVALID" });
    const byStranger = await claimProof(p.stranger.secret, paid.paymentIdHex, RECEIPT_RESOURCE, nowSeconds());
    const signedByStranger = await postJson(rig.service.facilitatorApp, "/settle", body(paid, p.payTo.address, byStranger));
    expect(signedByStranger.body).toMatchObject({ success: false, errorReason: "MODE_PROOF_INVALID" });
    // Still one record, the payer's.
    expect(await recordOf(paid)).toMatchObject({ state: "settled", payer: p.payer.address });
  });
});
