import { beforeEach, describe, expect, test } from "bun:test";
import { getPublicKeyAsync, signAsync, utils } from "@noble/ed25519";
import { getAddressDecoder, getU64Encoder, none, some, type Address } from "@solana/kit";
import { AccountState, findAssociatedTokenPda, getTokenEncoder, TOKEN_PROGRAM_ADDRESS } from "@solana-program/token";
import { checkDelegatedPayment, type DelegatedModeDeps, type DelegatedTerms } from "../../../src/application/payment/modes/check-delegated-payment.ts";
import type { ModeVerificationResult } from "../../../src/application/payment/modes/mode-result.ts";
import type { PaymentDeps } from "../../../src/application/payment/payment-deps.ts";
import { checkModePayment, modeDeps } from "../../modes/support/mode-deps.ts";
import { delegatedProofMessage } from "../../../src/domain/modes/delegated-proof.ts";
import { AGENT_OWNER_VERSION_OFFSET } from "../../../src/domain/modes/delegation-check.ts";
import { encodeDelegation, type Delegation } from "../../../src/domain/modes/delegation.ts";
import type { ModeExtensions } from "../../../src/domain/modes/mode-extensions.ts";
import type { ReceiptClaimFields } from "../../../src/domain/modes/receipt-claim-proof.ts";
import type { TransactionEffects } from "../../../src/application/ports/ledger.ts";
import { findAgentPda, findDelegationPda, findReceiptPda } from "../../../src/domain/modes/mode-pdas.ts";
import { createAtaDeriver } from "../../../src/domain/payment/associated-token-account.ts";
import { encodePaymentReceipt, type PaymentReceipt } from "../../../src/domain/modes/payment-receipt.ts";
import { AGENT_IDENTITY_DISCRIMINATOR } from "../../../src/domain/registry/agent-identity.ts";
import { createFakeModeLedger, type FakeModeLedger } from "../../modes/support/fake-ledger.ts";
import {
  AGENT_MINT,
  DELEGATE,
  DELEGATE_SECRET,
  NOW_MS,
  NOW_S,
  PAYER,
  PAYER_SECRET,
  PAYMENT_ID,
  PAYMENT_ID_HEX,
  PAY_TO,
  PROGRAM_ID,
  TREASURY,
  TX_SIGNATURE,
  USDC,
  base64,
  delegation,
  modeRequest,
  proofFields,
  receipt,
  receiptClaimExtensions,
  signDelegatedProof,
  testAddress,
} from "../../modes/support/mode-fixtures.ts";

const FEE_PAYER = testAddress(21);
let ledger: FakeModeLedger;
let now = NOW_MS;

function deps(overrides: Partial<PaymentDeps> = {}): PaymentDeps {
  return modeDeps(ledger, { now: () => now }, [FEE_PAYER], overrides);
}

/** The requirements' terms, as checkModePayment hands them to checkDelegatedPayment. */
const TERMS: DelegatedTerms = { payTo: PAY_TO, asset: USDC, amount: 1_000_000n };

/** For calling checkDelegatedPayment directly, with extensions the parser would not produce. */
function delegatedDeps(): DelegatedModeDeps {
  return { ledger, clock: { now: () => now }, programId: PROGRAM_ID, feePayers: [FEE_PAYER], atas: createAtaDeriver({ capacity: 4 }) };
}

function reasonOf(result: ModeVerificationResult): string | null {
  return result.ok ? null : result.reason;
}

beforeEach(() => {
  ledger = createFakeModeLedger();
  now = NOW_MS;
});

