import { isSignatureBytes, type SignatureDictionary, type TransactionPartialSigner } from "@solana/kit";
import type { Signer } from "../../application/ports/signer.ts";
import { SignerError } from "./signer-error.ts";

/**
 * Lets any signer adapter sign kit transactions: kit hands over compiled message bytes and
 * expects one `{ [address]: signature }` per transaction. All messages go to the backend in
 * one `signMessages` call, so a batch costs one round of KMS or HSM requests.
 */
export function toKitPartialSigner(signer: Signer): TransactionPartialSigner {
  return Object.freeze({
    address: signer.address,
    async signTransactions(transactions, config): Promise<readonly SignatureDictionary[]> {
      config?.abortSignal?.throwIfAborted();
      const messages = transactions.map((transaction) => new Uint8Array(transaction.messageBytes));
      const signatures = await signer.signMessages(messages);
      config?.abortSignal?.throwIfAborted();
      if (signatures.length !== messages.length) {
        throw new SignerError("BACKEND_ERROR", `${signer.kind} signer returned ${signatures.length} signatures for ${messages.length} messages`);
      }
      return signatures.map((signature) => {
        if (!isSignatureBytes(signature)) {
          throw new SignerError("BACKEND_ERROR", `${signer.kind} signer returned a ${signature.length}-byte signature`);
        }
        return Object.freeze({ [signer.address]: signature });
      });
    },
  });
}
