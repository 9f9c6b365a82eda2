/**
 * Benchmark (not a test): what one Bazaar declaration costs the facilitator after a settlement,
 * read with @x402/extensions' validators through the reader the service uses. `first` is a
 * declaration never seen (the package builds a new Ajv per validation); `repeat` is the same
 * declaration again (the verdict cache); `locate` is what a /verify refresh costs (no schema check).
 *
 * For each case, per declaration: CPU of the whole process (every thread: process.cpuUsage), the
 * time the call held the event loop before returning (`on the event loop`; `locate` is synchronous
 * and not timed so), the event loop's longest stall while the case ran (a 1 ms timer's largest lateness; what a request
 * arriving then would wait) and wall time. Rounds alternate the cases so machine noise hits each
 * alike; prints the median and spread (min..max) of each round's figure, and the load average.
 *
 *   npx bun bench/discovery-declarations.ts [--rounds 7] [--per-round 20]
 */
import { loadavg } from "node:os";
import { declareDiscoveryExtension } from "@x402/extensions/bazaar";
import { createBazaarDeclarationReader } from "../src/infrastructure/discovery/bazaar-declarations.ts";

function flag(name: string, fallback: number): number {
  const at = process.argv.indexOf(`--${name}`);
  return at === -1 ? fallback : Number(process.argv[at + 1]);
}

const rounds = flag("rounds", 7);
const perRound = flag("per-round", 20);
const requirements = { scheme: "exact", network: "solana:EtWTRABZaYq6iMfeYKouRu166VU2xqa1", asset: "4zMMC9srt5Ri5X14GAgXhaHii3GnPAEERYPJgZJDncDU", amount: "10000", payTo: "5uX8qJt8bX3zq2m9m5fZ4Bq9oWj3xZc8tLkQ1yN2pVxA" };
let distinct = 0;

function bodyOf(city: string) {
  const declared = declareDiscoveryExtension({ input: { city }, inputSchema: { properties: { city: { type: "string" } }, required: ["city"] } })["bazaar"] as unknown as { info: { input: Record<string, unknown> } };
  const bazaar = { ...declared, info: { ...declared.info, input: { ...declared.info.input, method: "GET" } } };
  return { paymentPayload: { x402Version: 2, accepted: requirements, resource: { url: "https://api.example.com/weather" }, payload: { transaction: "AA==" }, extensions: { bazaar } }, paymentRequirements: requirements };
}

const reader = createBazaarDeclarationReader();
const repeated = bodyOf("Lisbon");
// The very first declaration of a process (module, Ajv and JIT cold), then warm: the validator (and
// its Worker, if any), the verdict of `repeated`.
const coldCpu = process.cpuUsage();
const coldStart = performance.now();
const coldReading = reader.read(bodyOf("cold"));
const coldSync = performance.now() - coldStart;
await coldReading;
const coldUsed = process.cpuUsage(coldCpu);
console.log(`cold    CPU ${((coldUsed.user + coldUsed.system) / 1000).toFixed(3)}  on the event loop ${coldSync.toFixed(3)}  wall ${(performance.now() - coldStart).toFixed(3)}  (ms, the first declaration of the process)`);
await reader.read(repeated);
await reader.read(bodyOf("warm-up"));

/** The event loop's largest lateness while `run` runs, from a 1 ms interval timer. */
async function withStallProbe(run: () => Promise<void>): Promise<number> {
  let last = performance.now();
  let worst = 0;
  const timer = setInterval(() => {
    const now = performance.now();
    worst = Math.max(worst, now - last - 1);
    last = now;
  }, 1);
  await new Promise((resolve) => setTimeout(resolve, 5));
  last = performance.now();
  await run();
  await new Promise((resolve) => setTimeout(resolve, 2));
  clearInterval(timer);
  return Math.max(0, worst);
}

/** Time spent in the call before it returned: what the event loop itself paid for this declaration. */
let syncMs = 0;
async function timedRead(body: unknown): Promise<string> {
  const start = performance.now();
  const reading = reader.read(body);
  syncMs += performance.now() - start;
  return (await reading).kind;
}

const cases: Record<string, () => Promise<void>> = {
  first: async () => {
    if ((await timedRead(bodyOf(`city-${distinct++}`))) !== "valid") throw new Error("invalid");
  },
  repeat: async () => {
    if ((await timedRead(repeated)) !== "valid") throw new Error("invalid");
  },
  locate: async () => {
    if (!reader.locate(bodyOf(`city-${distinct++}`))) throw new Error("not located");
  },
};
type Figures = { cpu: number[]; sync: number[]; stall: number[]; wall: number[] };
const results: Record<string, Figures> = Object.fromEntries(Object.keys(cases).map((name) => [name, { cpu: [], sync: [], stall: [], wall: [] }]));
const loadBefore = loadavg();
for (let round = 0; round < rounds; round++) {
  for (const [name, run] of Object.entries(cases)) {
    const figures = results[name] as Figures;
    const cpu = process.cpuUsage();
    syncMs = 0;
    const start = performance.now();
    const stall = await withStallProbe(async () => {
      // One at a time, as the recorder reads them, with a turn of the event loop between two (the
      // recorder awaits the store's write between declarations).
      for (let i = 0; i < perRound; i++) {
        await run();
        await new Promise((resolve) => setTimeout(resolve, 0));
      }
    });
    const wall = performance.now() - start;
    const used = process.cpuUsage(cpu);
    figures.cpu.push((used.user + used.system) / 1000 / perRound);
    figures.sync.push(syncMs / perRound);
    figures.wall.push(wall / perRound);
    figures.stall.push(stall);
  }
}
const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? NaN;
const show = (values: number[]) => `${median(values).toFixed(3)} (${Math.min(...values).toFixed(3)}..${Math.max(...values).toFixed(3)})`;
for (const [name, figures] of Object.entries(results)) {
  console.log(`${name.padEnd(7)} CPU ${show(figures.cpu)}  on the event loop ${show(figures.sync)}  longest stall ${show(figures.stall)}  wall ${show(figures.wall)}  (ms per declaration)`);
}
console.log(`${rounds} rounds x ${perRound} declarations per case; load average before ${loadBefore.map((l) => l.toFixed(2)).join(" ")}, after ${loadavg().map((l) => l.toFixed(2)).join(" ")}`);
process.exit(0);
