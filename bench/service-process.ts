/**
 * Runs `bun src/main.ts` as a child process for the start-up and footprint benches: waits until
 * /health answers 200 and reads the child's memory from /proc/<pid>/status (Linux).
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";

export type MemoryStatus = Readonly<{ rssMb: number; hwmMb: number }>;

export type ServiceProcess = Readonly<{
  pid: number;
  /** From spawn to a 200 on /health (and on every other port asked for). */
  healthyMs: number;
  /** CPU time (user + system, every thread) the process had used when it was healthy. */
  healthyCpuMs: number;
  /** The same for its main thread only: what JavaScript did, which bounds the wall time on an idle machine. */
  healthyMainCpuMs: number;
  /** VmRSS (resident now) and VmHWM (the peak resident size since the process started). */
  memory(): MemoryStatus;
  /** SIGTERM, then waits for the exit. */
  stop(): Promise<void>;
}>;

const ROOT = join(import.meta.dir, "..");

/** A free-looking port in a range the suite's servers do not use. */
export function randomPort(): number {
  return 20000 + Math.floor(Math.random() * 20000);
}

/** A port to wait for: an app's `/health`, or the embedded ledger's JSON-RPC `getHealth`. */
export type HealthTarget = Readonly<{ port: number; kind: "app" | "ledger" }>;

/** 200 from an app's /health, or `"ok"` from the ledger's JSON-RPC getHealth. */
async function healthy(target: HealthTarget): Promise<boolean> {
  try {
    if (target.kind === "app") return (await fetch(`http://127.0.0.1:${target.port}/health`)).status === 200;
    const response = await fetch(`http://127.0.0.1:${target.port}`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "getHealth" }),
    });
    return response.status === 200 && ((await response.json()) as { result?: unknown }).result === "ok";
  } catch {
    return false; // not listening yet
  }
}

/**
 * Starts the service with exactly `env` (plus PATH and LOG_LEVEL=warn) and waits until every
 * target is healthy: `healthPort`'s /health (the facilitator's port unless ROLE=registry) and
 * each of `more` (the registry's port, the embedded ledger's JSON-RPC).
 */
export async function startService(env: Readonly<Record<string, string>>, healthPort: number, more: readonly HealthTarget[] = []): Promise<ServiceProcess> {
  const started = performance.now();
  const child = Bun.spawn([process.execPath, "src/main.ts"], {
    cwd: ROOT,
    env: { PATH: process.env["PATH"] ?? "", LOG_LEVEL: "warn", ...env },
    // Piped for its last words when it exits before it is healthy (LOG_LEVEL=warn: a few lines).
    stdout: "pipe",
    stderr: "inherit",
  });
  const stop = async (): Promise<void> => {
    child.kill("SIGTERM");
    await child.exited;
  };
  let waiting: HealthTarget[] = [{ port: healthPort, kind: "app" }, ...more];
  let healthyMs = 0;
  let healthyCpuMs = 0;
  let healthyMainCpuMs = 0;
  try {
    for (;;) {
      if (child.exitCode !== null) throw new Error(`service exited with ${child.exitCode} before it was healthy: ${(await new Response(child.stdout).text()).slice(-2000)}`);
      if (performance.now() - started > 60_000) throw new Error("not healthy within 60 s");
      // Every port is asked at once, and each is asked again only until it has answered.
      const answers = await Promise.all(waiting.map(healthy));
      waiting = waiting.filter((_, i) => !answers[i]);
      if (waiting.length === 0) {
        healthyMs = performance.now() - started;
        healthyCpuMs = processCpuMs(child.pid);
        healthyMainCpuMs = processCpuMs(child.pid, child.pid);
        break;
      }
      await Bun.sleep(10);
    }
  } catch (error) {
    await stop();
    throw error;
  }
  return Object.freeze({ pid: child.pid, healthyMs, healthyCpuMs, healthyMainCpuMs, memory: () => memoryOf(child.pid), stop });
}

/** utime + stime of the whole process (every thread), or of one thread, from /proc; USER_HZ is 100. */
export function processCpuMs(pid: number, thread?: number): number {
  const path = thread === undefined ? `/proc/${pid}/stat` : `/proc/${pid}/task/${thread}/stat`;
  const fields = (readFileSync(path, "utf8").split(") ")[1] ?? "").split(" ");
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100;
}

export function memoryOf(pid: number): MemoryStatus {
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  const kb = (field: string): number => Number(status.match(new RegExp(`^${field}:\\s+(\\d+) kB`, "m"))?.[1] ?? Number.NaN);
  return Object.freeze({ rssMb: kb("VmRSS") / 1024, hwmMb: kb("VmHWM") / 1024 });
}

export function median(samples: readonly number[]): number {
  const sorted = [...samples].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? Number.NaN;
}

/** "1.84 1.52 1.40": the 1, 5 and 15 minute load averages, printed beside every result. */
export function loadAverage(): string {
  return readFileSync("/proc/loadavg", "utf8").split(" ").slice(0, 3).join(" ");
}
