import type { Address } from "@solana/kit";
import { verifyDelegatedProofSignature } from "../../../domain/modes/delegated-proof.ts";
import { decodeDelegationAccount } from "../../../domain/modes/delegation-check.ts";
import type { ModeExtensions } from "../../../domain/modes/mode-extensions.ts";
import type { Ledger } from "../../ports/ledger.ts";
import type { SettlementRecord } from "../../ports/settlement-store.ts";

type ReplayDeps = Readonly<{ ledger: Ledger; programId: Address }>;

/**
 * SECURITY: a settled delegated payment is answered from its record without the proof window or
 * the allowance (both are spent once paid). Its paymentId is public (the memo of our transfer),
 * and so are payer, payTo and amount; without this a stranger who copied them got `success: true`
 * for someone else's payment. The replay is answered only when the request carries a proof whose
 * signature verifies for the recorded terms, by the payer (server-side) or by the Delegation's
 * delegate (client-side). The window is not checked: the honest client retrying later sends its
 * original proof.
 */
export async function isDelegatedReplayAuthorized(extensions: ModeExtensions, record: SettlementRecord, deps: ReplayDeps): Promise<boolean> {
  if (extensions.signature === undefined || extensions.timestamp === undefined) return false;
  const signer = extensions.delegationPda ? await delegateOf(deps, extensions.delegationPda) : (record.payer as Address);
  if (signer === null) return false;
  const fields = {
    paymentIdHex: extensions.paymentIdHex,
    payer: record.payer as Address,
    payTo: record.payTo,
    asset: record.asset,
    amount: record.amount,
    timestamp: extensions.timestamp,
  };
  return (await verifyDelegatedProofSignature(fields, extensions.signature, signer)) === null;
}

async function delegateOf(deps: ReplayDeps, delegationPda: Address): Promise<Address | null> {
  const account = await deps.ledger.getAccount(delegationPda);
  if (account === null) return null;
  const delegation = decodeDelegationAccount(account, deps.programId);
  return "reason" in delegation ? null : delegation.delegate;
}
