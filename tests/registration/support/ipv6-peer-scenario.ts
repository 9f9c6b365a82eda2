/**
 * Run inside a private network namespace (see ipv6-peer-rate-limit.test.ts), where the loopback
 * interface also holds 2001:db8:1:2::a, 2001:db8:1:2::b and 2001:db8:1:3::a. Starts the real
 * service (`bun src/main.ts`, dual-stack HOST "::") and calls it over real sockets from each of
 * those source addresses and from 127.0.0.2, then prints one JSON line: the status of each call.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { request } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { spawnService } from "../../walkthrough/support/spawn-service.ts";

const dataDir = mkdtempSync(join(tmpdir(), "ipv6-peer-"));
const service = await spawnService({
  DATA_DIR: dataDir,
  LOG_LEVEL: "info",
  HOST: "::",
  FACILITATOR_PORT: "0",
  REGISTRY_PORT: "0",
  LOCAL_LEDGER_PORT: "0",
  REGISTER_RATE_LIMIT_PER_MINUTE: "2",
  AUTH_CHALLENGE_RATE_LIMIT_PER_MINUTE: "1",
  SEED_SAMPLE_AGENTS: "false",
});
const port = new URL(service.urls["registry"] ?? "").port;

/** POST `path` from `localAddress` to the listener at `host`; resolves with the status. */
function post(path: string, host: string, localAddress: string, body: unknown): Promise<number> {
  const text = JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const call = request(
      { host, port, path, method: "POST", localAddress, headers: { "content-type": "application/json", "content-length": Buffer.byteLength(text) } },
      (response) => {
        response.resume();
        response.on("end", () => resolve(response.statusCode ?? 0));
      },
    );
    call.on("error", reject);
    call.end(text);
  });
}

const registration = { name: "A", ownerAddress: "9xQeWvG816bUx9EPjHmaT23yvVM2ZWbrrpZb9PusVFin", metadataUri: "https://agents.example.com/a.json" };
const register = (from: string) => post("/agents/register", from.includes(":") ? "::1" : "127.0.0.1", from, registration);
const challenge = (from: string) => post("/auth/challenge", from.includes(":") ? "::1" : "127.0.0.1", from, { address: registration.ownerAddress });

try {
  const statuses = {
    // Two calls from one address of the /64, the third from another address of the same /64.
    sameNetwork: [await register("2001:db8:1:2::a"), await register("2001:db8:1:2::a"), await register("2001:db8:1:2::b")],
    otherNetwork: await register("2001:db8:1:3::a"),
    // The dual-stack listener sees 127.0.0.2 as ::ffff:127.0.0.2; it is counted as 127.0.0.2.
    ipv4: [await register("127.0.0.2"), await register("127.0.0.2"), await register("127.0.0.2")],
    challenge: [await challenge("2001:db8:1:2::a"), await challenge("2001:db8:1:2::b"), await challenge("2001:db8:1:3::a")],
  };
  console.log(JSON.stringify(statuses));
} finally {
  await service.stop();
  rmSync(dataDir, { recursive: true, force: true });
}
