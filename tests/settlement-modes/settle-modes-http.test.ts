import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { signAsync } from "@noble/ed25519";
import { TOKEN_PROGRAM_ADDRESS, findAssociatedTokenPda } from "@solana-program/token";
import { type Address, type KeyPairSigner, createKeyPairSignerFromPrivateKeyBytes } from "@solana/kit";
import { silentLogger } from "../../src/application/ports/logger.ts";
import { delegatedProofMessage } from "../../src/domain/modes/delegated-proof.ts";
import { DEVNET_USDC_MINT, SOLANA_DEVNET } from "../../src/domain/networks.ts";
import { modeSettlementKey } from "../../src/domain/settlement/mode-settlement-key.ts";
import { parseServiceConfig } from "../../src/infrastructure/config/service-config.ts";
import type { LocalLedger } from "../../src/infrastructure/ledger/local-ledger.ts";
import { type Service, buildService } from "../../src/composition/service.ts";
import { AGENT_MINT, PROGRAM_ID, delegation } from "../modes/support/mode-fixtures.ts";
import { AGENT_OWNER_VERSION_OFFSET } from "../../src/domain/modes/delegation-check.ts";
import { encodeDelegation } from "../../src/domain/modes/delegation.ts";
import { findAgentPda, findDelegationPda } from "../../src/domain/modes/mode-pdas.ts";
import { AGENT_IDENTITY_DISCRIMINATOR } from "../../src/domain/registry/agent-identity.ts";
import { getU64Encoder } from "@solana/kit";
import { fundedPayment } from "../../fixtures/payments.ts";
import { claimProof, fundReceiptParties, newWallet, payWithReceipt } from "../modes/support/receipt-payments.ts";

const USDC = DEVNET_USDC_MINT as Address;
const dataDir = mkdtempSync(join(tmpdir(), "modes-http-"));
let service: Service;
let ledger: LocalLedger;
let feePayer: Address;

async function newKey(): Promise<{ secret: Uint8Array; signer: KeyPairSigner }> {
  const secret = crypto.getRandomValues(new Uint8Array(32));
  return { secret, signer: await createKeyPairSignerFromPrivateKeyBytes(secret) };
}

async function ata(owner: Address): Promise<Address> {
  return (await findAssociatedTokenPda({ owner, mint: USDC, tokenProgram: TOKEN_PROGRAM_ADDRESS }))[0];
}

async function balance(owner: Address): Promise<bigint> {
  return ledger.getTokenAccountBalance(await ata(owner))?.amount ?? 0n;
}

/**
 * Delegated-mode extensions for a fresh paymentId, with the canonical proof signed now by
 * `signerSecret` over (payer, proofPayTo, asset, amount).
 */
async function delegatedExtensions(
  signerSecret: Uint8Array,
  payer: Address,
  proofPayTo: Address,
  amount: bigint,
  extra: Record<string, unknown> = {},
): Promise<Record<string, unknown>> {
  const paymentId = randomPaymentId();
  const timestamp = Math.floor(Date.now() / 1000);
  const fields = { paymentIdHex: paymentId, payer, payTo: proofPayTo, asset: USDC, amount, timestamp };
  const signature = Buffer.from(await signAsync(delegatedProofMessage(fields), signerSecret)).toString("base64");
  return { mode: "delegated", paymentId, payer, signature, timestamp, ...extra };
}

function randomPaymentId(): string {
  return [...crypto.getRandomValues(new Uint8Array(32))].map((b) => b.toString(16).padStart(2, "0")).join("");
}

function body(payTo: Address, amount: bigint, extensions: Record<string, unknown>, resource?: string) {
  const requirements = { scheme: "exact", network: SOLANA_DEVNET, asset: USDC, amount: amount.toString(), payTo, ...(resource ? { resource } : {}) };
  return { paymentPayload: { x402Version: 2, accepted: requirements, payload: {}, extensions }, paymentRequirements: requirements };
}

async function call(path: "/verify" | "/settle", payload: unknown): Promise<Record<string, unknown>> {
  const response = await service.facilitatorApp.handle(
    new Request(`http://facilitator${path}`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(payload) }),
  );
  expect(response.status).toBe(200);
  return (await response.json()) as Record<string, unknown>;
}

beforeAll(async () => {
  const parsed = parseServiceConfig({ DATA_DIR: dataDir, LOG_LEVEL: "silent" });
  if (!parsed.ok) throw new Error(parsed.errors.join("; "));
  service = await buildService(parsed.config, {}, silentLogger);
  ledger = service.embeddedLedger as LocalLedger;
  feePayer = service.feePayers.addresses[0] as Address;
}, 30_000);

afterAll(async () => {
  await service?.close(1000);
  rmSync(dataDir, { recursive: true, force: true });
});

