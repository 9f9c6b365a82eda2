import Redis from "ioredis";

/** Real Redis for tests: TEST_REDIS_URL, default the local server CI starts. */
export const TEST_REDIS_URL = process.env["TEST_REDIS_URL"] ?? "redis://127.0.0.1:6379";

/**
 * Whether the real Redis tests run. Unreachable Redis skips them with a printed reason locally
 * and fails them under CI, like the PostgreSQL gate.
 */
export async function redisGate(area: string): Promise<Readonly<{ run: boolean; failInCi: string | null }>> {
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
  if (reason === "") return { run: true, failInCi: null };
  const where = new URL(TEST_REDIS_URL).host;
  if (process.env["CI"] === "true" || process.env["CI"] === "1") {
    return { run: false, failInCi: `Redis is not reachable at ${where} (${reason}); CI requires it.` };
  }
  console.warn(`[${area}] SKIPPING Redis tests: not reachable at ${where} (${reason}). They fail instead when CI=true.`);
  return { run: false, failInCi: null };
}
