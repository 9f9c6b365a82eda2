/**
 * The whole service (buildService: embedded litesvm ledger with the sample agents, PGlite), with a
 * metadata fetcher that stands in for the public network, so POST /agents/register can build.
 */
import { createHash } from "node:crypto";
import type { MetadataFetcher } from "../../../src/application/ports/metadata-fetcher.ts";
import { type TestService, startService } from "../../settlement/support/service-harness.ts";

const DOCUMENT = new TextEncoder().encode(JSON.stringify({ name: "Weather oracle", description: "forecasts" }));

const documentFetcher: MetadataFetcher = {
  fetchMetadata: async () => ({ bytes: DOCUMENT, sha256: new Uint8Array(createHash("sha256").update(DOCUMENT).digest()), json: {} }),
};

export function startContractService(env: Readonly<Record<string, string>> = {}): Promise<TestService> {
  return startService(env, { metadataFetcher: documentFetcher });
}
