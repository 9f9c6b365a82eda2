import { expectedResourceOf } from "../../../domain/modes/receipt-resource.ts";
import { modeSettlementKey } from "../../../domain/settlement/mode-settlement-key.ts";
import { reject } from "../../../domain/rejection.ts";
import { checkReceiptPayment, type ReceiptModeExtensions } from "./check-receipt-payment.ts";
import { type ExtensionModePolicy, defineModePolicy } from "./extension-mode.ts";

/**
 * The modes whose payment already happened on chain and left a PaymentReceipt (atomic,
 * attestation): /settle only records it, nothing is signed or sent. They differ only in the
 * receipt's settlement_mode, which `id` names.
 */
export function receiptModePolicy(id: ReceiptModeExtensions["mode"], aliases: readonly [string, ...string[]]): ExtensionModePolicy {
  return defineModePolicy<ReceiptModeExtensions>({
    id,
    aliases,
    parse: (extensions) =>
      extensions.txSignature === undefined ? reject("MODE_INVALID", "extensions.txSignature is required") : { ...extensions, mode: id, txSignature: extensions.txSignature },
    check: (extensions, { request }, deps) =>
      checkReceiptPayment(extensions, { requirements: request.paymentRequirements, resource: expectedResourceOf(request) }, deps),
    settlementCandidate: async (verified, { request }) => {
      if (!verified.txSignature) return { ok: false, reason: "MODE_INVALID", message: "extensions.txSignature is required" };
      const { payTo, asset } = request.paymentRequirements;
      return {
        ok: true,
        candidate: {
          kind: "record",
          key: modeSettlementKey(id, verified.paymentId),
          mode: id,
          txSignature: verified.txSignature,
          receipt: verified.receiptPda ?? null,
          // SECURITY: the key already carries the paymentId (one record per mode payment). It is not
          // stored in the shared paymentId column, where a standard payment could otherwise take a
          // public on-chain receipt's id first and block the real payment from being recorded.
          paymentId: null,
          payer: verified.payer,
          payTo,
          asset,
          amount: verified.amount,
        },
      };
    },
    // SECURITY: never answered from the record before checking again. The paymentId and
    // txSignature are public on chain, so answering first would hand the payer's success to anyone
    // who copies them. The claim proof is checked again (the payer can sign a fresh one at any
    // time), and only a checked repeat is then answered from the record as a replay.
    replayKey: () => null,
    replayAuthorized: async () => false,
  });
}