describe("checkModePayment, atomic and attestation (hand-written fake Ledger, real ed25519 claim proof)", () => {
  const atomic = { mode: "atomic", paymentId: PAYMENT_ID_HEX, txSignature: TX_SIGNATURE };
  const RESOURCE = "https://api.example.com/weather";

  /** The fixture receipt's payment as the ledger records it: 1 USDC from the payer, 0.99 to payTo, 0.01 to the treasury. */
  const HONEST_TRANSFER: TransactionEffects = {
    slot: 10n,
    err: null,
    tokenBalanceChanges: [
      { owner: PAYER, mint: USDC, delta: -1_000_000n },
      { owner: PAY_TO, mint: USDC, delta: 990_000n },
      { owner: TREASURY, mint: USDC, delta: 10_000n },
    ],
  };

  /** The receipt, a confirmed status and (unless null) the transaction's effects for TX_SIGNATURE. */
  async function seedReceipt(
    mode: "atomic" | "attestation" = "atomic",
    overrides: Partial<PaymentReceipt> = {},
    effects: TransactionEffects | null = HONEST_TRANSFER,
  ): Promise<Address> {
    const [pda] = await findReceiptPda(PROGRAM_ID, PAYMENT_ID);
    ledger.putAccount(pda, PROGRAM_ID, encodePaymentReceipt(receipt({ settlementMode: mode, ...overrides })));
    ledger.putStatus(TX_SIGNATURE, { slot: 10n, confirmationStatus: "confirmed", err: null });
    if (effects) ledger.putTransaction(TX_SIGNATURE, effects);
    return pda;
  }

  /** Atomic extensions with the payer's claim proof (over the fixture receipt's resource, now). */
  async function claimed(extra: Record<string, unknown> = {}, secret = PAYER_SECRET, claim: Partial<ReceiptClaimFields> = {}) {
    return { ...atomic, ...(await receiptClaimExtensions(secret, { resource: RESOURCE, ...claim })), ...extra };
  }

  test("accepts a confirmed transaction with a matching receipt, transfer and claim proof, and reports the receipt's payer", async () => {
    const pda = await seedReceipt();
    const result = await checkModePayment(modeRequest(await claimed({ receiptPda: pda, amount: "1000000" })), deps());
    expect(result).toEqual({ ok: true, mode: "atomic", paymentId: PAYMENT_ID_HEX, payer: PAYER, amount: 1_000_000n, txSignature: TX_SIGNATURE, receiptPda: pda });
    expect(ledger.transactionReads).toEqual([TX_SIGNATURE]);
  });

  test("attestation mode accepts an Attestation receipt and refuses an Atomic one", async () => {
    await seedReceipt("attestation");
    const request = modeRequest(await claimed({ mode: "attestation" }));
    expect((await checkModePayment(request, deps())).ok).toBe(true);
    await seedReceipt("atomic");
    expect(reasonOf(await checkModePayment(request, deps()))).toBe("MODE_RECEIPT_MISMATCH");
  });

  test("MODE_TX_NOT_FOUND when the ledger does not know the signature", async () => {
    const [pda] = await findReceiptPda(PROGRAM_ID, PAYMENT_ID);
    ledger.putAccount(pda, PROGRAM_ID, encodePaymentReceipt(receipt()));
    expect(reasonOf(await checkModePayment(modeRequest(await claimed()), deps()))).toBe("MODE_TX_NOT_FOUND");
  });

  test("refuses a transaction that failed on chain or is only processed", async () => {
    await seedReceipt();
    const request = modeRequest(await claimed());
    ledger.putStatus(TX_SIGNATURE, { slot: 10n, confirmationStatus: "confirmed", err: "InstructionError(0, Custom(1))" });
    const failed = await checkModePayment(request, deps());
    expect(failed.ok ? "" : failed.message).toContain("failed on chain");
    ledger.putStatus(TX_SIGNATURE, { slot: 10n, confirmationStatus: "processed", err: null });
    const processed = await checkModePayment(request, deps());
    expect(processed.ok ? "" : processed.message).toContain("not confirmed");
  });

  test("MODE_RECEIPT_NOT_FOUND when no receipt exists for the paymentId", async () => {
    ledger.putStatus(TX_SIGNATURE, { slot: 10n, confirmationStatus: "finalized", err: null });
    expect(reasonOf(await checkModePayment(modeRequest(await claimed()), deps()))).toBe("MODE_RECEIPT_NOT_FOUND");
  });

  test("a client-given receiptPda that is not the derived one is refused before any ledger read", async () => {
    await seedReceipt();
    const result = await checkModePayment(modeRequest(await claimed({ receiptPda: testAddress(99) })), deps());
    expect(reasonOf(result)).toBe("MODE_RECEIPT_MISMATCH");
    expect(ledger.reads).toEqual([]);
  });

  test("a receipt for another amount or payee does not pay these requirements", async () => {
    await seedReceipt();
    const request = await claimed();
    expect(reasonOf(await checkModePayment(modeRequest(request, { amount: 2_000_000n }), deps()))).toBe("AMOUNT_MISMATCH");
    expect(reasonOf(await checkModePayment(modeRequest(request, { payTo: testAddress(55) }), deps()))).toBe("RECIPIENT_MISMATCH");
  });

  test("extensions.amount must equal the requirement's amount", async () => {
    await seedReceipt();
    expect(reasonOf(await checkModePayment(modeRequest(await claimed({ amount: "1" })), deps()))).toBe("AMOUNT_MISMATCH");
  });

  test("malformed extensions are MODE_INVALID; half a proof is malformed too", async () => {
    expect(reasonOf(await checkModePayment(modeRequest({ mode: "atomic", paymentId: "abc" }), deps()))).toBe("MODE_INVALID");
    const { signature } = await receiptClaimExtensions(PAYER_SECRET);
    expect(reasonOf(await checkModePayment(modeRequest({ ...atomic, signature }), deps()))).toBe("MODE_INVALID");
  });

  describe("the claim proof (SECURITY: a receipt is public; only its payer may present it)", () => {
    test("MODE_PROOF_INVALID without a proof, before any ledger read", async () => {
      await seedReceipt();
      const result = await checkModePayment(modeRequest(atomic), deps());
      expect(reasonOf(result)).toBe("MODE_PROOF_INVALID");
      expect(result.ok ? "" : result.message).toContain("extensions.signature");
      expect(ledger.reads).toEqual([]);
      expect(ledger.transactionReads).toEqual([]);
    });

    test("MODE_PROOF_INVALID for a stranger's own signature, also naming itself as payer, and no transaction is read", async () => {
      await seedReceipt();
      const stranger = utils.randomSecretKey();
      const strangerAddress = getAddressDecoder().decode(await getPublicKeyAsync(stranger));
      expect(reasonOf(await checkModePayment(modeRequest(await claimed({}, stranger)), deps()))).toBe("MODE_PROOF_INVALID");
      // Naming itself as payer does not help: the receipt's payer is who must sign.
      expect(reasonOf(await checkModePayment(modeRequest(await claimed({ payer: strangerAddress }, stranger)), deps()))).toBe("MODE_RECEIPT_MISMATCH");
      expect(ledger.transactionReads).toEqual([]);
    });

    test("MODE_PROOF_INVALID when the payer signed another paymentId, another resource or another time", async () => {
      await seedReceipt();
      const tampered: Partial<ReceiptClaimFields>[] = [{ paymentIdHex: "00".repeat(32) }, { resource: "/weather" }];
      for (const claim of tampered) {
        expect(reasonOf(await checkModePayment(modeRequest(await claimed({}, PAYER_SECRET, claim)), deps()))).toBe("MODE_PROOF_INVALID");
      }
      const signedAt = await receiptClaimExtensions(PAYER_SECRET, { resource: RESOURCE, timestamp: NOW_S });
      const presentedAt = { ...atomic, signature: signedAt.signature, timestamp: NOW_S + 1 };
      expect(reasonOf(await checkModePayment(modeRequest(presentedAt), deps()))).toBe("MODE_PROOF_INVALID");
    });

    test("MODE_PROOF_EXPIRED for a proof 61 s old or 61 s ahead, before any ledger read; 60 s is inside the window", async () => {
      await seedReceipt();
      for (const skew of [-61, 61]) {
        const result = await checkModePayment(modeRequest(await claimed({}, PAYER_SECRET, { timestamp: NOW_S + skew })), deps());
        expect(reasonOf(result)).toBe("MODE_PROOF_EXPIRED");
      }
      expect(ledger.reads).toEqual([]);
      expect((await checkModePayment(modeRequest(await claimed({}, PAYER_SECRET, { timestamp: NOW_S - 60 })), deps())).ok).toBe(true);
    });
  });

  describe("the receipt's resource and agent", () => {
    test("paymentRequirements.resource must match the receipt's resource (MODE_RECEIPT_MISMATCH)", async () => {
      await seedReceipt();
      const request = await claimed();
      expect((await checkModePayment(modeRequest(request, { resource: RESOURCE }), deps())).ok).toBe(true);
      const other = await checkModePayment(modeRequest(request, { resource: "https://api.example.com/premium" }), deps());
      expect(reasonOf(other)).toBe("MODE_RECEIPT_MISMATCH");
      expect(other.ok ? "" : other.message).toContain("resource");
    });

    test("without requirements.resource, paymentPayload.resource.url is the expected resource", async () => {
      await seedReceipt();
      const request = modeRequest(await claimed());
      const withUrl = (url: string) => ({ ...request, paymentPayload: { ...request.paymentPayload, resource: { url } } });
      expect((await checkModePayment(withUrl(RESOURCE), deps())).ok).toBe(true);
      expect(reasonOf(await checkModePayment(withUrl("https://api.example.com/premium"), deps()))).toBe("MODE_RECEIPT_MISMATCH");
      // The requirements' resource wins over the payload's.
      const both = { ...withUrl("https://api.example.com/premium"), paymentRequirements: { ...request.paymentRequirements, resource: RESOURCE } };
      expect((await checkModePayment(both, deps())).ok).toBe(true);
    });

    test("an x84 receipt holding an endpoint path matches the pathname of an absolute expected URL, and only that", async () => {
      await seedReceipt("atomic", { resource: "/a2a" });
      const request = await claimed({}, PAYER_SECRET, { resource: "/a2a" });
      expect((await checkModePayment(modeRequest(request, { resource: "https://agent.example.com/a2a" }), deps())).ok).toBe(true);
      expect((await checkModePayment(modeRequest(request, { resource: "/a2a" }), deps())).ok).toBe(true);
      expect(reasonOf(await checkModePayment(modeRequest(request, { resource: "https://agent.example.com/a2a/admin" }), deps()))).toBe("MODE_RECEIPT_MISMATCH");
      expect(reasonOf(await checkModePayment(modeRequest(request, { resource: "a2a" }), deps()))).toBe("MODE_RECEIPT_MISMATCH");
    });

    test("no determinable resource: the receipt's resource is not compared (the proof still signs it)", async () => {
      await seedReceipt("atomic", { resource: "/anything" });
      expect((await checkModePayment(modeRequest(await claimed({}, PAYER_SECRET, { resource: "/anything" })), deps())).ok).toBe(true);
    });

    test("extra.agentMint, when given, must be the receipt's nft_mint", async () => {
      await seedReceipt();
      const request = await claimed();
      expect((await checkModePayment(modeRequest(request, { extra: { agentMint: AGENT_MINT } }), deps())).ok).toBe(true);
      const other = await checkModePayment(modeRequest(request, { extra: { agentMint: testAddress(57) } }), deps());
      expect(reasonOf(other)).toBe("MODE_RECEIPT_MISMATCH");
      expect(other.ok ? "" : other.message).toContain("nft_mint");
    });
  });

  describe("the referenced transaction's token movements", () => {
    async function withTransfer(effects: TransactionEffects | null): Promise<ModeVerificationResult> {
      await seedReceipt("atomic", {}, effects);
      return checkModePayment(modeRequest(await claimed()), deps());
    }
    const changes = (...list: [string, string, bigint][]) => list.map(([owner, mint, delta]) => ({ owner: owner as Address, mint: mint as Address, delta }));

    test("MODE_TX_NOT_FOUND when the transaction itself cannot be read at confirmed", async () => {
      expect(reasonOf(await withTransfer(null))).toBe("MODE_TX_NOT_FOUND");
    });

    test("MODE_TX_FAILED when the transaction's metadata carries an error", async () => {
      expect(reasonOf(await withTransfer({ ...HONEST_TRANSFER, err: '{"InstructionError":[0,{"Custom":1}]}' }))).toBe("MODE_TX_FAILED");
    });

    // [what the transaction did, its balance changes, the side the message names]
    const refused: [string, TransactionEffects["tokenBalanceChanges"], "from payer" | "to payTo"][] = [
      ["moved less from the payer", changes([PAYER, USDC, -500_000n], [PAY_TO, USDC, 490_000n], [TREASURY, USDC, 10_000n]), "from payer"],
      ["moved another mint", changes([PAYER, testAddress(70), -1_000_000n], [PAY_TO, testAddress(70), 990_000n]), "from payer"],
      ["paid someone else", changes([PAYER, USDC, -1_000_000n], [testAddress(71), USDC, 990_000n], [TREASURY, USDC, 10_000n]), "to payTo"],
      ["paid payTo less than amount - fee_amount", changes([PAYER, USDC, -1_000_000n], [PAY_TO, USDC, 980_000n], [TREASURY, USDC, 20_000n]), "to payTo"],
      ["paid payTo the whole amount although the receipt deducts a fee", changes([PAYER, USDC, -1_000_000n], [PAY_TO, USDC, 1_000_000n]), "to payTo"],
      ["moved nothing", [], "from payer"],
    ];
    for (const [name, tokenBalanceChanges, side] of refused) {
      test(`MODE_TRANSFER_MISMATCH when the transaction ${name}`, async () => {
        const result = await withTransfer({ slot: 10n, err: null, tokenBalanceChanges });
        expect(reasonOf(result)).toBe("MODE_TRANSFER_MISMATCH");
        expect(result.ok ? "" : result.message).toContain(side);
      });
    }

    test("a receipt without fee is paid in full to payTo", async () => {
      await seedReceipt("atomic", { feeAmount: 0n });
      ledger.putTransaction(TX_SIGNATURE, { slot: 10n, err: null, tokenBalanceChanges: changes([PAYER, USDC, -1_000_000n], [PAY_TO, USDC, 1_000_000n]) });
      expect((await checkModePayment(modeRequest(await claimed()), deps())).ok).toBe(true);
    });

    test("MODE_RECEIPT_MISMATCH for a receipt whose fee_amount exceeds its amount", async () => {
      await seedReceipt("atomic", { feeAmount: 1_000_001n });
      expect(reasonOf(await checkModePayment(modeRequest(await claimed()), deps()))).toBe("MODE_RECEIPT_MISMATCH");
    });
  });
});

