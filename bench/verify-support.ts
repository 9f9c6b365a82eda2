/** Shared pieces of the verification benchmarks: payment pools, the load loop, percentiles. */
import { getSetComputeUnitLimitInstruction, getSetComputeUnitPriceInstruction } from "@solana-program/compute-budget";
import { findAssociatedTokenPda, getTransferCheckedInstruction, TOKEN_PROGRAM_ADDRESS } from "@solana-program/token";
import {
  appendTransactionMessageInstructions,
  createTransactionMessage,
  getBase64EncodedWireTransaction,
  partiallySignTransactionMessageWithSigners,
  pipe,
  setTransactionMessageFeePayer,
  setTransactionMessageLifetimeUsingBlockhash,
  type Address,
  type Blockhash,
  type KeyPairSigner,
} from "@solana/kit";
import { readFileSync } from "node:fs";

export const MEMO_PROGRAM = "MemoSq4gqABAXKb96qnH8TysNcWxMyWCqXgDLGmfcHr" as Address;

export type LoadResult = Readonly<{ requests: number; failures: number; seconds: number; p50: number; p99: number }>;

/** Builds `count` distinct, validly signed payments (distinct memo nonces) as /verify JSON bodies. */
export async function buildPaymentBodies(
  options: Readonly<{
    count: number;
    payers: readonly KeyPairSigner[];
    feePayer: Address;
    payTo: Address;
    mint: Address;
    network: string;
    amount: bigint;
    blockhash: Blockhash;
  }>,
): Promise<string[]> {
  const [destination] = await findAssociatedTokenPda({ owner: options.payTo, mint: options.mint, tokenProgram: TOKEN_PROGRAM_ADDRESS });
  const requirements = {
    scheme: "exact",
    network: options.network,
    asset: options.mint,
    amount: options.amount.toString(),
    payTo: options.payTo,
    maxTimeoutSeconds: 60,
    extra: { feePayer: options.feePayer },
  };
  const bodies: string[] = [];
  for (let i = 0; i < options.count; i++) {
    const payer = options.payers[i % options.payers.length];
    if (!payer) throw new Error("no payers");
    const [source] = await findAssociatedTokenPda({ owner: payer.address, mint: options.mint, tokenProgram: TOKEN_PROGRAM_ADDRESS });
    const message = pipe(
      createTransactionMessage({ version: 0 }),
      (m) => setTransactionMessageFeePayer(options.feePayer, m),
      (m) => setTransactionMessageLifetimeUsingBlockhash({ blockhash: options.blockhash, lastValidBlockHeight: 0n }, m),
      (m) =>
        appendTransactionMessageInstructions(
          [
            getSetComputeUnitLimitInstruction({ units: 20_000 }),
            getSetComputeUnitPriceInstruction({ microLamports: 1n }),
            getTransferCheckedInstruction({ source, mint: options.mint, destination, authority: payer, amount: options.amount, decimals: 6 }),
            { programAddress: MEMO_PROGRAM, data: new TextEncoder().encode(`bench-${i}-${crypto.randomUUID()}`) },
          ],
          m,
        ),
    );
    const transaction = getBase64EncodedWireTransaction(await partiallySignTransactionMessageWithSigners(message));
    bodies.push(
      JSON.stringify({
        x402Version: 2,
        paymentPayload: { x402Version: 2, accepted: requirements, payload: { transaction }, resource: { url: "https://bench.example/r" } },
        paymentRequirements: requirements,
      }),
    );
  }
  return bodies;
}

/** Fires bodies round-robin at `url` with `concurrency` keep-alive workers for `seconds`. */
export async function runLoad(url: string, bodies: readonly string[], seconds: number, concurrency: number): Promise<LoadResult> {
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
        if (response.status !== 200 || !text.includes('"isValid":true')) {
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
  await Promise.all(Array.from({ length: concurrency }, worker));
  const elapsed = (performance.now() - started) / 1000;
  latencies.sort((a, b) => a - b);
  return { requests: latencies.length, failures, seconds: elapsed, p50: percentile(latencies, 0.5), p99: percentile(latencies, 0.99) };
}

export function percentile(sorted: readonly number[], q: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? Number.NaN;
}

/** Peak resident set size of a process (Linux VmHWM), in MiB. */
export function peakRssMiB(pid: number): number {
  try {
    const status = readFileSync(`/proc/${pid}/status`, "utf8");
    const match = /VmHWM:\s+(\d+) kB/.exec(status);
    return match ? Number(match[1]) / 1024 : Number.NaN;
  } catch {
    return Number.NaN;
  }
}

export function format(name: string, result: LoadResult, rss: number): string {
  const rps = result.requests / result.seconds;
  return `${name.padEnd(28)} ${rps.toFixed(0).padStart(7)} req/s  p50 ${result.p50.toFixed(2)} ms  p99 ${result.p99.toFixed(2)} ms  ` +
    `peak RSS ${rss.toFixed(0)} MiB  (${result.requests} requests, ${result.failures} not valid)`;
}

/** Reads one `READY {json}` line from a child's stdout. */
export async function readReady(stream: ReadableStream<Uint8Array>): Promise<Record<string, string>> {
  const reader = stream.getReader();
  const decoder = new TextDecoder();
  let buffered = "";
  for (;;) {
    const { value, done } = await reader.read();
    if (done) throw new Error(`server exited before READY: ${buffered}`);
    buffered += decoder.decode(value);
    const line = buffered.split("\n").find((l) => l.startsWith("READY "));
    if (line) {
      reader.releaseLock();
      return JSON.parse(line.slice(6)) as Record<string, string>;
    }
  }
}

export async function latestBlockhash(rpcUrl: string): Promise<Blockhash> {
  const response = await fetch(rpcUrl, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "getLatestBlockhash", params: [{ commitment: "confirmed" }] }),
  });
  const body = (await response.json()) as { result: { value: { blockhash: Blockhash } } };
  return body.result.value.blockhash;
}
