/** Closed-loop HTTP load generator used by bench/registry.ts (runs in a Worker). */
// Inside a Worker the global scope is the worker's side of the message channel.
const port = globalThis as unknown as Worker;

port.onmessage = async (event: MessageEvent<{ url: string; seconds: number; concurrency: number; headers?: Record<string, string> }>) => {
  const { url, seconds, concurrency, headers = {} } = event.data;
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
  port.postMessage({ count: latencies.length, errors, latencies });
};