async function seedTokenAccount(owner: Address, delegate: Address | null, delegatedAmount: bigint, amount = 50_000_000n): Promise<Address> {
  const [ata] = await findAssociatedTokenPda({ owner, mint: USDC, tokenProgram: TOKEN_PROGRAM_ADDRESS });
  const data = getTokenEncoder().encode({
    mint: USDC,
    owner,
    amount,
    delegate: delegate === null ? none() : some(delegate),
    state: AccountState.Initialized,
    isNative: none(),
    delegatedAmount,
    closeAuthority: none(),
  });
  ledger.putAccount(ata, TOKEN_PROGRAM_ADDRESS, new Uint8Array(data));
  return ata;
}

describe("checkModePayment, delegated client-side (real ed25519 proof by the Delegation's delegate, hand-written fake Ledger)", () => {
  async function seedDelegation(overrides: Partial<Delegation> = {}, agentOwnerVersion = 2n): Promise<Address> {
    const value = delegation(overrides);
    const [pda] = await findDelegationPda(PROGRAM_ID, value.delegator, value.delegate, value.delegationId);
    ledger.putAccount(pda, PROGRAM_ID, encodeDelegation(value));
    const [agentPda] = await findAgentPda(PROGRAM_ID, AGENT_MINT);
    const agent = new Uint8Array(200);
    agent.set(AGENT_IDENTITY_DISCRIMINATOR, 0);
    agent.set(getU64Encoder().encode(agentOwnerVersion), AGENT_OWNER_VERSION_OFFSET);
    ledger.putAccount(agentPda, PROGRAM_ID, agent);
    return pda;
  }

  /** A client-side request whose proof is signed by `signer`: the Delegation's delegate unless a test says otherwise. */
  async function clientSideRequest(delegationPda: Address, { payer = PAYER, signer = DELEGATE_SECRET, timestamp = NOW_S } = {}) {
    const signature = base64(await signDelegatedProof(signer, proofFields(payer, { timestamp })));
    return modeRequest({ mode: "delegated", paymentId: PAYMENT_ID_HEX, delegationPda, payer, signature, timestamp });
  }

  test("accepts a valid Delegation, a proof by its delegate and an SPL allowance to our fee payer", async () => {
    const pda = await seedDelegation();
    const source = await seedTokenAccount(PAYER, FEE_PAYER, 1_000_000n);
    const result = await checkModePayment(await clientSideRequest(pda), deps({ feePayers: () => [FEE_PAYER] }));
    expect(result).toEqual({
      ok: true,
      mode: "delegated",
      paymentId: PAYMENT_ID_HEX,
      payer: PAYER,
      amount: 1_000_000n,
      delegated: {
        sourceTokenAccount: source,
        owner: PAYER,
        delegateAuthority: FEE_PAYER,
        authorisation: "client",
        delegationPda: pda,
        // The fixture's max_spend_total 20 USDC minus spent_total 4; uses_remaining 0 is unlimited.
        budget: { remaining: 16_000_000n, usesRemaining: null },
      },
    });
  });

  test("checkDelegatedPayment: without extensions.payer the payer defaults to the delegator, and the proof names it", async () => {
    const pda = await seedDelegation();
    const source = await seedTokenAccount(PAYER, FEE_PAYER, 1_000_000n);
    const extensions: ModeExtensions = {
      mode: "delegated",
      paymentId: PAYMENT_ID,
      paymentIdHex: PAYMENT_ID_HEX,
      delegationPda: pda,
      signature: await signDelegatedProof(DELEGATE_SECRET, proofFields(PAYER)),
      timestamp: NOW_S,
    };
    const result = await checkDelegatedPayment(extensions, TERMS, delegatedDeps());
    expect(result).toMatchObject({ ok: true, payer: PAYER, delegated: { sourceTokenAccount: source, authorisation: "client", delegationPda: pda } });
    // A proof over another payer than the delegator does not stand in for the default.
    const otherPayer = { ...extensions, signature: await signDelegatedProof(DELEGATE_SECRET, proofFields(testAddress(66))) };
    expect(reasonOf(await checkDelegatedPayment(otherPayer, TERMS, delegatedDeps()))).toBe("DELEGATION_PROOF_INVALID");
  });

  test("DELEGATION_PROOF_INVALID without a proof, before any ledger read", async () => {
    const pda = await seedDelegation();
    await seedTokenAccount(PAYER, FEE_PAYER, 1_000_000n);
    const unsigned = modeRequest({ mode: "delegated", paymentId: PAYMENT_ID_HEX, delegationPda: pda, payer: PAYER });
    expect(reasonOf(await checkModePayment(unsigned, deps()))).toBe("DELEGATION_PROOF_INVALID");
    expect(ledger.reads).toEqual([]);
    // Everything else about the request is valid: adding the delegate's proof is what makes it pass.
    expect((await checkModePayment(await clientSideRequest(pda), deps())).ok).toBe(true);
  });

  test("DELEGATION_PROOF_INVALID when the payer (the delegator) signs instead of the Delegation's delegate", async () => {
    const payerSecret = utils.randomSecretKey();
    const payer = getAddressDecoder().decode(await getPublicKeyAsync(payerSecret));
    const pda = await seedDelegation({ delegator: payer });
    await seedTokenAccount(payer, FEE_PAYER, 1_000_000n);
    const byPayer = await checkModePayment(await clientSideRequest(pda, { payer, signer: payerSecret }), deps());
    expect(reasonOf(byPayer)).toBe("DELEGATION_PROOF_INVALID");
    expect(byPayer.ok ? "" : byPayer.message).toContain(DELEGATE);
    const byOtherKey = await checkModePayment(await clientSideRequest(pda, { payer, signer: utils.randomSecretKey() }), deps());
    expect(reasonOf(byOtherKey)).toBe("DELEGATION_PROOF_INVALID");
    expect((await checkModePayment(await clientSideRequest(pda, { payer }), deps())).ok).toBe(true);
  });

  test("DELEGATION_PROOF_EXPIRED for a delegate's proof 61 s old", async () => {
    const pda = await seedDelegation();
    await seedTokenAccount(PAYER, FEE_PAYER, 1_000_000n);
    const stale = await clientSideRequest(pda, { timestamp: NOW_S - 61 });
    expect(reasonOf(await checkModePayment(stale, deps()))).toBe("DELEGATION_PROOF_EXPIRED");
  });

  test("DELEGATION_PROOF_INVALID when the delegate's proof was for another payee", async () => {
    const pda = await seedDelegation();
    await seedTokenAccount(PAYER, FEE_PAYER, 1_000_000n);
    const request = await clientSideRequest(pda);
    // The payer accepted these other requirements; its proof was for the original ones.
    const other = { ...request.paymentRequirements, payTo: testAddress(44) };
    const otherPayee = { ...request, paymentPayload: { ...request.paymentPayload, accepted: other }, paymentRequirements: other };
    expect(reasonOf(await checkModePayment(otherPayee, deps()))).toBe("DELEGATION_PROOF_INVALID");
  });

  test("DELEGATION_INVALID for a missing delegation, or one copied to an address that is not its PDA", async () => {
    await seedTokenAccount(PAYER, FEE_PAYER, 1_000_000n);
    expect(reasonOf(await checkModePayment(await clientSideRequest(testAddress(77)), deps()))).toBe("DELEGATION_INVALID");
    ledger.putAccount(testAddress(78), PROGRAM_ID, encodeDelegation(delegation()));
    const copied = await checkModePayment(await clientSideRequest(testAddress(78)), deps());
    expect(copied.ok ? "" : copied.message).toContain("not the PDA");
  });

  test("DELEGATION_INVALID once the agent changed owners (owner_version bumped)", async () => {
    const pda = await seedDelegation({}, 3n);
    await seedTokenAccount(PAYER, FEE_PAYER, 1_000_000n);
    expect(reasonOf(await checkModePayment(await clientSideRequest(pda), deps()))).toBe("DELEGATION_INVALID");
  });

  test("DELEGATION_EXPIRED by the injected clock", async () => {
    const pda = await seedDelegation({ expiresAt: BigInt(NOW_S + 10) });
    await seedTokenAccount(PAYER, FEE_PAYER, 1_000_000n);
    const request = await clientSideRequest(pda);
    expect((await checkModePayment(request, deps())).ok).toBe(true);
    // 10 s later the proof is still inside its 60 s window; the Delegation is not.
    now = NOW_MS + 10_000;
    expect(reasonOf(await checkModePayment(request, deps()))).toBe("DELEGATION_EXPIRED");
  });

  test("DELEGATION_BUDGET_EXCEEDED from the Delegation's total, or from the SPL allowance", async () => {
    const tight = await seedDelegation({ spentTotal: 19_500_000n });
    await seedTokenAccount(PAYER, FEE_PAYER, 1_000_000n);
    expect(reasonOf(await checkModePayment(await clientSideRequest(tight), deps()))).toBe("DELEGATION_BUDGET_EXCEEDED");
    const roomy = await seedDelegation();
    await seedTokenAccount(PAYER, FEE_PAYER, 999_999n);
    expect(reasonOf(await checkModePayment(await clientSideRequest(roomy), deps()))).toBe("DELEGATION_BUDGET_EXCEEDED");
  });

  test("DELEGATION_INVALID when the payer named is not the delegator", async () => {
    const pda = await seedDelegation();
    await seedTokenAccount(testAddress(66), FEE_PAYER, 1_000_000n);
    expect(reasonOf(await checkModePayment(await clientSideRequest(pda, { payer: testAddress(66) }), deps()))).toBe("DELEGATION_INVALID");
  });
});

