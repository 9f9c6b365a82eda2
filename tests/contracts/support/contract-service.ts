/**
 * The whole service (buildService: embedded litesvm ledger with the sample agents, PGlite), with a
 * metadata fetcher that stands in for the public network, so POST /agents/register can build.
 */
import { createHash } from "node:crypto";
import type { MetadataFetcher } from "../../../src/application/ports/metadata-fetcher.ts";
import { EXAMPLE_ASSET, EXAMPLE_PAYER, EXAMPLE_PAY_TO, EXAMPLE_SIGNATURE } from "../../../src/http/facilitator/examples.ts";
import { type TestService, startService } from "../../settlement/support/service-harness.ts";

const DOCUMENT = new TextEncoder().encode(JSON.stringify({ name: "Weather oracle", description: "forecasts" }));

const documentFetcher: MetadataFetcher = {
  fetchMetadata: async () => ({ bytes: DOCUMENT, sha256: new Uint8Array(createHash("sha256").update(DOCUMENT).digest()), json: {} }),
};

/**
 * The service, with a settled record of the documented example payment (EXAMPLE_SIGNATURE,
 * paymentId "order-2026-0042") so the settlement status examples answer 200.
 */
export async function startContractService(env: Readonly<Record<string, string>> = {}): Promise<TestService> {
  const service = await startService(env, { metadataFetcher: documentFetcher });
  const example = {
    key: "contract-example",
    paymentId: "order-2026-0042",
    payer: EXAMPLE_PAYER,
    payTo: EXAMPLE_PAY_TO,
    asset: EXAMPLE_ASSET,
    amount: 10_000n,
    network: service.config.NETWORK,
    mode: "standard" as const,
    signature: EXAMPLE_SIGNATURE,
    wireTransaction: null,
    lastValidBlockHeight: null,
  };
  await service.store.settlements.claim(example);
  await service.store.settlements.finish(example.key, example.signature, { state: "settled" });
  return service;
}
