/**
 * Benchmark (not a test): the hand-written fast paths kept for speed against the kit (and
 * @solana-program) calls they stand in for, in one process, median of several rounds.
 *
 *   npx bun bench/codecs.ts [--rounds 7]
 *
 * Each row prints µs per call for the fast path and for kit, and the ratio. The fast paths are
 * cross-checked against kit by packages/solana-wire/tests, tests/unit/codecs/address-cache.test.ts,
 * tests/unit/verification/wire-format.test.ts and tests/unit/registry/account-codecs.test.ts.
 */
import {
  getAddressDecoder,
  getAddressEncoder,
  getBase58Decoder,
  getBase58Encoder,
  getBase64Encoder,
  getCompiledTransactionMessageDecoder,
  getCompiledTransactionMessageEncoder,
  getTransactionDecoder,
  getTransactionEncoder,
  type Address,
} from "@solana/kit";
import { findAssociatedTokenPda, TOKEN_PROGRAM_ADDRESS } from "@solana-program/token";
import { base58Bytes, base58Text } from "@x84/solana-wire";
import { createAtaDeriver } from "../src/domain/payment/associated-token-account.ts";
import { getFastAddressDecoder } from "../src/domain/registry/fast-address-codec.ts";
import { createAddressCache } from "../src/domain/transaction/address-cache.ts";
import { parseWireTransaction } from "@x84/solana-wire";
import { buildTransaction, createActors, USDC } from "../fixtures/payment-builder.ts";

const roundsIndex = process.argv.indexOf("--rounds");
const ROUNDS = roundsIndex >= 0 ? Math.max(1, Number(process.argv[roundsIndex + 1]) || 7) : 7;

/** Median µs per call of `run(i)` over `calls` calls, after a warm-up round. */
async function measure(calls: number, run: (i: number) => unknown): Promise<number> {
  const rounds: number[] = [];
  for (let round = 0; round <= ROUNDS; round++) {
    const start = performance.now();
    for (let i = 0; i < calls; i++) {
      const result = run(i);
      if (result instanceof Promise) await result;
    }
    if (round > 0) rounds.push(((performance.now() - start) * 1000) / calls);
  }
  rounds.sort((a, b) => a - b);
  return rounds[Math.floor(rounds.length / 2)] ?? Number.NaN;
}

const rows: string[][] = [["path", "fast µs", "kit µs", "kit / fast"]];
async function row(name: string, calls: number, fast: (i: number) => unknown, kit: (i: number) => unknown): Promise<void> {
  const fastUs = await measure(calls, fast);
  const kitUs = await measure(calls, kit);
  rows.push([name, fastUs.toFixed(2), kitUs.toFixed(2), `${(kitUs / fastUs).toFixed(1)}x`]);
}

const SAMPLES = 1024;
const keys = Array.from({ length: SAMPLES }, () => crypto.getRandomValues(new Uint8Array(32)));
const signatures = Array.from({ length: SAMPLES }, () => crypto.getRandomValues(new Uint8Array(64)));
const addressTexts = keys.map((key) => getBase58Decoder().decode(key));
const at = <T>(list: readonly T[], i: number): T => list[i % list.length] as T;

const base58Decoder = getBase58Decoder();
const base58Encoder = getBase58Encoder();
await row("base58 text of a 32-byte key", 5_000, (i) => base58Text(at(keys, i)), (i) => base58Decoder.decode(at(keys, i)));
await row("base58 text of a 64-byte signature", 2_000, (i) => base58Text(at(signatures, i)), (i) => base58Decoder.decode(at(signatures, i)));
await row("base58 bytes of an address", 5_000, (i) => base58Bytes(at(addressTexts, i)), (i) => base58Encoder.encode(at(addressTexts, i)));
await row("address bytes to text (account layouts)", 5_000, (i) => getFastAddressDecoder().decode(at(keys, i)), (i) => getAddressDecoder().decode(at(keys, i)));
const addressEncoder = getAddressEncoder();
await row("address text to bytes (ledger lookups)", 5_000, (i) => base58Bytes(at(addressTexts, i)), (i) => addressEncoder.encode(at(addressTexts, i) as Address));

// The address cache on /verify: programs, mints, payees and fee payers repeat across payments.
const cache = createAddressCache();
const repeated = keys.slice(0, 16);
const addressDecoder = getAddressDecoder();
await row("address cache, repeated keys (/verify)", 10_000, (i) => cache.toAddress(at(repeated, i)), (i) => addressDecoder.decode(at(repeated, i)));

// The strict wire reader on /verify (packages/embedded-ledger/bench/wire-guard.ts measures the ledger's guard), against kit's decode + canonical re-encode check.
const actors = await createActors();
const wires = await Promise.all(Array.from({ length: 32 }, () => buildTransaction(actors))).then((list) =>
  list.map((base64) => new Uint8Array(getBase64Encoder().encode(base64))),
);
const transactionDecoder = getTransactionDecoder();
const messageDecoder = getCompiledTransactionMessageDecoder();
function kitDecodeAndCheck(wire: Uint8Array): boolean {
  const transaction = transactionDecoder.decode(wire);
  const message = messageDecoder.decode(transaction.messageBytes);
  const same = getTransactionEncoder().encode(transaction).length === wire.length;
  return same && getCompiledTransactionMessageEncoder().encode(message).length === transaction.messageBytes.length;
}
await row("wire reader, domain (/verify)", 1_000, (i) => parseWireTransaction(at(wires, i)), (i) => kitDecodeAndCheck(at(wires, i)));

// ATA derivation: kit's PDA search hashes with WebCrypto; payees repeat, so the deriver caches.
const owners = keys.slice(0, 64).map((key) => getBase58Decoder().decode(key) as Address);
const atas = createAtaDeriver();
await row("ATA, cached deriver vs findAssociatedTokenPda", 300, (i) => atas.derive(at(owners, i), USDC), (i) =>
  findAssociatedTokenPda({ owner: at(owners, i), mint: USDC, tokenProgram: TOKEN_PROGRAM_ADDRESS }),
);

const widths = rows[0]?.map((_, c) => Math.max(...rows.map((r) => (r[c] ?? "").length))) ?? [];
for (const r of rows) console.log(r.map((cell, c) => (c === 0 ? cell.padEnd(widths[c] ?? 0) : cell.padStart(widths[c] ?? 0))).join("  "));
console.log(`\nbun ${Bun.version}, ${ROUNDS} rounds, median; machine load ${(await import("node:os")).loadavg()[0]?.toFixed(2)}`);
