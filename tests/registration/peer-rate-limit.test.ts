/**
 * The registration limit counts the real peer address of each connection (a real `bun src/main.ts`
 * child process, real sockets from two loopback source addresses, embedded ledger, PGlite).
 * Elysia's `server` is unset when the service serves its apps through its own listener, so before
 * the listener passed peers on, every client shared one key.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { request } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type RunningService, spawnService } from "../walkthrough/support/spawn-service.ts";

const dataDir = mkdtempSync(join(tmpdir(), "peer-limit-"));
let service: RunningService;

beforeAll(async () => {
  service = await spawnService({
    DATA_DIR: dataDir,
    LOG_LEVEL: "info",
    FACILITATOR_PORT: "0",
    REGISTRY_PORT: "0",
    LOCAL_LEDGER_PORT: "0",
    REGISTER_RATE_LIMIT_PER_MINUTE: "2",
    SEED_SAMPLE_AGENTS: "false",
  });
}, 30_000);

afterAll(async () => {
  await service?.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

/** POST /agents/register from a chosen loopback source address; resolves with the status. */
function registerFrom(localAddress: string): Promise<number> {
  const url = new URL("/agents/register", service.urls["registry"]);
  const body = JSON.stringify({ name: "A", ownerAddress: "9xQeWvG816bUx9EPjHmaT23yvVM2ZWbrrpZb9PusVFin", metadataUri: "https://agents.example.com/a.json" });
  return new Promise((resolve, reject) => {
    const call = request(
      { host: url.hostname, port: url.port, path: url.pathname, method: "POST", localAddress, headers: { "content-type": "application/json", "content-length": Buffer.byteLength(body) } },
      (response) => {
        response.resume();
        response.on("end", () => resolve(response.statusCode ?? 0));
      },
    );
    call.on("error", reject);
    call.end(body);
  });
}

describe("POST /agents/register is limited per peer address (real child process, real sockets)", () => {
  test("a third call from 127.0.0.2 in a minute is 429; 127.0.0.3 still gets through", async () => {
    // The metadata host does not resolve here, so admitted calls end in a 400; only the limit answers 429.
    const first = [await registerFrom("127.0.0.2"), await registerFrom("127.0.0.2"), await registerFrom("127.0.0.2")];
    expect(first.slice(0, 2).every((status) => status !== 429)).toBe(true);
    expect(first[2]).toBe(429);
    expect(await registerFrom("127.0.0.3")).not.toBe(429);
  });
});
