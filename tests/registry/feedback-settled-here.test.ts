/**
 * `settledHere` on feedback entries (docs/registry.md#settled-here), through app.handle. Real: the
 * whole service settling an atomic payment on the embedded ledger (real SPL Token, PGlite), which
 * records the PaymentReceipt it was proven by; the background reader taking each entry's
 * give_feedback from recorded JSON-RPC answers (msw, the x84 program cannot run in the embedded
 * ledger) with its `payment_receipt` account; the agent index, the SQL stores and the registry routes.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Address, Signature } from "@solana/kit";
import { Elysia } from "elysia";
import { setupServer } from "msw/node";
import { silentLogger } from "../../src/application/ports/logger.ts";
import { createAgentPayments } from "../../src/application/registry/agent-payments.ts";
import { createFeedbackDetailBackfill } from "../../src/application/registry/feedback-detail-backfill.ts";
import { type Service, buildService } from "../../src/composition/service.ts";
import { encodeAgentIdentity } from "../../src/domain/registry/agent-identity.ts";
import { createCategoryCatalog, DEFAULT_CATEGORY_NAMES } from "../../src/domain/registry/categories.ts";
import { encodeFeedbackEntry, type FeedbackEntry } from "../../src/domain/registry/feedback-entry.ts";
import { findAgentPda, findFeedbackPda } from "../../src/domain/registry/pdas.ts";
import { DEVNET_USDC_MINT, SOLANA_DEVNET } from "../../src/domain/networks.ts";
import { errorLayer } from "../../src/http/error-layer.ts";
import { registryRoutes } from "../../src/http/registry/registry-routes.ts";
import { parseServiceConfig } from "../../src/infrastructure/config/service-config.ts";
import type { LocalLedger } from "../../src/infrastructure/ledger/local-ledger.ts";
import { createRpcLedger } from "../../src/infrastructure/ledger/rpc-ledger.ts";
import { createAgentIndex } from "../../src/infrastructure/registry/ledger-agent-index.ts";
import { createSqlFeedbackDetailUriStore } from "../../src/infrastructure/store/sql-feedback-detail-uri-store.ts";
import { createSqlPaymentStats } from "../../src/infrastructure/store/sql-payment-stats.ts";
import { claimProof, fundReceiptParties, newWallet, payWithReceipt } from "../modes/support/receipt-payments.ts";
import { createManualClock } from "./support/manual-clock.ts";
import { giveFeedbackTransactionJson, memcmpFilters, programAccount, recordedRpcHandler, recordedSignature, signatureInfo, type Json, type RpcCall } from "./support/recorded-rpc.ts";
import { agentIdentity, feedbackEntry, padded, PROGRAM_ID, testAddress } from "./support/registry-fixtures.ts";

const RPC_URL = "https://rpc.settled-here.test/";
const accounts: { pubkey: Address; data: Uint8Array }[] = [];
const signaturesByAddress = new Map<string, Json[]>();
const transactions = new Map<string, Json>();
const calls: RpcCall[] = [];

const server = setupServer(
  recordedRpcHandler(
    RPC_URL,
    {
      getProgramAccounts: (params) => {
        const filters = memcmpFilters(params);
        return accounts.filter(({ data }) => filters.every(({ offset, bytes }) => bytes.every((b, i) => data[offset + i] === b))).map(({ pubkey, data }) => programAccount(pubkey, PROGRAM_ID, data));
      },
      getSignaturesForAddress: (params) => signaturesByAddress.get(String(params[0])) ?? [],
      getTransaction: (params) => transactions.get(String(params[0])) ?? null,
    },
    calls,
  ),
);

const dataDir = mkdtempSync(join(tmpdir(), "settled-here-"));
let service: Service;
let network: string;

beforeAll(async () => {
  server.listen({ onUnhandledRequest: "error" });
  const parsed = parseServiceConfig({ DATA_DIR: dataDir, LOG_LEVEL: "silent" });
  if (!parsed.ok) throw new Error(parsed.errors.join("; "));
  network = parsed.config.NETWORK;
  service = await buildService(parsed.config, {}, silentLogger);
}, 30_000);

afterAll(async () => {
  server.close();
  await service?.close(1000);
  rmSync(dataDir, { recursive: true, force: true });
});

/** An atomic payment settled through the whole service: its receipt is recorded with the settlement. */
async function settleAtomicPayment(): Promise<Address> {
  const ledger = service.embeddedLedger as LocalLedger;
  const [payer, payTo, treasury] = await Promise.all([newWallet(), newWallet(), newWallet()]);
  await fundReceiptParties(ledger, payer.address, [payTo.address, treasury.address], 5_000_000n);
  const paid = await payWithReceipt(ledger, { payer, payTo: payTo.address, treasury: treasury.address, amount: 1_000_000n, feeAmount: 10_000n });
  const proof = await claimProof(payer.secret, paid.paymentIdHex, "/a2a", Math.floor(Date.now() / 1000));
  const requirements = { scheme: "exact", network: SOLANA_DEVNET, asset: DEVNET_USDC_MINT, amount: "1000000", payTo: payTo.address, resource: "https://agent.example/a2a" };
  const extensions = { mode: "atomic", paymentId: paid.paymentIdHex, txSignature: paid.txSignature, receiptPda: paid.receiptPda, ...proof };
  const response = await service.facilitatorApp.handle(
    new Request("http://facilitator/settle", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ paymentPayload: { x402Version: 2, accepted: requirements, payload: {}, extensions }, paymentRequirements: requirements }),
    }),
  );
  expect(await response.json()).toMatchObject({ success: true, transaction: paid.txSignature });
  return paid.receiptPda;
}

