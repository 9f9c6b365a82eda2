import { resolve } from "node:path";
import { watchForReadyLine } from "../../support/ready-line.ts";

export const ROOT = resolve(import.meta.dir, "../../..");
export const BUN = process.execPath;

export type RunningService = Readonly<{
  urls: Readonly<Record<string, string>>;
  ready: Readonly<Record<string, unknown>>;
  process: ReturnType<typeof Bun.spawn>;
  logs: () => string;
  stop(signal?: NodeJS.Signals): Promise<number>;
}>;

/** Starts `bun src/main.ts` as a real child process and waits for its "ready" log line. */
export async function spawnService(env: Record<string, string>, timeoutMs = 30_000): Promise<RunningService> {
  const child = Bun.spawn([BUN, "src/main.ts"], {
    cwd: ROOT,
    env: { PATH: process.env["PATH"] ?? "", HOME: process.env["HOME"] ?? "", ...env },
    stdout: "pipe",
    stderr: "pipe",
  });
  const watch = watchForReadyLine(child.stdout as ReadableStream<Uint8Array>, timeoutMs);
  const ready = await watch.ready;
  const output = watch.output;
  if (!ready) {
    child.kill("SIGKILL");
    const stderr = await new Response(child.stderr as ReadableStream<Uint8Array>).text();
    throw new Error(`service did not become ready:\n${output()}\n${stderr}`);
  }
  return {
    urls: ready["urls"] as Record<string, string>,
    ready,
    process: child,
    logs: output,
    stop: async (signal = "SIGTERM") => {
      child.kill(signal);
      return child.exited;
    },
  };
}
