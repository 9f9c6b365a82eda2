/**
 * One error type with a stable `code` to branch on, instead of a class per failure. Payment
 * problems are never thrown (they are `Rejection` values with reason codes); these are refused
 * requests, broken dependencies and refused boots.
 *
 * Each code belongs to the layer that raises it and is declared there: a port declares its
 * failures (`LEDGER_*` in ports/ledger.ts, `STORE_UNAVAILABLE` in ports/settlement-store.ts,
 * `COUNTERS_UNAVAILABLE` in ports/window-counters.ts, `METADATA_DEADLINE` in
 * ports/metadata-fetcher.ts, the signer's in ports/signer.ts), the HTTP layer its own and the
 * one table from codes to statuses (src/http/http-error.ts). The domain knows none of them.
 */
export class CodedError<C extends string = string> extends Error {
  override readonly name: string = "CodedError";
  /** What a reader is told: the message, or a list of problems. */
  readonly detail: string | string[];
  constructor(
    readonly code: C,
    detail: string | readonly string[],
    options?: ErrorOptions,
  ) {
    super(typeof detail === "string" ? detail : detail.join("; "), options);
    this.detail = typeof detail === "string" ? detail : [...detail];
  }
}

export function isCoded<C extends string>(error: unknown, code: C): error is CodedError<C> {
  return error instanceof CodedError && error.code === code;
}
