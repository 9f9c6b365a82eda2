import { type ChildProcess, spawn } from "node:child_process";
import { DENO, ROOT, denoEnv } from "./deno-gate.ts";

export type DenoMain = Readonly<{
  /** The "ready" log line; null when the process exited first. */
  ready: Readonly<Record<string, unknown>> | null;
  urls: Readonly<Record<string, string>>;
  stdout: () => string;
  stderr: () => string;
  /** Resolves with the exit code (a signal name when a signal ended it). */
  exited: Promise<number | string>;
  /** Sends `signal` to the task process, as an orchestrator would, and waits for the exit. */
  stop(signal?: NodeJS.Signals): Promise<number | string>;
  /** Kills the whole process group (the task and the main it started): test clean-up only. */
  kill(): void;
}>;

/**
 * Runs `deno task start` (deno.json) as the README says, in its own process group, and waits
 * for the "ready" log line or the exit.
 */
export async function spawnDenoMain(env: Record<string, string>, timeoutMs = 90_000): Promise<DenoMain> {
  const child: ChildProcess = spawn(DENO, ["task", "start"], { cwd: ROOT, env: denoEnv(env), stdio: ["ignore", "pipe", "pipe"], detached: true });
  let stdout = "";
  let stderr = "";
  child.stderr?.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = new Promise<number | string>((resolveExit) => child.on("close", (code, signal) => resolveExit(code ?? signal ?? "unknown")));
  const ready = await new Promise<Record<string, unknown> | null>((resolveReady) => {
    const timer = setTimeout(() => resolveReady(null), timeoutMs);
    child.stdout?.on("data", (chunk: Buffer) => {
      stdout += chunk.toString();
      const line = stdout.split("\n").find((l) => l.includes('"msg":"ready"'));
      if (line) {
        clearTimeout(timer);
        resolveReady(JSON.parse(line) as Record<string, unknown>);
      }
    });
    void exited.then(() => {
      clearTimeout(timer);
      resolveReady(null);
    });
  });
  const kill = () => {
    try {
      if (child.pid) process.kill(-child.pid, "SIGKILL");
    } catch {
      // already gone
    }
  };
  return {
    ready,
    urls: (ready?.["urls"] ?? {}) as Record<string, string>,
    stdout: () => stdout,
    stderr: () => stderr,
    exited,
    stop: async (signal = "SIGTERM") => {
      child.kill(signal);
      return exited;
    },
    kill,
  };
}
