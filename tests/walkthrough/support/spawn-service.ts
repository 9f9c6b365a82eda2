import { resolve } from "node:path";

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
  let output = "";
  const reader = (child.stdout as ReadableStream<Uint8Array>).getReader();
  const deadline = Date.now() + timeoutMs;
  let ready: Record<string, unknown> | null = null;
  while (!ready && Date.now() < deadline) {
    const { value, done } = await reader.read();
    if (done) break;
    output += new TextDecoder().decode(value);
    for (const line of output.split("\n")) {
      if (line.includes('"msg":"ready"')) ready = JSON.parse(line) as Record<string, unknown>;
    }
  }
  // Keep draining so the child never blocks on a full pipe.
  void (async () => {
    for (;;) {
      const { value, done } = await reader.read().catch(() => ({ value: undefined, done: true }));
      if (done) return;
      output += new TextDecoder().decode(value);
    }
  })();
  if (!ready) {
    child.kill("SIGKILL");
    const stderr = await new Response(child.stderr as ReadableStream<Uint8Array>).text();
    throw new Error(`service did not become ready:\n${output}\n${stderr}`);
  }
  return {
    urls: ready["urls"] as Record<string, string>,
    ready,
    process: child,
    logs: () => output,
    stop: async (signal = "SIGTERM") => {
      child.kill(signal);
      return child.exited;
    },
  };
}
