/**
 * Start-up A/B between checkouts (e.g. main in a `git worktree` with its own `npm ci`, and this
 * one): one first start per checkout on its own DATA_DIR, then `rounds` rounds, the order
 * alternating, of a restart on that DATA_DIR (and with --fresh a first start on a new one), each
 * until every port answers as bench/startup.ts waits for them. Prints wall time, the process's
 * CPU and its main thread's CPU until healthy (the main thread runs all the JavaScript, so on a
 * loaded machine its CPU is the steadiest stand-in for the quiet wall time). --prof DIR writes a
 * CPU profile of every start.
 *
 *   bun run bench/startup-ab.ts <rounds> <all|facilitator> <checkoutA> <checkoutB> [--fresh] [--prof DIR]
 */
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
const args = process.argv.slice(2);
const rounds = Number(args[0]);
const role = args[1]!;
const profIdx = args.indexOf("--prof");
const profDir = profIdx >= 0 ? args[profIdx + 1] : undefined;
const roots = args.slice(2).filter((a, i) => !a.startsWith("--") && i + 2 !== profIdx + 1);
const fresh = args.includes("--fresh");
const mainMs = (pid: number) => { const f = (readFileSync(`/proc/${pid}/task/${pid}/stat`, "utf8").split(") ")[1] ?? "").split(" "); return ((Number(f[11]) + Number(f[12])) * 1000) / 100; };
const cpuMs = (pid: number) => { const f = (readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1] ?? "").split(" "); return ((Number(f[11]) + Number(f[12])) * 1000) / 100; };
async function healthy(port: number, kind: "app" | "ledger"): Promise<boolean> {
  try {
    if (kind === "app") return (await fetch(`http://127.0.0.1:${port}/health`)).status === 200;
    const r = await fetch(`http://127.0.0.1:${port}`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "getHealth" }) });
    return r.status === 200 && ((await r.json()) as { result?: unknown }).result === "ok";
  } catch { return false; }
}
async function start(root: string, dataDir: string, tag: string): Promise<{ ms: number; cpu: number; main: number }> {
  for (let attempt = 0; ; attempt++) {
    try { return await startOnce(root, dataDir, tag); } catch (error) { if (attempt >= 3) throw error; console.error("retrying after", String(error)); }
  }
}
async function startOnce(root: string, dataDir: string, tag: string) {
  const port = 20000 + Math.floor(Math.random() * 20000);
  const t0 = performance.now();
  const prof = profDir ? ["--cpu-prof", `--cpu-prof-dir=${profDir}`, `--cpu-prof-name=${tag}.cpuprofile`] : [];
  const child = Bun.spawn([process.execPath, ...prof, "src/main.ts"], { cwd: root, env: { PATH: process.env["PATH"] ?? "", LOG_LEVEL: "warn", ROLE: role, DATA_DIR: dataDir, FACILITATOR_PORT: String(port), REGISTRY_PORT: String(port + 1), LOCAL_LEDGER_PORT: String(port + 2) }, stdout: "inherit", stderr: "inherit" });
  let waiting: [number, "app" | "ledger"][] = [[port, "app"], [port + 2, "ledger"], ...(role === "all" ? [[port + 1, "app"] as [number, "app"]] : [])];
  for (;;) {
    if (child.exitCode !== null) throw new Error("exited");
    const a = await Promise.all(waiting.map(([p, k]) => healthy(p, k)));
    waiting = waiting.filter((_, i) => !a[i]);
    if (waiting.length === 0) break;
    await Bun.sleep(10);
  }
  const ms = performance.now() - t0; const cpu = cpuMs(child.pid); const main = mainMs(child.pid);
  child.kill("SIGTERM"); await child.exited;
  return { ms, cpu, main };
}
const load = () => readFileSync("/proc/loadavg", "utf8").split(" ").slice(0, 3).join(" ");
const med = (xs: number[]) => { const s = [...xs].sort((a, b) => a - b); return s.length % 2 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2; };
const dirs = roots.map(() => mkdtempSync(join(tmpdir(), "su-ab-")));
const res = roots.map(() => ({ restart: [] as { ms: number; cpu: number; main: number }[], fresh: [] as { ms: number; cpu: number; main: number }[] }));
console.log(`start load ${load()}`);
for (let i = 0; i < roots.length; i++) await start(roots[i]!, dirs[i]!, `warm-${i}`);
for (let r = 0; r < rounds; r++) {
  const order = r % 2 === 0 ? roots.map((_, i) => i) : roots.map((_, i) => i).reverse();
  for (const i of order) {
    const s = await start(roots[i]!, dirs[i]!, `r${r}-${i}`);
    res[i]!.restart.push(s);
    if (fresh) { const d = mkdtempSync(join(tmpdir(), "su-ab-")); res[i]!.fresh.push(await start(roots[i]!, d, `f${r}-${i}`)); rmSync(d, { recursive: true, force: true }); }
  }
}
for (let i = 0; i < roots.length; i++) {
  for (const kind of ["restart", "fresh"] as const) {
    const xs = res[i]![kind]; if (!xs.length) continue;
    console.log(`${roots[i]} ${role} ${kind}: wall median ${med(xs.map((x) => x.ms)).toFixed(0)} (${xs.map((x) => x.ms.toFixed(0)).join(",")})  CPU median ${med(xs.map((x) => x.cpu)).toFixed(0)} (${xs.map((x) => x.cpu.toFixed(0)).join(",")})  main-thread CPU median ${med(xs.map((x) => x.main)).toFixed(0)} (${xs.map((x) => x.main.toFixed(0)).join(",")})`);
  }
}
console.log(`end load ${load()}`);
for (const d of dirs) rmSync(d, { recursive: true, force: true });
