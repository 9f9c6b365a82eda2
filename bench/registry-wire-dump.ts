/**
 * Every registry read response (status, headers, body bytes) over seeded agents, printed one per
 * line: run it on two commits and diff the outputs to show a change kept the wire byte-identical.
 *
 *   bun bench/registry-wire-dump.ts > before.txt
 */
import { Elysia } from "elysia";
import { systemClock } from "../src/application/ports/clock.ts";
import { silentLogger } from "../src/application/ports/logger.ts";
import { createCategoryCatalog, DEFAULT_CATEGORY_NAMES } from "../src/domain/registry/categories.ts";
import { APP_CONFIG } from "../src/http/app-config.ts";
import { errorLayer } from "../src/http/error-layer.ts";
import { registryCors } from "../src/http/registry/registry-cors.ts";
import { registryRoutes } from "../src/http/registry/registry-routes.ts";
import { createLocalLedger } from "../src/infrastructure/ledger/local-ledger.ts";
import { createAgentIndex } from "../src/infrastructure/registry/ledger-agent-index.ts";
import { address, programId, writeAgent } from "./registry-agents.ts";

const ledger = createLocalLedger();
for (let n = 0; n < 3_000; n++) writeAgent(ledger, n);
const index = createAgentIndex({ ledger, clock: systemClock, programId, ttlMs: 3_600_000, logger: silentLogger });
await index.ready();
const categories = createCategoryCatalog(DEFAULT_CATEGORY_NAMES);
const apps = {
  bare: new Elysia().use(errorLayer(silentLogger)).use(registryRoutes({ index, categories })),
  service: new Elysia(APP_CONFIG).use(errorLayer(silentLogger)).use(registryCors({ allowedOrigins: ["https://app.example"] })).use(registryRoutes({ index, categories })),
};
const paths = [
  "/agents", "/agents?limit=100", "/agents?limit=1", "/agents?active=true", "/agents?active=false&limit=7", "/agents?category=defi", "/agents?category=nope",
  `/agents?owner=${address(2, 42)}`, `/agents?owner=${address(2, 499)}&limit=3`, "/agents?owner=notanaddress", "/agents?q=/77", "/agents?q=zz-none", "/agents?active=true&category=trading&q=agent-card",
  "/agents?limit=0", "/agents?limit=101", "/agents?cursor=bad", "/agents?sort=payments", "/agents?minPayments=1",
  `/agents/${address(1, 1234)}`, `/agents/${address(1, 0)}`, `/agents/${address(5, 5)}`, "/agents/xyz", `/agents/${address(1, 1234)}/services`, `/agents/${address(1, 1234)}/feedback`,
  "/agents/categories",
];
for (const [name, app] of Object.entries(apps)) {
  const walked: string[] = [];
  let next: string | null = null;
  for (let page = 0; page < 4; page++) {
    const path = `/agents?limit=50${next ? `&cursor=${next}` : ""}`;
    walked.push(path);
    const body = (await (await app.handle(new Request(`http://registry.test${path}`))).json()) as { cursor: { next: string | null } };
    next = body.cursor.next;
  }
  for (const path of [...paths, ...walked]) {
    for (const origin of [null, "https://app.example"]) {
      const response = await app.handle(new Request(`http://registry.test${path}`, origin ? { headers: { origin } } : {}));
      const lines: string[] = [];
      response.headers.forEach((value, key) => lines.push(`${key}: ${value}`));
      const headers = lines.sort().join("; ");
      console.log(`${name} ${origin ?? "-"} ${path} ${response.status} [${headers}] ${await response.text()}`);
    }
  }
}
await index.close();