describe("checkModePayment, delegated server-side (real ed25519 proof, hand-written fake Ledger)", () => {
  async function signedRequest(overrides: Record<string, unknown> = {}, timestamp = NOW_S) {
    const secret = utils.randomSecretKey();
    const payer = getAddressDecoder().decode(await getPublicKeyAsync(secret));
    const message = delegatedProofMessage({ paymentIdHex: PAYMENT_ID_HEX, payer, payTo: PAY_TO, asset: USDC, amount: 1_000_000n, timestamp });
    const signature = btoa(String.fromCharCode(...(await signAsync(message, secret))));
    return { payer, request: modeRequest({ mode: "delegated", paymentId: PAYMENT_ID_HEX, payer, signature, timestamp, ...overrides }) };
  }

  test("accepts a fresh proof by the payer with an SPL allowance to our fee payer", async () => {
    const { payer, request } = await signedRequest({ delegate: FEE_PAYER });
    const source = await seedTokenAccount(payer, FEE_PAYER, 3_000_000n);
    const result = await checkModePayment(request, deps());
    expect(result).toEqual({
      ok: true,
      mode: "delegated",
      paymentId: PAYMENT_ID_HEX,
      payer,
      amount: 1_000_000n,
      delegated: { sourceTokenAccount: source, owner: payer, delegateAuthority: FEE_PAYER, authorisation: "server" },
    });
  });

  test("DELEGATION_PROOF_EXPIRED 61 s later; DELEGATION_PROOF_INVALID for other requirements", async () => {
    const { payer, request } = await signedRequest();
    await seedTokenAccount(payer, FEE_PAYER, 3_000_000n);
    now = NOW_MS + 61_000;
    expect(reasonOf(await checkModePayment(request, deps()))).toBe("DELEGATION_PROOF_EXPIRED");
    now = NOW_MS;
    // The payer accepted these other requirements; its proof was for the original ones.
    const other = { ...request.paymentRequirements, payTo: testAddress(44) };
    const otherPayee = { ...request, paymentPayload: { ...request.paymentPayload, accepted: other }, paymentRequirements: other };
    expect(reasonOf(await checkModePayment(otherPayee, deps()))).toBe("DELEGATION_PROOF_INVALID");
  });

  test("DELEGATION_INVALID when the allowance belongs to a key that is not our fee payer", async () => {
    const { payer, request } = await signedRequest();
    await seedTokenAccount(payer, testAddress(45), 3_000_000n);
    expect(reasonOf(await checkModePayment(request, deps()))).toBe("DELEGATION_INVALID");
  });

  test("checkDelegatedPayment: DELEGATION_PROOF_INVALID for a payer without a proof, before any ledger read", async () => {
    await seedTokenAccount(PAYER, FEE_PAYER, 3_000_000n);
    const unsigned: ModeExtensions = { mode: "delegated", paymentId: PAYMENT_ID, paymentIdHex: PAYMENT_ID_HEX, payer: PAYER, delegate: FEE_PAYER };
    expect(reasonOf(await checkDelegatedPayment(unsigned, TERMS, delegatedDeps()))).toBe("DELEGATION_PROOF_INVALID");
    expect(ledger.reads).toEqual([]);
    // The public entry refuses it too (its parser answers first, see tests/unit/modes/mode-extensions.test.ts).
    const viaRequest = await checkModePayment(modeRequest({ mode: "delegated", paymentId: PAYMENT_ID_HEX, payer: PAYER }), deps());
    expect(viaRequest.ok).toBe(false);
  });

  test("DELEGATION_INVALID when extensions.delegate is not the SPL delegate", async () => {
    const { payer, request } = await signedRequest({ delegate: testAddress(46) });
    await seedTokenAccount(payer, FEE_PAYER, 3_000_000n);
    expect(reasonOf(await checkModePayment(request, deps()))).toBe("DELEGATION_INVALID");
  });
});
