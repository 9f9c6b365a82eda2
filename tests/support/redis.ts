import Redis from "ioredis";
import { type Gate, gateOn } from "../../fixtures/gate.ts";

/** Real Redis for tests: TEST_REDIS_URL, default the local server CI starts. */
export const TEST_REDIS_URL = process.env["TEST_REDIS_URL"] ?? "redis://127.0.0.1:6379";

/** Whether the real Redis tests run (see gate.ts). */
export async function redisGate(area: string): Promise<Gate> {
  const redis = new Redis(TEST_REDIS_URL, { lazyConnect: true, maxRetriesPerRequest: 0, connectTimeout: 2000, retryStrategy: () => null });
  redis.on("error", () => undefined);
  let reason = "";
  try {
    await redis.connect();
    await redis.ping();
  } catch (error) {
    reason = error instanceof Error ? error.message : String(error);
  } finally {
    redis.disconnect();
  }
  return gateOn(area, "Redis tests", reason === "" ? null : `Redis is not reachable at ${new URL(TEST_REDIS_URL).host} (${reason})`);
}
