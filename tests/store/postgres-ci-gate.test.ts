import { describe, expect, test } from "bun:test";
import { unusedPort } from "../support/ports.ts";

/**
 * Runs the PostgreSQL test file in a child `bun test` against a closed local port (no
 * server) to prove the gate: with CI=true it fails loudly, without CI it skips and says why.
 */
describe("PostgreSQL test gate (child bun test, closed local port)", () => {
  test("unreachable PostgreSQL fails the suite when CI=true", async () => {
    const run = await runPostgresSuite({ CI: "true" });
    expect(run.exitCode).not.toBe(0);
    expect(run.output).toContain("CI requires it");
  });

  test("unreachable PostgreSQL skips with a printed reason when CI is not set", async () => {
    const run = await runPostgresSuite({});
    expect(run.exitCode).toBe(0);
    expect(run.output).toContain("SKIPPING PostgreSQL tests");
  });
});

async function runPostgresSuite(extraEnv: Record<string, string>): Promise<{ exitCode: number; output: string }> {
  const port = await unusedPort();
  const env: Record<string, string> = {};
  for (const [name, value] of Object.entries(process.env)) {
    if (value !== undefined && name !== "CI") env[name] = value;
  }
  Object.assign(env, extraEnv, { TEST_POSTGRES_URL: `postgres://postgres@127.0.0.1:${port}/postgres` });
  const child = Bun.spawn([process.execPath, "test", "tests/store/postgres-store.test.ts"], {
    cwd: `${import.meta.dir}/../..`,
    env,
    stdout: "pipe",
    stderr: "pipe",
  });
  const [stdout, stderr, exitCode] = await Promise.all([
    new Response(child.stdout).text(),
    new Response(child.stderr).text(),
    child.exited,
  ]);
  return { exitCode, output: `${stdout}\n${stderr}` };
}
