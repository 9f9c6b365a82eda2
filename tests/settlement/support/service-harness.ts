/**
 * Builds the real service (`buildService`, the same composition main.ts runs) from an env
 * record, and talks to its facilitator app through `app.handle` (no socket).
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { silentLogger } from "../../../src/application/ports/logger.ts";
import { parseServiceConfig } from "../../../src/infrastructure/config/service-config.ts";
import { type Service, type ServiceAdapters, buildService } from "../../../src/composition/service.ts";

export type TestService = Service & Readonly<{ dispose(): Promise<void> }>;

export async function startService(env: Readonly<Record<string, string>> = {}, adapters: ServiceAdapters = {}): Promise<TestService> {
  const dataDir = mkdtempSync(join(tmpdir(), "settle-test-"));
  const fullEnv = { DATA_DIR: dataDir, LOG_LEVEL: "silent", ...env };
  const parsed = parseServiceConfig(fullEnv);
  if (!parsed.ok) throw new Error(`bad test config: ${parsed.errors.join("; ")}`);
  const service = await buildService(parsed.config, fullEnv, silentLogger, adapters);
  return Object.freeze({
    ...service,
    async dispose() {
      await service.close(5_000);
      rmSync(dataDir, { recursive: true, force: true });
    },
  });
}

export type JsonReply = Readonly<{ status: number; body: Record<string, unknown> }>;

type Handles = Readonly<{ handle(request: Request): Promise<Response> | Response }>;

export async function postJson(app: Handles, path: string, body: unknown): Promise<JsonReply> {
  const response = await app.handle(
    new Request(`http://facilitator.test${path}`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) }),
  );
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

export type TimedReply = JsonReply & Readonly<{ ms: number }>;

/**
 * Any request through `app.handle` (JSON body when given), with how long the answer took: for the
 * tests that bound an outage's answers. A body that is not a JSON object comes back as `{ text }`.
 */
export async function timedRequest(app: Handles, method: "GET" | "POST", path: string, body?: unknown): Promise<TimedReply> {
  const started = performance.now();
  const response = await app.handle(
    new Request(`http://pod.test${path}`, {
      method,
      ...(body === undefined ? {} : { headers: { "content-type": "application/json" }, body: JSON.stringify(body) }),
    }),
  );
  const text = await response.text();
  const parsed = text.startsWith("{") ? (JSON.parse(text) as Record<string, unknown>) : { text };
  return { status: response.status, body: parsed, ms: performance.now() - started };
}

/** The `extensions` object of a settle reply, or an empty one. */
export function extensionsOf(reply: JsonReply): Record<string, unknown> {
  const extensions = reply.body["extensions"];
  return typeof extensions === "object" && extensions !== null ? (extensions as Record<string, unknown>) : {};
}
