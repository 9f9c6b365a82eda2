/**
 * The real service (`buildService`, as main.ts composes it) with the real JSON logger writing
 * into memory, so tests read both what /metrics exposes and what the logs say.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseServiceConfig } from "../../../src/infrastructure/config/service-config.ts";
import { createJsonLogger } from "../../../src/infrastructure/logging/json-logger.ts";
import { type Service, buildService } from "../../../src/composition/service.ts";

export type ObservedService = Service &
  Readonly<{
    /** Every log line so far, parsed. */
    logs(): readonly Record<string, unknown>[];
    /** Sends a request to an interface and waits for its after-response hooks (metrics, the request log line). */
    send(app: "facilitator" | "registry", path: string, init?: RequestInit): Promise<Response>;
    /** GET /metrics of the facilitator interface (both interfaces serve the one registry). */
    scrape(): Promise<string>;
    dispose(): Promise<void>;
  }>;

export async function startObservedService(env: Readonly<Record<string, string>> = {}): Promise<ObservedService> {
  const dataDir = mkdtempSync(join(tmpdir(), "observed-"));
  const fullEnv = { DATA_DIR: dataDir, SEED_SAMPLE_AGENTS: "false", ...env };
  const parsed = parseServiceConfig(fullEnv);
  if (!parsed.ok) throw new Error(`bad test config: ${parsed.errors.join("; ")}`);
  const lines: string[] = [];
  const service = await buildService(parsed.config, fullEnv, createJsonLogger("debug", (line) => lines.push(line)));
  const send = async (app: "facilitator" | "registry", path: string, init?: RequestInit) => {
    const target = app === "facilitator" ? service.facilitatorApp : service.registryApp;
    const response = await target.handle(new Request(`http://${app}.test${path}`, init));
    const copy = new Response(await response.arrayBuffer(), response);
    // afterResponse hooks run once the answer is out; let them finish.
    await Bun.sleep(5);
    return copy;
  };
  return Object.freeze({
    ...service,
    logs: () => lines.map((line) => JSON.parse(line) as Record<string, unknown>),
    send,
    scrape: async () => (await send("facilitator", "/metrics")).text(),
    async dispose() {
      await service.close(5_000);
      rmSync(dataDir, { recursive: true, force: true });
    },
  });
}

/** Names of the samples in a Prometheus exposition (`x_bucket`, `x_sum`, `x_count` for a histogram). */
export function sampleNames(exposition: string): Set<string> {
  return new Set(
    exposition
      .split("\n")
      .filter((line) => line !== "" && !line.startsWith("#"))
      .map((line) => line.split(/[{ ]/)[0] ?? ""),
  );
}

export const json = (body: unknown): RequestInit => ({ method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
