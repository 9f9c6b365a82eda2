/** Shared pieces of the verification benchmarks: payment pools, result lines, child-process plumbing. */
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
import type { LoadResult } from "./verify-load.ts";

export const MEMO_PROGRAM = "MemoSq4gqABAXKb96qnH8TysNcWxMyWCqXgDLGmfcHr" as Address;

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

/**
 * CPU time (user + system) used so far, in ms, from Linux /proc (NaN elsewhere): the whole process
 * (all threads), or with `thread` one thread of it, e.g. the main thread (thread id = pid).
 */
export function cpuMs(pid: number, thread?: number): number {
  try {
    const path = thread === undefined ? `/proc/${pid}/stat` : `/proc/${pid}/task/${thread}/stat`;
    const fields = readFileSync(path, "utf8").split(") ")[1]?.split(" ") ?? [];
    const ticks = Number(fields[11]) + Number(fields[12]);
    return (ticks * 1000) / 100; // USER_HZ is 100 on Linux
  } catch {
    return Number.NaN;
  }
}

/** CPU the server spent per request during a run: all threads, and its main (event-loop) thread. */
export type CpuPerRequest = Readonly<{ processMicros: number; mainThreadMicros: number }>;

/** Samples a process's CPU before a run; call the result after it to get the per-request figures. */
export function measureCpu(pid: number): (requests: number) => CpuPerRequest {
  const process0 = cpuMs(pid);
  const main0 = cpuMs(pid, pid);
  return (requests) => ({
    processMicros: ((cpuMs(pid) - process0) * 1000) / Math.max(1, requests),
    mainThreadMicros: ((cpuMs(pid, pid) - main0) * 1000) / Math.max(1, requests),
  });
}

export function format(name: string, result: LoadResult, rss: number, cpu?: CpuPerRequest): string {
  const rps = result.requests / result.seconds;
  const cpuText = cpu ? `  CPU/request ${cpu.processMicros.toFixed(0)} µs (event loop ${cpu.mainThreadMicros.toFixed(0)} µs)` : "";
  return `${name.padEnd(28)} ${rps.toFixed(0).padStart(7)} req/s  p50 ${result.p50.toFixed(2)} ms  p99 ${result.p99.toFixed(2)} ms  ` +
    `peak RSS ${rss.toFixed(0)} MiB${cpuText}  (${result.requests} requests, ${result.failures} not valid, load: ${result.generator})`;
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