describe("POST /settle with extensions.mode (whole service: embedded ledger, real SPL Token, PGlite)", () => {
  test("delegated (server-side proof): the facilitator moves the tokens as SPL delegate once; a replay moves nothing", async () => {
    const payer = await newKey();
    const payTo = (await newKey()).signer.address;
    await ledger.setTokenAccount(payer.signer.address, USDC, { amount: 10_000_000n, delegate: feePayer, delegatedAmount: 3_000_000n });
    await ledger.setTokenAccount(payTo, USDC, { amount: 0n });
    const request = body(payTo, 2_000_000n, await delegatedExtensions(payer.secret, payer.signer.address, payTo, 2_000_000n));

    expect(await call("/verify", request)).toMatchObject({ isValid: true, payer: payer.signer.address });
    const settled = await call("/settle", request);
    expect(settled).toMatchObject({ success: true, payer: payer.signer.address, extensions: { mode: "delegated" } });
    expect(await balance(payTo)).toBe(2_000_000n);
    expect(await balance(payer.signer.address)).toBe(8_000_000n);

    const replay = await call("/settle", request);
    expect(replay).toMatchObject({ success: true, transaction: settled["transaction"], extensions: { replayed: true } });
    expect(await balance(payTo)).toBe(2_000_000n);
    expect(await call("/verify", request)).toMatchObject({ isValid: false, invalidReason: "ALREADY_SETTLED" });
  });

  test("SECURITY: delegated: a stranger who copies a settled payment's public terms gets no success from the record", async () => {
    const payer = await newKey();
    const stranger = await newKey();
    const payTo = (await newKey()).signer.address;
    await ledger.setTokenAccount(payer.signer.address, USDC, { amount: 10_000_000n, delegate: feePayer, delegatedAmount: 3_000_000n });
    await ledger.setTokenAccount(payTo, USDC, { amount: 0n });
    const extensions = await delegatedExtensions(payer.secret, payer.signer.address, payTo, 1_000_000n);
    const settled = await call("/settle", body(payTo, 1_000_000n, extensions));
    expect(settled).toMatchObject({ success: true });

    // paymentId (in our transfer's memo), payer, payTo and amount are public; the proof is not.
    const { signature: _proof, timestamp: _at, ...publicTerms } = extensions;
    const withoutProof = await call("/settle", body(payTo, 1_000_000n, publicTerms));
    expect(withoutProof).toMatchObject({ success: false, transaction: "" });
    const fields = { paymentIdHex: String(extensions["paymentId"]), payer: payer.signer.address, payTo, asset: USDC, amount: 1_000_000n, timestamp: Math.floor(Date.now() / 1000) };
    const forged = Buffer.from(await signAsync(delegatedProofMessage(fields), stranger.secret)).toString("base64");
    const strangerProof = await call("/settle", body(payTo, 1_000_000n, { ...publicTerms, signature: forged, timestamp: fields.timestamp }));
    expect(strangerProof).toMatchObject({ success: false, transaction: "" });
    // A stranger paying under the same paymentId as themselves is not answered with the payer's record.
    await ledger.setTokenAccount(stranger.signer.address, USDC, { amount: 10_000_000n, delegate: feePayer, delegatedAmount: 3_000_000n });
    const own = await call("/settle", body(payTo, 1_000_000n, await delegatedExtensions(stranger.secret, stranger.signer.address, payTo, 1_000_000n)));
    expect(own).toMatchObject({ success: true });
    const squat: Record<string, unknown> = { ...(await delegatedExtensions(stranger.secret, stranger.signer.address, payTo, 1_000_000n)), paymentId: extensions["paymentId"] };
    const fieldsForSquat = { ...fields, payer: stranger.signer.address, timestamp: Number(squat["timestamp"]) };
    squat["signature"] = Buffer.from(await signAsync(delegatedProofMessage(fieldsForSquat), stranger.secret)).toString("base64");
    expect(await call("/settle", body(payTo, 1_000_000n, squat))).toMatchObject({ success: false, transaction: "", errorReason: "ALREADY_SETTLED" });

    // The payer's own retry, with its original proof, is still the idempotent replay.
    expect(await call("/settle", body(payTo, 1_000_000n, extensions))).toMatchObject({ success: true, transaction: settled["transaction"], extensions: { replayed: true } });
    expect(await balance(payTo)).toBe(2_000_000n);
  });

  test("delegated (client-side Delegation): concurrent payments cannot spend past the Delegation's total, whatever the SPL allowance", async () => {
    const payer = await newKey();
    const operator = await newKey();
    const payTo = (await newKey()).signer.address;
    // 5 USDC total, 1 already spent by the program: 4 USDC left for us, although the SPL allowance is 100.
    const value = delegation({ delegator: payer.signer.address, delegate: operator.signer.address, ownerVersion: 1n, maxSpendTotal: 5_000_000n, spentTotal: 1_000_000n, expiresAt: 0n });
    const [delegationPda] = await findDelegationPda(PROGRAM_ID, payer.signer.address, operator.signer.address, value.delegationId);
    ledger.setAccount(delegationPda, { lamports: 5_000_000n, owner: PROGRAM_ID, data: encodeDelegation(value) });
    const [agentPda] = await findAgentPda(PROGRAM_ID, AGENT_MINT);
    const agent = new Uint8Array(300);
    agent.set(AGENT_IDENTITY_DISCRIMINATOR, 0);
    agent.set(getU64Encoder().encode(1n), AGENT_OWNER_VERSION_OFFSET);
    ledger.setAccount(agentPda, { lamports: 5_000_000n, owner: PROGRAM_ID, data: agent });
    await ledger.setTokenAccount(payer.signer.address, USDC, { amount: 100_000_000n, delegate: feePayer, delegatedAmount: 100_000_000n });
    await ledger.setTokenAccount(payTo, USDC, { amount: 0n });

    // Client-side: the Delegation's delegate (the operator) signs the proof.
    const clientSideRequest = async () =>
      body(payTo, 1_500_000n, await delegatedExtensions(operator.secret, payer.signer.address, payTo, 1_500_000n, { delegationPda }));
    const requests = await Promise.all(Array.from({ length: 5 }, clientSideRequest));
    const answers = await Promise.all(requests.map((r) => call("/settle", r)));
    expect(answers.filter((a) => a["success"] === true).length).toBe(2);
    expect(answers.filter((a) => a["errorReason"] === "DELEGATION_BUDGET_EXCEEDED").length).toBe(3);
    expect(await balance(payTo)).toBe(3_000_000n);
  });

  test("delegated: a proof for another payTo is refused and nothing moves (proof binds the terms)", async () => {
    const payer = await newKey();
    const payTo = (await newKey()).signer.address;
    const attacker = (await newKey()).signer.address;
    await ledger.setTokenAccount(payer.signer.address, USDC, { amount: 10_000_000n, delegate: feePayer, delegatedAmount: 3_000_000n });
    await ledger.setTokenAccount(attacker, USDC, { amount: 0n });
    // Signed for payTo, sent with the attacker as payTo.
    const stolen = body(attacker, 1_000_000n, await delegatedExtensions(payer.secret, payer.signer.address, payTo, 1_000_000n));
    expect(await call("/settle", stolen)).toMatchObject({ success: false, transaction: "", errorReason: "DELEGATION_PROOF_INVALID" });
    expect(await balance(attacker)).toBe(0n);
  });

  test("atomic: the payer's confirmed two-transfer payment with its receipt and claim proof is recorded once, nothing is submitted, and a standard payment squatting its paymentId does not block it", async () => {
    const [payer, payTo, treasury] = await Promise.all([newWallet(), newWallet(), newWallet()]);
    await fundReceiptParties(ledger, payer.address, [payTo.address, treasury.address], 5_000_000n);
    const paid = await payWithReceipt(ledger, { payer, payTo: payTo.address, treasury: treasury.address, amount: 1_000_000n, feeAmount: 10_000n });
    const paymentIdHex = paid.paymentIdHex;
    // An attacker who read the paymentId from the public receipt settles a payment of their own
    // under it first: that must not block the real payment from being recorded.
    const squatter = await fundedPayment(ledger, feePayer, { amount: 1n });
    const squatBody = { ...squatter.body, paymentPayload: { ...(squatter.body["paymentPayload"] as object), extensions: { paymentId: paymentIdHex } } };
    expect(await call("/settle", squatBody)).toMatchObject({ success: true });

    const feePayerLamports = ledger.getBalance(feePayer);
    const proof = await claimProof(payer.secret, paymentIdHex, "/a2a", Math.floor(Date.now() / 1000));
    const extensions = { mode: "atomic", paymentId: paymentIdHex, txSignature: paid.txSignature, receiptPda: paid.receiptPda };
    const request = body(payTo.address, 1_000_000n, { ...extensions, ...proof }, "https://agent.example/a2a");

    expect(await call("/verify", request)).toMatchObject({ isValid: true, payer: payer.address });
    const settled = await call("/settle", request);
    expect(settled).toMatchObject({ success: true, transaction: paid.txSignature, payer: payer.address, extensions: { mode: "atomic" } });
    const record = await service.store.settlements.get(modeSettlementKey("atomic", paymentIdHex));
    expect(record).toMatchObject({ state: "settled", signature: paid.txSignature, mode: "atomic", paymentId: null, payer: payer.address });
    expect(await call("/settle", request)).toMatchObject({ success: true, transaction: paid.txSignature, extensions: { replayed: true } });
    // Recording costs the fee payer nothing: no transaction of ours was sent.
    expect(ledger.getBalance(feePayer)).toBe(feePayerLamports);
    expect(await balance(payTo.address)).toBe(990_000n);
    expect(await balance(treasury.address)).toBe(10_000n);
  });
});
