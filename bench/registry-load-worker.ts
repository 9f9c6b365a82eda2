/**
 * Closed-loop HTTP load generator used by bench/registry.ts. It runs as its own process, so the
 * server's RSS and event loop are measured without the load generator's.
 *
 *   bun bench/registry-load-worker.ts '{"url":"http://…","seconds":4,"concurrency":64,"headers":{}}'
 *
 * Prints one JSON line: { count, errors, latencies } (latencies in ms, unsorted).
 */
export {};

type LoadSpec = { url: string; seconds: number; concurrency: number; headers?: Record<string, string> };

const spec = JSON.parse(process.argv[2] ?? "{}") as LoadSpec;
const { url, seconds, concurrency, headers = {} } = spec;
const deadline = performance.now() + seconds * 1000;
const latencies: number[] = [];
let errors = 0;

async function loop(): Promise<void> {
  while (performance.now() < deadline) {
    const start = performance.now();
    try {
      const response = await fetch(url, { headers });
      await response.arrayBuffer();
      if (response.status !== 200) errors++;
    } catch {
      errors++;
    }
    latencies.push(performance.now() - start);
  }
}

await Promise.all(Array.from({ length: concurrency }, loop));
process.stdout.write(`${JSON.stringify({ count: latencies.length, errors, latencies: latencies.map((l) => Math.round(l * 100) / 100) })}\n`);
