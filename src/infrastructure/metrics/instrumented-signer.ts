import type { Metrics } from "../../application/ports/metrics.ts";
import type { Signer } from "../../application/ports/signer.ts";
import { timed } from "./timed.ts";

export const SIGNER_DURATION = "x402_signer_duration_seconds";

/**
 * The signer with each signing call timed by adapter (`local`, `aws-kms`, `pkcs11`) and outcome
 * (`ok`, `error`): a KMS round trip or an HSM session is where settlement latency hides. Applied
 * to each signer before the pool takes it, so the pool's health records see the same calls.
 */
export function instrumentSigner(signer: Signer, metrics: Metrics): Signer {
  return Object.freeze({
    ...signer,
    signMessages: (messages: readonly Uint8Array[]) =>
      timed(
        () => signer.signMessages(messages),
        (outcome, seconds) => metrics.observe(SIGNER_DURATION, "Signing latency, by signer adapter and outcome", { adapter: signer.kind, outcome }, seconds),
      ),
  });
}
