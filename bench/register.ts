/**
 * `npm run bench:register`: POST /agents/register requests per second and latency, with the config
 * authority as a local key and as a SoftHSM2 PKCS#11 key (skipped when SoftHSM2 is absent). A
 * benchmark, not a test: it prints a table and asserts nothing.
 *
 * Real pieces: the whole service (buildService: embedded litesvm ledger, PGlite, the cached
 * ProtocolConfig, the register_agent builder, the shape check, both signatures), driven through the
 * registry app in-process. The metadata document comes from an in-process fetcher, because the
 * public network is not reachable here: the figures exclude the metadata fetch.
 * Options: BENCH_REGISTRATIONS (default 1000), BENCH_CONCURRENCY (default 16).
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createHash } from "node:crypto";
import { generateKeyPairSigner } from "@solana/kit";
import { silentLogger } from "../src/application/ports/logger.ts";
import type { MetadataFetcher } from "../src/application/ports/metadata-fetcher.ts";
import { parseServiceConfig } from "../src/infrastructure/config/service-config.ts";
import { buildService } from "../src/composition/service.ts";
import { createSoftHsmToken, findSoftHsmModule, SOFTHSM_INSTALL_COMMAND } from "../fixtures/softhsm.ts";

const TOTAL = Number(process.env["BENCH_REGISTRATIONS"] ?? 1000);
const CONCURRENCY = Number(process.env["BENCH_CONCURRENCY"] ?? 16);

const document = new TextEncoder().encode(JSON.stringify({ name: "bench agent", version: "1" }));
const fetcher: MetadataFetcher = {
  fetchMetadata: async () => ({ bytes: document, sha256: new Uint8Array(createHash("sha256").update(document).digest()), json: {} }),
};

type Row = Readonly<{ signer: string; perSecond: number; p50: number; p99: number; failures: number }>;

async function measure(label: string, env: Record<string, string>): Promise<Row> {
  const dataDir = mkdtempSync(join(tmpdir(), "bench-register-"));
  const fullEnv = { DATA_DIR: dataDir, LOG_LEVEL: "silent", SEED_SAMPLE_AGENTS: "false", REGISTER_RATE_LIMIT_PER_MINUTE: "100000", ...env };
  const parsed = parseServiceConfig(fullEnv);
  if (!parsed.ok) throw new Error(parsed.errors.join("; "));
  const service = await buildService(parsed.config, fullEnv, silentLogger, { metadataFetcher: fetcher });
  const owners = await Promise.all(Array.from({ length: 32 }, () => generateKeyPairSigner()));
  const call = async (i: number) => {
    const body = { name: `Agent ${i}`, ownerAddress: owners[i % owners.length]?.address, metadataUri: `https://agents.example.com/${i}.json`, tags: ["defi"] };
    const response = await service.registryApp.handle(
      new Request("http://registry.bench/agents/register", { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) }),
    );
    await response.arrayBuffer();
    return response.status;
  };
  try {
    for (let i = 0; i < 20; i++) await call(i); // warm-up: JIT, ProtocolConfig cache, HSM sessions
    const latencies: number[] = [];
    let failures = 0;
    let next = 0;
    const started = performance.now();
    await Promise.all(
      Array.from({ length: CONCURRENCY }, async () => {
        while (next < TOTAL) {
          const i = next++;
          const t = performance.now();
          if ((await call(i)) !== 201) failures++;
          latencies.push(performance.now() - t);
        }
      }),
    );
    const seconds = (performance.now() - started) / 1000;
    latencies.sort((a, b) => a - b);
    const at = (q: number) => Number((latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))] ?? 0).toFixed(1));
    return { signer: label, perSecond: Math.round(TOTAL / seconds), p50: at(0.5), p99: at(0.99), failures };
  } finally {
    await service.close(1000);
    rmSync(dataDir, { recursive: true, force: true });
  }
}

const rows: Row[] = [await measure("local (development key)", {})];
const module = findSoftHsmModule();
if (module === null) {
  console.log(`SoftHSM2 not found; skipping the PKCS#11 row (${SOFTHSM_INSTALL_COMMAND})`);
} else {
  const token = createSoftHsmToken(module, { tokenLabel: "bench-config", pin: "1234", keys: [{ label: "config-authority", idHex: "01" }] });
  try {
    rows.push(
      await measure("pkcs11 (SoftHSM2)", {
        CONFIG_AUTHORITY_SIGNER: "pkcs11",
        CONFIG_AUTHORITY_PKCS11_MODULE: module,
        CONFIG_AUTHORITY_PKCS11_TOKEN_LABEL: "bench-config",
        CONFIG_AUTHORITY_PKCS11_KEY_LABEL: "config-authority",
        CONFIG_AUTHORITY_PKCS11_PIN: "1234",
      }),
    );
  } finally {
    token.cleanup();
  }
}
console.log(`POST /agents/register, ${TOTAL} requests, concurrency ${CONCURRENCY} (in-process; metadata fetch excluded)`);
console.table(rows);
process.exit(0);
