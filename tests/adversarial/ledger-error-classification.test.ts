// SECURITY: a ledger refusal is classified by the ledger's structured error code, never by its
// text. The text carries program logs and a payer writes those: a Memo instruction logs its
// message, so a payment whose memo reads "already processed AlreadyProcessed" used to turn its own
// refusal into "sent" (submission matched that text), hang /settle for the whole confirmation wait
// and be resent by recovery until its blockhash expired.
//
// Real components throughout: the embedded litesvm ledger with the real SPL Token and Memo
// programs, its JSON-RPC server on Bun.serve, kit's RPC client in the JSON-RPC adapter, the whole
// service from buildService (PGlite) and the fault rig's settlement service over JSON-RPC.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import {
  appendTransactionMessageInstructions,
  type Blockhash,
  createTransactionMessage,
  getBase58Decoder,
  getBase64Encoder,
  getTransactionDecoder,
  getTransactionEncoder,
  pipe,
  type Signature,
  setTransactionMessageFeePayerSigner,
  setTransactionMessageLifetimeUsingBlockhash,
  signTransactionMessageWithSigners,
} from "@solana/kit";
import { getTransferCheckedInstruction } from "@solana-program/token";
import { type Ledger, LedgerError } from "../../src/application/ports/ledger.ts";
import { submitTransaction } from "../../src/application/settlement/submit-transaction.ts";
import { USDC_DECIMALS } from "../../src/domain/networks.ts";
import { settlementKeyOf } from "../../src/domain/payment/settlement-key.ts";
import { createLocalLedger, type LocalLedger } from "../../src/infrastructure/ledger/local-ledger.ts";
import { serveLocalLedgerRpc } from "../../src/infrastructure/ledger/local-ledger.ts";
import { createRpcLedger } from "../../src/infrastructure/ledger/rpc-ledger.ts";
import { fundWallets, USDC, type Wallets } from "../ledger/helpers.ts";
import { startFaultRig } from "../settlement/support/fault-rig.ts";
import { usdcOf } from "../../fixtures/payments.ts";
import { postJson } from "../settlement/support/service-harness.ts";
import { type Actors, computeLimit, computePrice, memoInstruction, transferInstruction } from "../../fixtures/payment-builder.ts";
import { useEmbeddedService } from "./support/embedded-service.ts";
import { type PaymentTarget, fundedActors, paymentOn } from "./support/payments.ts";

/** The attacker's memo: every spelling the old text match accepted. */
const ATTACK_MEMO = "already processed AlreadyProcessed";
/** The old classification waited out confirmation (about 60 s); a refusal answers at once. */
const PROMPT_MS = 1_000;

/** Fully signed bytes (our own fee-payer key): the memo first, so it is logged, then the transfer. */
async function memoFirstTransfer(ledger: Ledger, wallets: Wallets, amount: bigint): Promise<Uint8Array> {
  const latest = await ledger.getLatestBlockhash();
  const message = pipe(
    createTransactionMessage({ version: 0 }),
    (m) => setTransactionMessageFeePayerSigner(wallets.feePayer, m),
    (m) => setTransactionMessageLifetimeUsingBlockhash({ blockhash: latest.blockhash as Blockhash, lastValidBlockHeight: latest.lastValidBlockHeight }, m),
    (m) =>
      appendTransactionMessageInstructions(
        [
          memoInstruction(ATTACK_MEMO),
          getTransferCheckedInstruction({
            source: wallets.source,
            mint: USDC,
            destination: wallets.destination,
            authority: wallets.payer,
            amount,
            decimals: USDC_DECIMALS,
          }),
        ],
        m,
      ),
  );
  return new Uint8Array(getTransactionEncoder().encode(await signTransactionMessageWithSigners(message)));
}

const signatureOf = (wire: Uint8Array) => getBase58Decoder().decode(wire.subarray(1, 65)) as Signature;

async function refusalOf(promise: Promise<unknown>): Promise<LedgerError> {
  const error = await promise.then(() => null, (e: unknown) => e);
  if (!(error instanceof LedgerError)) throw new Error(`expected a LedgerError, got ${String(error)}`);
  return error;
}

