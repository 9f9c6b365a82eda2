import type { Signature } from "@solana/kit";
import type { Logger } from "./ports.ts";
import type { TransactionErrorJson } from "./transaction-error.ts";

/** A transaction's landing, as signatureSubscribe tells it: its slot and its error (null: it succeeded). */
export type SignatureNotice = Readonly<{ slot: bigint; err: TransactionErrorJson | null }>;

export type SignatureListener = (notice: SignatureNotice) => void;

/**
 * Who waits for which signature (signatureSubscribe). One-shot, as on a real node: a listener
 * hears one notice, when its transaction lands (succeeded or failed with its fee charged), and is
 * then forgotten. A signature that already landed is told at once (on a microtask, so the
 * subscription's own answer goes out first): a client that subscribes just after its send
 * still hears it.
 */
export type SignatureSubscriptions = Readonly<{
  /** Returns the unsubscribe function (a no-op once the notice went out). */
  subscribe(signature: Signature, listener: SignatureListener): () => void;
  /** The executor's word that `signature` landed. */
  landed(signature: Signature, notice: SignatureNotice): void;
}>;

export function createSignatureSubscriptions(logger: Logger, landedAlready: (signature: Signature) => SignatureNotice | null): SignatureSubscriptions {
  const bySignature = new Map<Signature, Set<SignatureListener>>();

  function tell(listener: SignatureListener, notice: SignatureNotice): void {
    try {
      listener(notice);
    } catch (error) {
      // A subscriber's failure must not fail the transaction that notified it.
      logger.warn("signature subscriber failed", { error: error instanceof Error ? error.message : String(error) });
    }
  }

  return Object.freeze({
    subscribe(signature: Signature, listener: SignatureListener) {
      const already = landedAlready(signature);
      if (already) {
        let open = true;
        queueMicrotask(() => {
          if (open) tell(listener, already);
        });
        return () => {
          open = false;
        };
      }
      let set = bySignature.get(signature);
      if (!set) bySignature.set(signature, (set = new Set()));
      set.add(listener);
      return () => {
        const current = bySignature.get(signature);
        if (!current?.delete(listener)) return;
        if (current.size === 0) bySignature.delete(signature);
      };
    },
    landed(signature: Signature, notice: SignatureNotice) {
      const set = bySignature.get(signature);
      if (!set) return;
      bySignature.delete(signature);
      for (const listener of set) tell(listener, notice);
    },
  });
}
