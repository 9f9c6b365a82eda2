// Fixtures for the package's tests (and the facilitator's ledger tests): wallets funded with cheat
// codes, kit-built USDC transfers, a hand-moved clock and malformed variants of wire bytes.
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
  type Address,
  type Blockhash,
  type Instruction,
  type KeyPairSigner,
  type Signature,
  type TransactionSigner,
} from "@solana/kit";
import { getTransferCheckedInstruction } from "@solana-program/token";
import { createEmbeddedLedger, type Clock, type EmbeddedLedger, type EmbeddedLedgerOptions } from "../../src/index.ts";

/** A 6-decimal mint every test ledger has from boot (devnet USDC's address, as a host would set it). */
export const USDC = address("4zMMC9srt5Ri5X14GAgXhaHii3GnPAEERYPJgZJDncDU");
export const USDC_DECIMALS = 6;

/** What the test ledgers answer to getGenesisHash (devnet's, as the facilitator presents it). */
export const GENESIS_HASH = "EtWTRABZaYq6iMfeYKouRu166VU2xqa1wcuWFUBDuyi";

/** An embedded ledger with the USDC mint above and GENESIS_HASH. */
export function createTestLedger(options: EmbeddedLedgerOptions = {}): EmbeddedLedger {
  return createEmbeddedLedger({ mints: [{ address: USDC, decimals: USDC_DECIMALS }], genesisHash: GENESIS_HASH, ...options });
}

/** Submits with preflight and returns the signature; a refusal fails the test with its message. */
export function landed(ledger: Pick<EmbeddedLedger, "submit">, wire: Uint8Array): Signature {
  const result = ledger.submit(wire);
  if (!result.ok) throw new Error(`refused: ${result.refusal.message}`);
  return result.signature;
}

export type LatestBlockhash = Readonly<{ blockhash: string; lastValidBlockHeight: bigint }>;

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

export async function fundWallets(dev: Pick<EmbeddedLedger, "airdrop" | "setTokenAccount">, usdc: bigint): Promise<Wallets> {
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

/**
 * Wire bytes of a v0 transaction with `instructions`, fee paid by `feePayer`; a fee payer without
 * a key (kit's noop signer) leaves its signature slot empty, as an x402 client does.
 */
export async function signedWire(
  feePayer: TransactionSigner,
  blockhash: LatestBlockhash,
  instructions: readonly Instruction[],
): Promise<Uint8Array> {
  const message = pipe(
    createTransactionMessage({ version: 0 }),
    (m) => setTransactionMessageFeePayerSigner(feePayer, m),
    (m) => setTransactionMessageLifetimeUsingBlockhash({ blockhash: blockhash.blockhash as Blockhash, lastValidBlockHeight: blockhash.lastValidBlockHeight }, m),
    (m) => appendTransactionMessageInstructions(instructions, m),
  );
  return new Uint8Array(getTransactionEncoder().encode(await partiallySignTransactionMessageWithSigners(message)));
}

/** Wire bytes of a USDC TransferChecked from payer to recipient, fee paid by feePayer. */
export async function transferWire(spec: TransferSpec): Promise<Uint8Array> {
  const { wallets } = spec;
  const feePayer = spec.feePayerUnsigned ? createNoopSigner(wallets.feePayer.address) : wallets.feePayer;
  const transfer = getTransferCheckedInstruction({
    source: wallets.source,
    mint: USDC,
    destination: wallets.destination,
    authority: wallets.payer,
    amount: spec.amount,
    decimals: USDC_DECIMALS,
  });
  return signedWire(feePayer, spec.blockhash, [transfer]);
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