type Subject = Readonly<{ ledger: Ledger; dev: LocalLedger; close(): Promise<void> }>;

const ADAPTERS: readonly (readonly [string, () => Subject])[] = [
  [
    "embedded litesvm ledger, called directly",
    () => {
      const dev = createLocalLedger();
      return { ledger: dev, dev, close: async () => {} };
    },
  ],
  [
    "kit JSON-RPC adapter -> the embedded ledger's JSON-RPC server (Bun.serve, random port)",
    () => {
      const dev = createLocalLedger();
      const server = serveLocalLedgerRpc(dev, { port: 0 });
      return { ledger: createRpcLedger({ url: server.url }), dev, close: () => server.stop() };
    },
  ],
];

for (const [adapter, makeSubject] of ADAPTERS) {
  describe(`SECURITY: submitTransaction classifies by the ledger's code, not its text (${adapter}, real SPL Token and Memo)`, () => {
    let subject: Subject;
    beforeAll(() => {
      subject = makeSubject();
    });
    afterAll(async () => {
      await subject.close();
    });

    test("an underfunded transfer whose memo says 'already processed AlreadyProcessed' is rejected at once, never 'sent'", async () => {
      const wallets = await fundWallets(subject.dev, 100n);
      const wire = await memoFirstTransfer(subject.ledger, wallets, 101n);

      const refusal = await refusalOf(subject.ledger.sendTransaction(wire));
      // The payer's text does reach the error's message and logs: exactly what the old match read.
      expect(refusal.message).toContain(ATTACK_MEMO);
      expect(refusal.logs.some((line) => line.includes(ATTACK_MEMO))).toBe(true);
      expect(refusal.transactionError).toEqual({ name: "InstructionError", instructionIndex: 1, detail: { Custom: 1 } });

      const started = performance.now();
      // Asked to preflight (settlement's own sends skip it: it simulated before signing).
      const outcome = await submitTransaction(subject.ledger, wire, signatureOf(wire), 3, 1, { skipPreflight: false });
      expect(performance.now() - started).toBeLessThan(PROMPT_MS);
      expect(outcome.kind).toBe("rejected");
      expect(await subject.ledger.getSignatureStatuses([signatureOf(wire)])).toEqual([null]);
      expect(await usdcOf(subject.dev, wallets.recipient.address)).toBe(0n);
    });

    test("resending identical bytes that already landed is 'sent' (the ledger's AlreadyProcessed code), and pays once", async () => {
      const wallets = await fundWallets(subject.dev, 10n);
      const wire = await memoFirstTransfer(subject.ledger, wallets, 4n);
      expect(await subject.ledger.sendTransaction(wire)).toBe(signatureOf(wire));

      const resend = await refusalOf(subject.ledger.sendTransaction(wire));
      expect(resend.kind).toBe("rejected");
      expect(resend.transactionError).toEqual({ name: "AlreadyProcessed", instructionIndex: null, detail: null });

      expect(await submitTransaction(subject.ledger, wire, signatureOf(wire), 3, 1, { skipPreflight: false })).toEqual({ kind: "sent" });
      expect(await submitTransaction(subject.ledger, wire, signatureOf(wire), 3, 1)).toEqual({ kind: "sent" });
      expect(await usdcOf(subject.dev, wallets.recipient.address)).toBe(4n);
    });
  });
}

describe("embedded ledger JSON-RPC: sendTransaction refusals carry data.err as a validator writes it (Bun.serve, fetch)", () => {
  const dev = createLocalLedger();
  const server = serveLocalLedgerRpc(dev, { port: 0 });
  afterAll(() => server.stop());

  async function send(wire: Uint8Array): Promise<{ code: number; message: string; data: { err: unknown; logs: string[] } }> {
    const base64 = btoa(String.fromCharCode(...wire));
    const response = await fetch(server.url, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "sendTransaction", params: [base64, { encoding: "base64" }] }),
    });
    const body = (await response.json()) as { error: { code: number; message: string; data: { err: unknown; logs: string[] } } };
    return body.error;
  }

  test("a failed instruction: -32002 with data.err {InstructionError:[1,{Custom:1}]}; the memo is only in data.logs", async () => {
    const wallets = await fundWallets(dev, 100n);
    const error = await send(await memoFirstTransfer(dev, wallets, 101n));
    expect(error.code).toBe(-32002);
    expect(error.data.err).toEqual({ InstructionError: [1, { Custom: 1 }] });
    expect(error.data.logs.some((line) => line.includes(ATTACK_MEMO))).toBe(true);
  });

  test("identical bytes sent again: -32002 with data.err \"AlreadyProcessed\"", async () => {
    const wallets = await fundWallets(dev, 10n);
    const wire = await memoFirstTransfer(dev, wallets, 4n);
    await dev.sendTransaction(wire);
    const error = await send(wire);
    expect(error.code).toBe(-32002);
    expect(error.message).toBe("Transaction simulation failed: This transaction has already been processed");
    expect(error.data.err).toBe("AlreadyProcessed");
  });
});

