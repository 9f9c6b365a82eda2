import type { LiteSVM } from "litesvm";
import type { LiteSvm } from "litesvm/dist/internal.js";

/**
 * The native litesvm object under the `LiteSVM` wrapper, which takes raw key and wire bytes.
 * The wrapper converts every address through kit's base58 (and re-encodes whole
 * transactions) on each call; on the transaction path that costs more than executing the
 * transaction. Callers here already hold the canonical bytes, so they skip it.
 */
export type RawLiteSvm = LiteSvm;

const USED_METHODS = ["getAccount", "getBalance", "getTransaction", "sendLegacyTransaction", "sendVersionedTransaction", "simulateLegacyTransaction", "simulateVersionedTransaction"] as const;

function isRawLiteSvm(value: unknown): value is LiteSvm {
  if (typeof value !== "object" || value === null) return false;
  return USED_METHODS.every((name) => typeof Reflect.get(value, name) === "function");
}

/** The wrapper's native instance; fails at boot, not mid-transaction, if litesvm changes its layout. */
export function rawLiteSvm(svm: LiteSVM): RawLiteSvm {
  // `inner` is private in litesvm 1.4.1's typings (typed `any`); element access reaches it.
  const inner: unknown = svm["inner"];
  if (!isRawLiteSvm(inner)) throw new Error("litesvm: unexpected wrapper layout (no native instance)");
  return inner;
}
