import type { Address } from "@solana/kit";
import { checkDelegatedProof } from "../../../domain/modes/delegated-proof.ts";
import {
  checkDelegation,
  checkDelegationAddress,
  decodeDelegationAccount,
  readAgentOwnerVersion,
} from "../../../domain/modes/delegation-check.ts";
import type { Delegation } from "../../../domain/modes/delegation.ts";
import { findAgentPda, findDelegationPda } from "../../../domain/modes/mode-pdas.ts";
import type { ModeExtensions } from "../../../domain/modes/mode-extensions.ts";
import { checkTokenDelegate } from "../../../domain/modes/token-delegate-check.ts";
import type { AtaDeriver } from "../../../domain/payment/associated-token-account.ts";
import { reject, type Rejection } from "../../../domain/rejection.ts";
import type { Clock } from "../../ports/clock.ts";
import type { Ledger } from "../../ports/ledger.ts";
import { isRejection, refused } from "../payment-refusal.ts";
import type { DelegationBudget, ModeVerificationResult } from "./mode-result.ts";
import { readTokenAccount } from "../token-accounts.ts";

export type DelegatedModeDeps = Readonly<{
  ledger: Ledger;
  clock: Clock;
  programId: Address;
  feePayers: readonly Address[];
  atas: AtaDeriver;
}>;

/** The request's terms, validated as addresses by the caller. */
export type DelegatedTerms = Readonly<{ payTo: Address; asset: Address; amount: bigint }>;

/**
 * Client-side authorisation: the Delegation at `delegationPda`, checked as the program would
 * (see delegation-check.ts), including the agent's current owner_version.
 */
async function checkDelegationAt(
  delegationPda: Address,
  payer: Address | undefined,
  extensions: ModeExtensions,
  terms: DelegatedTerms,
  deps: DelegatedModeDeps,
): Promise<Delegation | Rejection> {
  const account = await deps.ledger.getAccount(delegationPda);
  if (account === null) return reject("DELEGATION_INVALID", `no Delegation account at ${delegationPda}`);
  const delegation = decodeDelegationAccount(account, deps.programId);
  if (isRejection(delegation)) return delegation;
  const [derived] = await findDelegationPda(deps.programId, delegation.delegator, delegation.delegate, delegation.delegationId);
  const addressProblem = checkDelegationAddress(delegationPda, derived);
  if (addressProblem) return addressProblem;
  const [agentPda] = await findAgentPda(deps.programId, delegation.nftMint);
  const ownerVersion = readAgentOwnerVersion(await deps.ledger.getAccount(agentPda), deps.programId);
  if (typeof ownerVersion !== "bigint") return ownerVersion;
  const problem = checkDelegation(delegation, {
    nowSeconds: BigInt(Math.floor(deps.clock.now() / 1000)),
    agentOwnerVersion: ownerVersion,
    amount: terms.amount,
    asset: terms.asset,
    payer: payer ?? delegation.delegator,
    ...(extensions.delegate ? { delegate: extensions.delegate } : {}),
  });
  return problem ?? delegation;
}

/**
 * Delegated mode. Every delegated payment carries a signed proof (extensions.signature and
 * timestamp over the canonical message). Server-side, the payer signs it. Client-side
 * (`delegationPda` given), the Delegation's delegate signs it, and the on-chain Delegation
 * is checked as the program would. Either way the payer's token account must name one of our
 * fee payers as SPL delegate for at least the amount, because settlement moves the tokens with
 * that allowance.
 *
 * SECURITY: without the proof, anyone who learned a payer's Delegation and allowance could have
 * the facilitator spend that allowance to any payTo. The proof binds payTo, asset, amount and a
 * single-use paymentId to a key the Delegation (or the payer) authorises.
 */
export async function checkDelegatedPayment(
  extensions: ModeExtensions,
  terms: DelegatedTerms,
  deps: DelegatedModeDeps,
): Promise<ModeVerificationResult> {
  let payer = extensions.payer;
  if (extensions.signature === undefined || extensions.timestamp === undefined) {
    return refused(
      reject("DELEGATION_PROOF_INVALID", "delegated payments need a signed proof: extensions.signature and extensions.timestamp"),
      payer,
    );
  }

  let proofSigner = payer;
  let budget: DelegationBudget | undefined;
  if (extensions.delegationPda !== undefined) {
    const delegation = await checkDelegationAt(extensions.delegationPda, payer, extensions, terms, deps);
    if (isRejection(delegation)) return refused(delegation, payer);
    payer ??= delegation.delegator;
    proofSigner = delegation.delegate;
    budget = budgetOf(delegation);
  }
  if (payer === undefined || proofSigner === undefined) {
    return refused(reject("MODE_INVALID", "delegated mode needs extensions.payer or extensions.delegationPda"));
  }
  const proofProblem = await checkDelegatedProof(
    { paymentIdHex: extensions.paymentIdHex, payer, payTo: terms.payTo, asset: terms.asset, amount: terms.amount, timestamp: extensions.timestamp },
    extensions.signature,
    deps.clock.now(),
    proofSigner,
  );
  if (proofProblem) return refused(proofProblem, payer);

  const source = await deps.atas.derive(payer, terms.asset);
  const grant = checkTokenDelegate(await readTokenAccount(deps.ledger, source), {
    payer,
    asset: terms.asset,
    amount: terms.amount,
    feePayers: deps.feePayers,
  });
  if (isRejection(grant)) return refused(grant, payer);
  // Without a Delegation, extensions.delegate can only name the SPL delegate that will sign.
  if (extensions.delegationPda === undefined && extensions.delegate !== undefined && extensions.delegate !== grant.delegateAuthority) {
    return refused(reject("DELEGATION_INVALID", `extensions.delegate ${extensions.delegate} is not the SPL delegate of ${source}`), payer);
  }

  return Object.freeze({
    ok: true,
    mode: "delegated",
    paymentId: extensions.paymentIdHex,
    payer,
    amount: terms.amount,
    delegated: Object.freeze({
      ...grant,
      authorisation: extensions.delegationPda !== undefined ? "client" : "server",
      ...(extensions.delegationPda ? { delegationPda: extensions.delegationPda } : {}),
      ...(budget ? { budget } : {}),
    }),
  });
}

/**
 * What the Delegation still allows as the ledger records it (0 means "no limit" in the IDL).
 * Settlement charges our own transfers against it in the store, because SPL delegate transfers
 * never update the Delegation's spent_total.
 */
function budgetOf(delegation: Delegation): DelegationBudget {
  const remaining = delegation.maxSpendTotal === 0n ? null : delegation.maxSpendTotal - delegation.spentTotal;
  return { remaining: remaining !== null && remaining < 0n ? 0n : remaining, usesRemaining: delegation.usesRemaining === 0n ? null : delegation.usesRemaining };
}
