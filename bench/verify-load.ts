/**
 * The load generator of the verification benchmarks, always in its own process so it never
 * shares an event loop with the server it measures. `wrk` (C, one thread) when installed: on a
 * 2-core machine a JavaScript load generator costs as much CPU as the server it drives and
 * measures itself. Otherwise a Bun child process with keep-alive fetch workers.
 *
 * Every answer is checked: a run reports how many lacked the expected text (`"isValid":true`).
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

export type LoadResult = Readonly<{
  requests: number;
  /** Answers that were not 200 with `"isValid":true` (or transport errors). */
  failures: number;
  seconds: number;
  /** Milliseconds. */
  p50: number;
  p99: number;
  generator: "wrk" | "bun";
}>;

export type LoadOptions = Readonly<{
  url: string;
  bodies: readonly string[];
  seconds: number;
  connections: number;
  /** Force the Bun generator even when wrk is installed. */
  generator?: "wrk" | "bun" | "auto";
  /** Text a good answer contains (default `"isValid":true`). */
  expect?: string;
}>;

const VALID = '"isValid":true';

export function wrkAvailable(): boolean {
  return Bun.which("wrk") !== null;
}

/** Fires `bodies` round-robin at `url` for `seconds` over `connections` keep-alive connections. */
export async function runLoad(options: LoadOptions): Promise<LoadResult> {
  const useWrk = options.generator === "wrk" || ((options.generator ?? "auto") === "auto" && wrkAvailable());
  const dir = mkdtempSync(join(tmpdir(), "verify-load-"));
  try {
    // One JSON body per line: JSON.stringify never emits a raw newline.
    const bodiesFile = join(dir, "bodies.ndjson");
    writeFileSync(bodiesFile, `${options.bodies.join("\n")}\n`);
    const expect = options.expect ?? VALID;
    return useWrk ? await runWrk(options, expect, dir, bodiesFile) : await runBunChild(options, expect, bodiesFile);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** wrk script: each connection cycles through the bodies from its own offset; done() prints JSON. */
function wrkScript(bodiesFile: string, expect: string): string {
  return `
local bodies = {}
for line in io.lines(${luaString(bodiesFile)}) do bodies[#bodies + 1] = line end
local threads = {}
function setup(thread) table.insert(threads, thread) end
local i = 0
bad = 0
wrk.method = "POST"
wrk.headers["Content-Type"] = "application/json"
function request()
  i = i % #bodies + 1
  return wrk.format(nil, nil, nil, bodies[i])
end
function response(status, headers, body)
  if status ~= 200 or not string.find(body, ${luaString(expect)}, 1, true) then
    bad = bad + 1
    if bad <= 3 then io.stderr:write("  unexpected answer: " .. status .. " " .. string.sub(body, 1, 200) .. "\\n") end
  end
end
function done(summary, latency, requests)
  local failures = 0
  for _, thread in ipairs(threads) do failures = failures + thread:get("bad") end
  local errors = summary.errors.connect + summary.errors.read + summary.errors.write + summary.errors.timeout
  io.write(string.format('WRK {"requests":%d,"failures":%d,"micros":%d,"p50":%d,"p99":%d}\\n',
    summary.requests, failures + errors, summary.duration,
    latency:percentile(50), latency:percentile(99)))
end
`;
}

/** A Lua long-bracket string: no escapes to get wrong for quotes or backslashes. */
function luaString(text: string): string {
  if (text.includes("]==]")) throw new Error("cannot quote for Lua");
  return `[==[${text}]==]`;
}

async function runWrk(options: LoadOptions, expect: string, dir: string, bodiesFile: string): Promise<LoadResult> {
  const script = join(dir, "load.lua");
  writeFileSync(script, wrkScript(bodiesFile, expect));
  const child = Bun.spawn(
    ["wrk", "-t1", `-c${options.connections}`, `-d${options.seconds}s`, "--timeout", "10s", "-s", script, options.url],
    { stdout: "pipe", stderr: "inherit" },
  );
  const out = await new Response(child.stdout).text();
  await child.exited;
  const line = out.split("\n").find((l) => l.startsWith("WRK "));
  if (!line) throw new Error(`wrk printed no summary:\n${out}`);
  const raw = JSON.parse(line.slice(4)) as { requests: number; failures: number; micros: number; p50: number; p99: number };
  return { requests: raw.requests, failures: raw.failures, seconds: raw.micros / 1e6, p50: raw.p50 / 1000, p99: raw.p99 / 1000, generator: "wrk" };
}

async function runBunChild(options: LoadOptions, expect: string, bodiesFile: string): Promise<LoadResult> {
  const child = Bun.spawn(
    [process.execPath, import.meta.path, "--load-child", options.url, bodiesFile, String(options.seconds), String(options.connections), expect],
    { stdout: "pipe", stderr: "inherit" },
  );
  const out = await new Response(child.stdout).text();
  await child.exited;
  const line = out.split("\n").find((l) => l.startsWith("LOAD "));
  if (!line) throw new Error(`load child printed no summary:\n${out}`);
  return { ...(JSON.parse(line.slice(5)) as Omit<LoadResult, "generator">), generator: "bun" };
}

/** The Bun generator's body: keep-alive fetch workers, latencies sorted at the end. */
async function loadChild(url: string, bodiesFile: string, seconds: number, connections: number, expect: string): Promise<void> {
  const bodies = (await Bun.file(bodiesFile).text()).split("\n").filter((l) => l !== "");
  const latencies: number[] = [];
  let failures = 0;
  let next = 0;
  const started = performance.now();
  const deadline = started + seconds * 1000;
  async function worker(): Promise<void> {
    while (performance.now() < deadline) {
      const body = bodies[next++ % bodies.length] ?? "";
      const t0 = performance.now();
      try {
        const response = await fetch(url, { method: "POST", headers: { "content-type": "application/json" }, body });
        const text = await response.text();
        if (response.status !== 200 || !text.includes(expect)) {
          failures++;
          if (failures <= 3) console.error(`  unexpected answer: ${response.status} ${text.slice(0, 200)}`);
        }
      } catch (error) {
        failures++;
        if (failures <= 3) console.error(`  request failed: ${String(error)}`);
      }
      latencies.push(performance.now() - t0);
    }
  }
  await Promise.all(Array.from({ length: connections }, worker));
  const elapsed = (performance.now() - started) / 1000;
  latencies.sort((a, b) => a - b);
  const result = { requests: latencies.length, failures, seconds: elapsed, p50: percentile(latencies, 0.5), p99: percentile(latencies, 0.99) };
  console.log(`LOAD ${JSON.stringify(result)}`);
}

export function percentile(sorted: readonly number[], q: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? Number.NaN;
}

if (import.meta.main && process.argv[2] === "--load-child") {
  const [, , , url = "", bodiesFile = "", seconds = "10", connections = "32", expect = VALID] = process.argv;
  await loadChild(url, bodiesFile, Number(seconds), Number(connections), expect);
}