/** A receipt-mode record that failed (its receipt never proved a payment here), written through the store port. */
async function failedReceiptSettlement(receipt: Address): Promise<void> {
  const key = `atomic:${crypto.randomUUID()}`;
  const signature = recordedSignature(9_999);
  const payer = testAddress(2, 99);
  await service.store.settlements.claim({ key, paymentId: null, payer, payTo: testAddress(2, 98), asset: DEVNET_USDC_MINT, amount: 1n, network, mode: "atomic", signature, wireTransaction: null, lastValidBlockHeight: null, receipt });
  await service.store.settlements.finish(key, signature, { state: "failed", error: "MODE_TX_FAILED" });
}

async function seedFeedback(entry: FeedbackEntry, label: number, paymentReceipt?: Address): Promise<Address> {
  const [pda] = await findFeedbackPda(PROGRAM_ID, entry.nftMint, entry.reviewer, entry.createdAt);
  accounts.push({ pubkey: pda, data: encodeFeedbackEntry(entry) });
  const signature = recordedSignature(label);
  const args = { score: entry.score, tag1: entry.tag1, tag2: entry.tag2, detailUri: `https://reviews.example/${label}.json`, detailHash: new Uint8Array(32), feedbackAuth: new Uint8Array(64), feedbackNonce: entry.createdAt };
  transactions.set(signature, await giveFeedbackTransactionJson({ programId: PROGRAM_ID, signature, slot: 400_000_000 + label, reviewer: entry.reviewer, nftMint: entry.nftMint, feedbackEntry: pda, args, ...(paymentReceipt ? { paymentReceipt } : {}) }));
  signaturesByAddress.set(pda, [signatureInfo(signature, 400_000_000 + label)]);
  return pda;
}

type FeedbackItem = Record<string, unknown> & { address: string };

