import { spawnSync } from "node:child_process";
import { DENO, ROOT, denoEnv } from "./deno-gate.ts";

/** Runs deno-edge-probe.ts under the real deno binary and returns the JSON it printed. */
export function runDenoEdgeProbe<T>(part: "hosts" | "uploads"): T {
  const run = spawnSync(DENO, ["run", "-A", "tests/deno/support/deno-edge-probe.ts", part], {
    cwd: ROOT,
    env: denoEnv({}),
    encoding: "utf8",
    timeout: 120_000,
  });
  if (run.status !== 0) throw new Error(`edge probe failed (${run.status}):\n${run.stdout}\n${run.stderr}`);
  return JSON.parse(run.stdout.trim().split("\n").at(-1) ?? "{}") as T;
}
