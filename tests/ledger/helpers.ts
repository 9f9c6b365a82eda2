import {
  address,
  appendTransactionMessageInstructions,
  createNoopSigner,
  createTransactionMessage,
  generateKeyPairSigner,
  getTransactionEncoder,
  partiallySignTransactionMessageWithSigners,
  pipe,
  setTransactionMessageFeePayerSigner,
  setTransactionMessageLifetimeUsingBlockhash,
  signTransactionMessageWithSigners,
  type Address,
  type Blockhash,
  type KeyPairSigner,
} from "@solana/kit";
import { getTransferCheckedInstruction } from "@solana-program/token";
import type { Clock } from "../../src/application/ports/clock.ts";
import type { LatestBlockhash } from "../../src/application/ports/ledger.ts";
import { DEVNET_USDC_MINT, USDC_DECIMALS } from "../../src/domain/networks.ts";
import type { EmbeddedLedger } from "../../src/infrastructure/ledger/embedded/embedded-ledger.ts";

export const USDC = address(DEVNET_USDC_MINT);

/** A clock tests move by hand, so blockhash expiry needs no waiting. */
export type ManualClock = Clock & Readonly<{ advance(ms: number): void }>;

export function manualClock(start = 1_750_000_000_000): ManualClock {
  let now = start;
  return Object.freeze({ now: () => now, advance: (ms: number) => void (now += ms) });
}

/** A funded payer (SOL + USDC), an empty recipient token account and a funded fee payer. */
export type Wallets = Readonly<{
  payer: KeyPairSigner;
  feePayer: KeyPairSigner;
  recipient: KeyPairSigner;
  source: Address;
  destination: Address;
}>;

export async function fundWallets(dev: EmbeddedLedger, usdc: bigint): Promise<Wallets> {
  const [payer, feePayer, recipient] = await Promise.all([generateKeyPairSigner(), generateKeyPairSigner(), generateKeyPairSigner()]);
  await dev.airdrop(feePayer.address, 1_000_000_000n);
  const source = await dev.setTokenAccount(payer.address, USDC, { amount: usdc });
  const destination = await dev.setTokenAccount(recipient.address, USDC, { amount: 0n });
  return { payer, feePayer, recipient, source, destination };
}

export type TransferSpec = Readonly<{
  wallets: Wallets;
  amount: bigint;
  blockhash: LatestBlockhash;
  /** Leave the fee payer's signature slot empty, as an x402 client does. */
  feePayerUnsigned?: boolean;
}>;

/** Wire bytes of a USDC TransferChecked from payer to recipient, fee paid by feePayer. */
export async function transferWire(spec: TransferSpec): Promise<Uint8Array> {
  const { wallets } = spec;
  const feePayer = spec.feePayerUnsigned ? createNoopSigner(wallets.feePayer.address) : wallets.feePayer;
  const message = pipe(
    createTransactionMessage({ version: 0 }),
    (m) => setTransactionMessageFeePayerSigner(feePayer, m),
    (m) =>
      setTransactionMessageLifetimeUsingBlockhash(
        { blockhash: spec.blockhash.blockhash as Blockhash, lastValidBlockHeight: spec.blockhash.lastValidBlockHeight },
        m,
      ),
    (m) =>
      appendTransactionMessageInstructions(
        [
          getTransferCheckedInstruction({
            source: wallets.source,
            mint: USDC,
            destination: wallets.destination,
            authority: wallets.payer,
            amount: spec.amount,
            decimals: USDC_DECIMALS,
          }),
        ],
        m,
      ),
  );
  const signed = spec.feePayerUnsigned
    ? await partiallySignTransactionMessageWithSigners(message)
    : await signTransactionMessageWithSigners(message);
  return new Uint8Array(getTransactionEncoder().encode(signed));
}

/** Every truncation of `wire`, a few extensions, bit flips in the header area and random garbage. */
export function malformedVariants(wire: Uint8Array): Uint8Array[] {
  const variants: Uint8Array[] = [];
  for (let length = 0; length < wire.length; length++) variants.push(wire.slice(0, length));
  for (const extra of [1, 2, 7, 64]) variants.push(new Uint8Array([...wire, ...new Array<number>(extra).fill(0xab)]));
  for (const index of [0, 65, 66, 67, 68, 69, 100, wire.length - 1]) {
    const flipped = wire.slice();
    flipped[index] = (flipped[index] ?? 0) ^ 0xff;
    variants.push(flipped);
  }
  let seed = 7;
  for (let i = 0; i < 40; i++) {
    const garbage = new Uint8Array(1 + (i * 37) % 1300);
    for (let j = 0; j < garbage.length; j++) garbage[j] = (seed = (seed * 1103515245 + 12345) & 0xff);
    variants.push(garbage);
  }
  return variants;
}
