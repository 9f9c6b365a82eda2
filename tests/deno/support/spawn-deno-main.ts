import { type ChildProcess, spawn } from "node:child_process";
import { watchForReadyLine } from "../../support/ready-line.ts";
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
  let stderr = "";
  child.stderr?.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = new Promise<number | string>((resolveExit) => child.on("close", (code, signal) => resolveExit(code ?? signal ?? "unknown")));
  if (child.stdout === null) throw new Error("deno task start has no stdout pipe");
  const watch = watchForReadyLine(child.stdout, timeoutMs);
  const ready = await watch.ready;
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
    stdout: watch.output,
    stderr: () => stderr,
    exited,
    stop: async (signal = "SIGTERM") => {
      child.kill(signal);
      return exited;
    },
    kill,
  };
}
