/**
 * The `q` lists' build alone (uri-grams.ts), as a restart runs it after serving:
 *
 *   BENCH_AGENTS=1000000 bun bench/registry-q-lists.ts
 *
 * Over BENCH_AGENTS bench URIs (`https://agents.example/<n>/agent-card.json`), runs the bigram then
 * the trigram build step by step and prints the wall and this thread's CPU time of the whole build,
 * the longest step's CPU (a slice runs steps up to its budget, so this is the floor of a slice),
 * the positions kept and the windows left without a list, and the RSS and JS heap it added, before
 * and after a full collection (the lists still held).
 */
import { heapStats } from "bun:jsc";
import { loadavg } from "node:os";
import { gramPostings } from "../src/domain/registry/uri-grams.ts";
import { threadCpuMs } from "./thread-cpu.ts";

const AGENTS = Number(process.env.BENCH_AGENTS ?? 1_000_000);
const mb = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(0)} MB`;
const texts = Array.from({ length: AGENTS }, (_, n) => `https://agents.example/${n}/agent-card.json`);
Bun.gc(true);
const rss = process.memoryUsage().rss;
const heap = heapStats().heapSize;
const load = loadavg().map((l) => l.toFixed(2)).join(" ");

const wall = performance.now();
const cpu = threadCpuMs();
let longestStep = 0;
let steps = 0;
const lists: ReadonlyMap<number, Int32Array | null>[] = [];
for (const size of [2, 3] as const) {
  const work = gramPostings(texts, size);
  for (;;) {
    const at = threadCpuMs();
    const step = work.next();
    longestStep = Math.max(longestStep, threadCpuMs() - at);
    steps++;
    if (step.done) {
      lists.push(step.value);
      break;
    }
  }
}
const wallMs = performance.now() - wall;
const cpuMs = threadCpuMs() - cpu;
const rssBuilt = process.memoryUsage().rss;
let kept = 0;
let without = 0;
for (const byKey of lists) for (const list of byKey.values()) list ? (kept += list.length) : without++;
Bun.gc(true);
console.log(`q lists over ${AGENTS} URIs, load ${load}`);
console.table({
  "build wall / thread CPU": `${wallMs.toFixed(0)} / ${cpuMs.toFixed(0)} ms`,
  "steps / longest step CPU": `${steps} / ${longestStep.toFixed(2)} ms`,
  "positions kept / windows without a list": `${kept} / ${without}`,
  "RSS added when built / after a full collection": `${mb(rssBuilt - rss)} / ${mb(process.memoryUsage().rss - rss)}`,
  "JS heap added after a full collection": mb(heapStats().heapSize - heap),
});
