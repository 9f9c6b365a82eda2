/**
 * The fee payers: the signers FEE_PAYER_* configure (parsed once, in ServiceConfig), or on the
 * embedded ledger a development key kept in DATA_DIR, funded there at each start.
 */
import { join } from "node:path";
import { systemClock } from "../application/ports/clock.ts";
import type { Logger } from "../application/ports/logger.ts";
import type { Signer } from "../application/ports/signer.ts";
import { type SignerPool, createSignerPool } from "../application/signer-pool.ts";
import type { ServiceConfig } from "../infrastructure/config/service-config.ts";
import type { LocalLedger } from "../infrastructure/ledger/local-ledger.ts";
import { instrumentSigner } from "../infrastructure/metrics/instrumented-signer.ts";
import type { PrometheusMetrics } from "../infrastructure/metrics/prometheus-metrics.ts";
import { createSigners, loadOrCreateDevKeypair } from "../infrastructure/signers/index.ts";

type Env = Readonly<Record<string, string | undefined>>;

/** Lamports the development fee payer gets on a fresh embedded ledger. */
const DEV_FEE_PAYER_LAMPORTS = 100_000_000_000n;

/** `env` is where a signer reads a secret its settings name (FEE_PAYER_PRIVATE_KEY...), when it is built. */
export async function composeFeePayers(
  config: Pick<ServiceConfig, "signers" | "DATA_DIR">,
  env: Env,
  embeddedLedger: LocalLedger | null,
  metrics: PrometheusMetrics,
  logger: Logger,
): Promise<SignerPool> {
  const signers: Signer[] = [...(await createSigners(config.signers.feePayers, { env }))];
  if (signers.length === 0 && embeddedLedger) {
    const dev = await loadOrCreateDevKeypair(join(config.DATA_DIR, "fee-payer.json"));
    signers.push(dev.signer);
    logger.info(dev.created ? "generated development fee payer" : "using development fee payer", { address: dev.signer.address });
  }
  const feePayers = createSignerPool(signers.map((signer) => instrumentSigner(signer, metrics)), { clock: systemClock });
  if (embeddedLedger) for (const address of feePayers.addresses) await embeddedLedger.airdrop(address, DEV_FEE_PAYER_LAMPORTS);
  return feePayers;
}
