/** What a node pushes when a watched transaction lands: its slot, and whether it failed on chain. */
export type SignatureNotice = Readonly<{ slot: bigint; failed: boolean }>;

/**
 * Confirmations pushed by the node (Solana's `signatureSubscribe`), so a settlement learns that its
 * transaction landed without waiting for a status poll. A hint, never the only way: a watch may be
 * dropped at any time (no pubsub, a lost connection, a node that refuses) and say nothing, so
 * whoever watches keeps polling `getSignatureStatuses` too.
 */
export type SignatureWatch = Readonly<{
  /**
   * Calls `notice` at most once, when the node says `signature` reached `confirmed`. Returns the
   * function that stops watching (safe to call at any time, more than once).
   */
  watch(signature: string, notice: (notice: SignatureNotice) => void): () => void;
  /** Closes the connection; later watches say nothing. */
  close(): void;
}>;
