/**
 * A Redis server of a test's own (`redis-server` as a child process on a free loopback port, no
 * persistence), so a test can stop it (SIGTERM, SIGKILL) and start it again on the same port
 * without touching the shared Redis other tests use.
 */
import { type Subprocess, spawn, spawnSync } from "bun";
import { createConnection } from "node:net";
import { type Gate, gateOn } from "../../fixtures/gate.ts";
import { unusedPort } from "./ports.ts";

export type OwnRedis = Readonly<{
  url: string;
  port: number;
  /** Ends the server with `signal` and waits for the process to exit. */
  stop(signal: "SIGTERM" | "SIGKILL"): Promise<void>;
  /** Starts it again on the same port (empty: nothing is persisted). */
  start(): Promise<void>;
  dispose(): Promise<void>;
}>;

/** Whether `redis-server` can be run here (see gate.ts). */
export function redisServerGate(area: string): Gate {
  const found = spawnSync(["redis-server", "--version"], { stdout: "ignore", stderr: "ignore" });
  return gateOn(area, "tests with a Redis server of their own", found.exitCode === 0 ? null : "redis-server is not installed");
}

export async function startOwnRedis(): Promise<OwnRedis> {
  const port = await unusedPort();
  let child: Subprocess | null = null;

  async function start(): Promise<void> {
    if (child) return;
    child = spawn(["redis-server", "--port", String(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no", "--protected-mode", "no"], {
      stdout: "ignore",
      stderr: "ignore",
    });
    await waitUntilAccepting(port, 5_000);
  }

  async function stop(signal: "SIGTERM" | "SIGKILL"): Promise<void> {
    const running = child;
    if (!running) return;
    child = null;
    running.kill(signal);
    await running.exited;
  }

  await start();
  return Object.freeze({ url: `redis://127.0.0.1:${port}`, port, stop, start, dispose: () => stop("SIGKILL") });
}

async function waitUntilAccepting(port: number, boundMs: number): Promise<void> {
  const deadline = Date.now() + boundMs;
  while (Date.now() < deadline) {
    const accepted = await new Promise<boolean>((resolve) => {
      const socket = createConnection({ host: "127.0.0.1", port }, () => {
        socket.destroy();
        resolve(true);
      });
      socket.on("error", () => resolve(false));
    });
    if (accepted) return;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  throw new Error(`redis-server did not accept connections on ${port} within ${boundMs} ms`);
}