describe("feedback settledHere (whole-service atomic settlement, recorded give_feedback transactions)", () => {
  test("true only for the receipt settled here with the entry's token and amount; false for the same receipt with other terms, a failed settlement's receipt, a receipt unknown here and feedback without one; absent until the transaction is read", async () => {
    const settledReceipt = await settleAtomicPayment();
    const failedReceipt = testAddress(3, 1);
    await failedReceiptSettlement(failedReceipt);
    const unknownReceipt = testAddress(3, 2);

    const agent = agentIdentity(0);
    const [agentPda] = await findAgentPda(PROGRAM_ID, agent.nftMint);
    accounts.push({ pubkey: agentPda, data: padded(encodeAgentIdentity(agent), 600) });
    const proof = { hasPaymentProof: true, paymentAmount: 1_000_000n, paymentToken: DEVNET_USDC_MINT as Address };
    const paidHere = await seedFeedback(feedbackEntry(agent.nftMint, 0, proof), 10, settledReceipt);
    const paidFailed = await seedFeedback(feedbackEntry(agent.nftMint, 1, proof), 11, failedReceipt);
    const paidElsewhere = await seedFeedback(feedbackEntry(agent.nftMint, 2, proof), 12, unknownReceipt);
    const noProof = await seedFeedback(feedbackEntry(agent.nftMint, 3), 13);
    // The settled receipt's address, but another payment's terms (a receipt PDA reused after close).
    const otherAmount = await seedFeedback(feedbackEntry(agent.nftMint, 5, { ...proof, paymentAmount: 999_999n }), 14, settledReceipt);
    const otherToken = await seedFeedback(feedbackEntry(agent.nftMint, 6, { ...proof, paymentToken: testAddress(3, 9) }), 15, settledReceipt);
    // No history on the node: its give_feedback is never read.
    const [unread] = await findFeedbackPda(PROGRAM_ID, agent.nftMint, feedbackEntry(agent.nftMint, 4).reviewer, feedbackEntry(agent.nftMint, 4).createdAt);
    accounts.push({ pubkey: unread, data: encodeFeedbackEntry(feedbackEntry(agent.nftMint, 4)) });

    const clock = createManualClock();
    const rpc = createRpcLedger({ url: RPC_URL });
    const backfill = createFeedbackDetailBackfill({ history: rpc, store: createSqlFeedbackDetailUriStore(service.store.executor), programId: PROGRAM_ID, clock, logger: silentLogger, callsPerSecond: 1_000 });
    const index = createAgentIndex({ ledger: rpc, clock, programId: PROGRAM_ID, ttlMs: 30_000, logger: silentLogger, feedbackDetails: backfill });
    const payments = createAgentPayments({ stats: createSqlPaymentStats(service.store.executor, network), clock });
    const app = new Elysia().use(errorLayer(silentLogger)).use(registryRoutes({ index, categories: createCategoryCatalog(DEFAULT_CATEGORY_NAMES), payments }));
    const feedback = async (): Promise<Map<string, FeedbackItem>> => {
      const response = await app.handle(new Request(`http://registry.test/agents/${agent.nftMint}/feedback`));
      expect(response.status).toBe(200);
      return new Map(((await response.json()) as FeedbackItem[]).map((item) => [item.address, item]));
    };

    // Before the reader has the transactions, nothing is claimed either way.
    const before = await feedback();
    expect([...before.values()].some((item) => "settledHere" in item)).toBe(false);
    await backfill.idle();

    const after = await feedback();
    const settledHere = (address: Address) => after.get(address)?.["settledHere"];
    expect(settledHere(paidHere)).toBe(true);
    expect(settledHere(paidFailed)).toBe(false);
    expect(settledHere(paidElsewhere)).toBe(false);
    expect(settledHere(noProof)).toBe(false);
    expect(settledHere(otherAmount)).toBe(false);
    expect(settledHere(otherToken)).toBe(false);
    expect(after.has(unread) && "settledHere" in (after.get(unread) as FeedbackItem)).toBe(false);

    // An extra field only: every field of the x84 SDK's FeedbackEntry is there, as it was.
    const sdkFields = ["address", "reviewer", "score", "detailUri", "tag1", "tag2", "authVerified", "hasPaymentProof", "paymentAmount", "paymentToken", "revoked", "createdAt"];
    const entry = after.get(paidHere) as FeedbackItem;
    expect(Object.keys(entry).sort()).toEqual([...sdkFields, "settledHere"].sort());
    const { settledHere: _extra, ...sdkPart } = entry;
    expect(sdkPart).toEqual({ ...(before.get(paidHere) as FeedbackItem), detailUri: "https://reviews.example/10.json" });

    // The receipt is stored beside the detail URI, for replicas and restarts.
    const [row] = await service.store.executor.query("SELECT payment_receipt, payment_receipt_read FROM feedback_detail_uris WHERE address = $1", [paidHere]);
    expect(row).toEqual({ payment_receipt: settledReceipt, payment_receipt_read: true });
    await backfill.stop();
  }, 60_000);

  test("a row stored before receipts were read serves its URI at once and is read again once, for its receipt", async () => {
    const agent = agentIdentity(1);
    const [agentPda] = await findAgentPda(PROGRAM_ID, agent.nftMint);
    accounts.push({ pubkey: agentPda, data: padded(encodeAgentIdentity(agent), 600) });
    const receipt = testAddress(3, 3);
    const entry = await seedFeedback(feedbackEntry(agent.nftMint, 0, { hasPaymentProof: true, paymentAmount: 5n, paymentToken: DEVNET_USDC_MINT as Address }), 20, receipt);
    await service.store.executor.query("INSERT INTO feedback_detail_uris (address, detail_uri, signature) VALUES ($1, $2, $3)", [entry, "https://reviews.example/20.json", recordedSignature(20) as Signature]);

    const clock = createManualClock();
    const rpc = createRpcLedger({ url: RPC_URL });
    const backfill = createFeedbackDetailBackfill({ history: rpc, store: createSqlFeedbackDetailUriStore(service.store.executor), programId: PROGRAM_ID, clock, logger: silentLogger, callsPerSecond: 1_000 });
    const index = createAgentIndex({ ledger: rpc, clock, programId: PROGRAM_ID, ttlMs: 30_000, logger: silentLogger, feedbackDetails: backfill });
    await index.listFeedback(agent.nftMint, {});
    calls.length = 0;
    await backfill.idle();
    expect(backfill.detailUriOf(entry)).toBe("https://reviews.example/20.json");
    expect(backfill.paymentReceiptOf(entry)).toBe(receipt);
    // Its creation read directly from the signature the row holds: no history pages.
    expect(calls.filter((c) => c.params[0] === entry || c.params[0] === recordedSignature(20)).map((c) => c.method)).toEqual(["getTransaction"]);
    const [row] = await service.store.executor.query("SELECT payment_receipt FROM feedback_detail_uris WHERE address = $1", [entry]);
    expect(row).toEqual({ payment_receipt: receipt });
    await backfill.stop();
  }, 30_000);

  test("an old row of feedback without payment proof gets a null receipt without any RPC call; one whose stored signature is not answered falls back to its history and keeps its URI meanwhile", async () => {
    const agent = agentIdentity(2);
    const [agentPda] = await findAgentPda(PROGRAM_ID, agent.nftMint);
    accounts.push({ pubkey: agentPda, data: padded(encodeAgentIdentity(agent), 600) });
    const noProof = await seedFeedback(feedbackEntry(agent.nftMint, 1), 30);
    const receipt = testAddress(3, 4);
    const pruned = await seedFeedback(feedbackEntry(agent.nftMint, 2, { hasPaymentProof: true, paymentAmount: 5n, paymentToken: DEVNET_USDC_MINT as Address }), 31, receipt);
    const oldRow = "INSERT INTO feedback_detail_uris (address, detail_uri, signature) VALUES ($1, $2, $3)";
    await service.store.executor.query(oldRow, [noProof, "https://reviews.example/30.json", recordedSignature(30) as Signature]);
    // The row names a signature the node does not answer (say, another RPC's history was pruned).
    await service.store.executor.query(oldRow, [pruned, "https://reviews.example/31.json", recordedSignature(3_131) as Signature]);

    const clock = createManualClock();
    const rpc = createRpcLedger({ url: RPC_URL });
    const backfill = createFeedbackDetailBackfill({ history: rpc, store: createSqlFeedbackDetailUriStore(service.store.executor), programId: PROGRAM_ID, clock, logger: silentLogger, callsPerSecond: 1_000 });
    const index = createAgentIndex({ ledger: rpc, clock, programId: PROGRAM_ID, ttlMs: 30_000, logger: silentLogger, feedbackDetails: backfill });
    calls.length = 0;
    await index.listFeedback(agent.nftMint, {});
    await backfill.idle();
    const about = (address: Address, signatures: readonly string[]) => calls.filter((c) => c.params[0] === address || signatures.includes(String(c.params[0]))).map((c) => c.method);
    expect(about(noProof, [recordedSignature(30)])).toEqual([]);
    expect(backfill.paymentReceiptOf(noProof)).toBeNull();
    expect(backfill.detailUriOf(noProof)).toBe("https://reviews.example/30.json");
    const [noProofRow] = await service.store.executor.query("SELECT payment_receipt, payment_receipt_read FROM feedback_detail_uris WHERE address = $1", [noProof]);
    expect(noProofRow).toEqual({ payment_receipt: null, payment_receipt_read: true });

    expect(about(pruned, [recordedSignature(3_131), recordedSignature(31)])).toEqual(["getTransaction", "getSignaturesForAddress", "getTransaction"]);
    expect(backfill.detailUriOf(pruned)).toBe("https://reviews.example/31.json");
    expect(backfill.paymentReceiptOf(pruned)).toBe(receipt);
    await backfill.stop();
  }, 30_000);
});
