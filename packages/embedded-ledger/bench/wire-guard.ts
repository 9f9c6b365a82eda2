/**
 * Benchmark (not a test): the ledger's wire guard (the strict reader that builds kit's objects,
 * src/wire-parse.ts) against kit's own decoders, on signed USDC transfers; median of several rounds.
 *
 *   npx bun packages/embedded-ledger/bench/wire-guard.ts [--rounds 7]
 *
 * tests/wire-parse.test.ts cross-checks the two on the same kind of input.
 */
import { parseCanonicalWire } from "../src/wire-parse.ts";
import { decodeWithKit } from "../src/wire-guard.ts";
import { createTestLedger, fundWallets, transferWire } from "../tests/support/fixtures.ts";

const roundsIndex = process.argv.indexOf("--rounds");
const ROUNDS = roundsIndex >= 0 ? Math.max(1, Number(process.argv[roundsIndex + 1]) || 7) : 7;
const CALLS = 1_000;

/** Median µs per call over ROUNDS rounds, after a warm-up round. */
function medianMicros(run: (i: number) => unknown): number {
  const rounds: number[] = [];
  for (let round = 0; round <= ROUNDS; round++) {
    const start = performance.now();
    for (let i = 0; i < CALLS; i++) run(i);
    if (round > 0) rounds.push(((performance.now() - start) * 1000) / CALLS);
  }
  rounds.sort((a, b) => a - b);
  return rounds[Math.floor(rounds.length / 2)] ?? Number.NaN;
}

const ledger = createTestLedger();
const wallets = await fundWallets(ledger, 1_000_000n);
const wires = await Promise.all(Array.from({ length: 32 }, (_, n) => transferWire({ wallets, amount: BigInt(n + 1), blockhash: ledger.latestBlockhash() })));
const at = (i: number): Uint8Array => wires[i % wires.length] as Uint8Array;

const guard = medianMicros((i) => parseCanonicalWire(at(i)));
const kit = medianMicros((i) => decodeWithKit(at(i)));
console.log(`wire guard ${guard.toFixed(2)} µs, kit ${kit.toFixed(2)} µs, kit / guard ${(kit / guard).toFixed(1)}x`);