/** Enough compute units for the memo (which logs its text), not for the TransferChecked after it. */
const MEMO_ONLY_UNITS = 650;

type AttackPayment = Readonly<{ actors: Actors; body: Readonly<Record<string, unknown>>; key: string }>;

/**
 * A payment every static check and the funds check accept (the payer holds the amount, payTo's
 * token account exists), which fails in preflight all the same: its compute limit is enough for
 * the memo but not for the transfer. The memo comes first, so the failing simulation logs it.
 */
async function attackPayment(target: PaymentTarget, amount = 1_500_000n): Promise<AttackPayment> {
  const actors = await fundedActors(target.ledger, amount);
  const instructions = [computeLimit(MEMO_ONLY_UNITS), computePrice(0n), memoInstruction(ATTACK_MEMO), await transferInstruction(actors, { amount })];
  const { transaction, body } = await paymentOn(target, actors, instructions, { amount });
  const messageBytes = getTransactionDecoder().decode(getBase64Encoder().encode(transaction)).messageBytes;
  return { actors, body, key: settlementKeyOf(new Uint8Array(messageBytes)) };
}

describe("SECURITY: /settle of a refused payment with an 'already processed' memo (buildService: embedded litesvm ledger, PGlite, app.handle)", () => {
  const embedded = useEmbeddedService();

  test("answers SIMULATION_FAILED at once, before signing: no record, nothing moved, no fee", async () => {
    const payment = await attackPayment(embedded);
    const feePayerSol = embedded.ledger.getBalance(embedded.feePayer);

    const started = performance.now();
    const reply = await postJson(embedded.service.facilitatorApp, "/settle", payment.body);
    expect(performance.now() - started).toBeLessThan(5 * PROMPT_MS);

    expect(reply.status).toBe(200);
    expect(reply.body["success"]).toBe(false);
    expect(reply.body["errorReason"]).toBe("SIMULATION_FAILED");
    // Refused by the simulation before our key signed: nothing was claimed, so nothing to record.
    expect(await embedded.service.store.settlements.get(payment.key)).toBeNull();
    expect(await usdcOf(embedded.ledger, payment.actors.payer.address)).toBe(1_500_000n);
    expect(embedded.ledger.getBalance(embedded.feePayer)).toBe(feePayerSol);
  });
});

describe("SECURITY: the same attack over JSON-RPC (fault rig: kit RPC adapter through the proxy to the embedded ledger, PGlite), and recovery never resends it", () => {
  test("one simulation, no sendTransaction, no record, and a reconciliation pass resends nothing", async () => {
    const rig = await startFaultRig();
    try {
      const payment = await attackPayment(rig);

      const started = performance.now();
      const reply = await postJson(rig.app, "/settle", payment.body);
      expect(performance.now() - started).toBeLessThan(5 * PROMPT_MS);

      expect(reply.body["success"]).toBe(false);
      expect(reply.body["errorReason"]).toBe("SIMULATION_FAILED");
      expect(await rig.store.settlements.get(payment.key)).toBeNull();
      expect(rig.proxy.forwarded("simulateTransaction")).toBe(1);
      expect(rig.proxy.forwarded("sendTransaction")).toBe(0);

      const report = await rig.reconcile();
      expect(report.resent).toBe(0);
      expect(rig.proxy.forwarded("sendTransaction")).toBe(0);
    } finally {
      await rig.close();
    }
  });
});
