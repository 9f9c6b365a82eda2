/**
 * Runs `bun src/main.ts` as a child process for the start-up and footprint benches: waits until
 * /health answers 200 and reads the child's memory from /proc/<pid>/status (Linux).
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";

export type MemoryStatus = Readonly<{ rssMb: number; hwmMb: number }>;

export type ServiceProcess = Readonly<{
  pid: number;
  /** From spawn to the first 200 on /health. */
  healthyMs: number;
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

/**
 * Starts the service with exactly `env` (plus PATH and LOG_LEVEL=warn) and waits for /health on
 * `healthPort` (the facilitator's port unless ROLE=registry).
 */
export async function startService(env: Readonly<Record<string, string>>, healthPort: number): Promise<ServiceProcess> {
  const started = performance.now();
  const child = Bun.spawn([process.execPath, "src/main.ts"], {
    cwd: ROOT,
    env: { PATH: process.env["PATH"] ?? "", LOG_LEVEL: "warn", ...env },
    stdout: "ignore",
    stderr: "inherit",
  });
  const stop = async (): Promise<void> => {
    child.kill("SIGTERM");
    await child.exited;
  };
  try {
    for (;;) {
      if (child.exitCode !== null) throw new Error(`service exited with ${child.exitCode} before it was healthy`);
      if (performance.now() - started > 60_000) throw new Error("not healthy within 60 s");
      try {
        const response = await fetch(`http://127.0.0.1:${healthPort}/health`);
        if (response.status === 200) break;
      } catch {
        // not listening yet
      }
      await Bun.sleep(20);
    }
  } catch (error) {
    await stop();
    throw error;
  }
  const healthyMs = performance.now() - started;
  return Object.freeze({ pid: child.pid, healthyMs, memory: () => memoryOf(child.pid), stop });
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
