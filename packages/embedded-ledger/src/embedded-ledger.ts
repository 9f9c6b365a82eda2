import { readFileSync } from "node:fs";
import {
  appendTransactionMessageInstructions,
  createTransactionMessage,
  getTransactionEncoder,
  lamports as toLamports,
  pipe,
  setTransactionMessageFeePayerSigner,
  setTransactionMessageLifetimeUsingBlockhash,
  signTransactionMessageWithSigners,
  type Address,
  type Blockhash,
  type KeyPairSigner,
  type Signature,
} from "@solana/kit";
import { findAssociatedTokenPda, getMintDecoder, getMintEncoder, TOKEN_PROGRAM_ADDRESS } from "@solana-program/token";
import { Account, Clock as SysvarClock, LiteSVM } from "litesvm";
import { sha256 } from "@noble/hashes/sha2.js";
import { base58Bytes, base58Text, SYSTEM_PROGRAM } from "@x84/solana-wire";
import { readAccount, readTokenBalance, type TokenBalance } from "./account-reads.ts";
import { buildAirdropTransaction, createFaucetSigner } from "./faucet.ts";
import { rawLiteSvm } from "./litesvm-raw.ts";
import { systemClock, silentLogger, type AccountSnapshot, type Clock, type Logger, type ProgramAccountFilter, type SignatureStatus } from "./ports.ts";
import { createProgramAccountMirror } from "./program-account-mirror.ts";
import { createProgramSubscriptions, type ProgramAccountListener } from "./program-subscriptions.ts";
import { createSignatureSubscriptions, type SignatureListener, type SignatureNotice } from "./signature-subscriptions.ts";
import { createSlotClock, SLOTS_PER_EPOCH, type SlotBlockhash } from "./slot-clock.ts";
import type { InstructionRunner } from "./token-2022-mints.ts";
import { decodeTokenAccount, encodeMint, encodeTokenAccount, TOKEN_ACCOUNT_SIZE, type TokenAccountUpdate } from "./token-state.ts";
import { renderTransactionError } from "./transaction-error.ts";
import {
  type AddressSignature,
  createTransactionExecutor,
  type Refusal,
  type SignaturePage,
  type SimulateOptions,
  type SimulateResult,
  type SubmitOptions,
  type SubmitResult,
  type TransactionOutcome,
  type TransactionRecord,
} from "./transaction-executor.ts";

/** A transaction stays "confirmed" until this many slots pass, then reads "finalized" (as on mainnet). */
export const FINALITY_SLOTS = 32n;
const FAUCET_RESERVE = 1n << 62n;

export type AccountUpdate = Readonly<{
  lamports?: bigint;
  data?: Uint8Array;
  owner?: Address;
  executable?: boolean;
  rentEpoch?: bigint;
}>;

export type EmbeddedAccount = AccountSnapshot & Readonly<{ rentEpoch: bigint }>;

export type StatusDetail = SignatureStatus & Readonly<{ confirmations: bigint | null; errJson: TransactionRecord["err"] }>;

export type EpochInfo = Readonly<{
  absoluteSlot: bigint;
  blockHeight: bigint;
  epoch: bigint;
  slotIndex: bigint;
  slotsInEpoch: bigint;
  transactionCount: bigint;
}>;

/**
 * A single-node Solana ledger: reads, RPC-level submit/simulate with the JSON-RPC's refusals,
 * signature statuses and history, cheat codes (Surfpool semantics) and airdrops. Everything the
 * JSON-RPC server answers is read through this; a host adapts it to its own ledger interface.
 */
export type EmbeddedLedger = Readonly<{
  airdrop(address: Address, lamports: bigint): Promise<Signature>;
  requestAirdrop(address: Address, lamports: bigint): Promise<Signature>;
  setAccount(address: Address, update: AccountUpdate): void;
  /**
   * Runs `build`'s instructions as one real transaction, with the faucet as fee payer (and as the
   * payer `build` may name, e.g. for CreateAccount); every other signer comes with its instruction.
   * Throws TransactionRefused when the ledger refuses it. See token-2022-mints.ts.
   */
  execute: InstructionRunner;
  /** Creates or updates `owner`'s associated token account for `mint`; returns its address. */
  setTokenAccount(owner: Address, mint: Address, update: TokenAccountUpdate, tokenProgram?: Address): Promise<Address>;
  getTransaction(signature: Signature): TransactionRecord | null;
  /** Landed transactions naming `address` (static account keys), newest first, as getSignaturesForAddress pages them. */
  signaturesForAddress(address: Address, page: SignaturePage): readonly AddressSignature[];
  getBalance(address: Address): bigint;
  getTokenAccountBalance(address: Address): TokenBalance | null;
  getSlot(): bigint;
  getMinimumBalanceForRentExemption(size: bigint): bigint;
  /** The account as it stands, or null. */
  readAccount(address: Address): AccountSnapshot | null;
  /** The same with its rent epoch, as getAccountInfo answers it. */
  readAccountDetail(address: Address): EmbeddedAccount | null;
  /** Program-owned accounts matching every filter, answered from a JS-side copy (program-account-mirror.ts). */
  getProgramAccounts(program: Address, filters?: readonly ProgramAccountFilter[]): Promise<readonly AccountSnapshot[]>;
  /**
   * Calls `listener` with each write of an account `program` owns that passes every filter, as it
   * happens (programSubscribe's notices; program-subscriptions.ts). Returns the unsubscribe function.
   */
  subscribeProgramAccounts(program: Address, filters: readonly ProgramAccountFilter[], listener: ProgramAccountListener): () => void;
  /**
   * Tells `listener` once when `signature` lands (at once if it already has): signatureSubscribe's
   * notices (signature-subscriptions.ts). Returns the unsubscribe function.
   */
  subscribeSignature(signature: Signature, listener: SignatureListener): () => void;
  /** The rent epoch getAccountInfo reports for an account (0 unless a cheat code set one). */
  rentEpochOf(address: Address): bigint;
  latestBlockhash(): SlotBlockhash;
  isBlockhashValidNow(blockhash: string): boolean;
  submit(wire: Uint8Array, options?: SubmitOptions): SubmitResult;
  simulate(wire: Uint8Array, options?: SimulateOptions): SimulateResult;
  /** One small object per signature, null when the ledger has no record of it. */
  signatureStatuses(signatures: readonly Signature[]): (SignatureStatus | null)[];
  /** Statuses with confirmations and the error as JSON, as getSignatureStatuses answers them. */
  statuses(signatures: readonly Signature[]): readonly (StatusDetail | null)[];
  epochInfo(): EpochInfo;
  genesisHash(): string;
}>;

export type EmbeddedLedgerOptions = Readonly<{
  clock?: Clock;
  logger?: Logger;
  /** Seed for blockhashes and the faucet key; random per instance by default. */
  seed?: Uint8Array;
  /** Signatures kept for getSignatureStatuses/getTransaction (oldest dropped first). */
  historyCapacity?: number;
  /** Program binaries to deploy at boot (LEDGER_PROGRAMS), e.g. the x84 registry and Metaplex Core. */
  programs?: readonly LedgerProgram[];
  /** Token mints that exist from boot, at their real addresses (e.g. devnet USDC). */
  mints?: readonly MintAtBoot[];
  /** What getGenesisHash answers (a real cluster's, so clients resolve that network); derived from the seed by default. */
  genesisHash?: string;
  /**
   * How getProgramAccounts' listing gives the event loop back between its slices; setImmediate by
   * default. A host running other sliced work passes its queue of turns, so one turn of the loop runs
   * one slice of either instead of one of each.
   */
  yieldToEventLoop?: () => Promise<void>;
}>;

export type MintAtBoot = Readonly<{ address: Address; decimals: number }>;

/** The ledger's refusal of a transaction it was asked to run (its own airdrop included). */
export class TransactionRefused extends Error {
  override readonly name = "TransactionRefused";
  constructor(readonly refusal: Refusal) {
    const err = refusal.err === null ? "" : ` (${renderTransactionError(refusal.err)})`;
    const logs = refusal.logs.length > 0 ? `\nlogs:\n${refusal.logs.join("\n")}` : "";
    super(`${refusal.message}${err}${logs}`);
  }
}

/** A program binary (an sBPF ELF `.so`, as `solana program dump` writes it) and its address. */
export type LedgerProgram = Readonly<{ programId: Address; path: string }>;

function bootLiteSvm(): LiteSVM {
  // Our own slot window replaces litesvm's single-blockhash check (see slot-clock.ts).
  return new LiteSVM().withBlockhashCheck(false).withSigverify(true);
}

/**
 * Deploys a program binary. Only an ELF file reaches litesvm: a wrong path or a file that is not a
 * program stops the boot with the setting's name instead of reaching native code.
 */
function loadProgram(svm: LiteSVM, program: LedgerProgram): void {
  let head: Uint8Array;
  try {
    head = new Uint8Array(readFileSync(program.path).subarray(0, 4));
  } catch {
    throw new Error(`LEDGER_PROGRAMS: the binary for ${program.programId} cannot be read`);
  }
  if (head.length < 4 || head[0] !== 0x7f || head[1] !== 0x45 || head[2] !== 0x4c || head[3] !== 0x46) {
    throw new Error(`LEDGER_PROGRAMS: the file for ${program.programId} is not an ELF program binary`);
  }
  try {
    svm.addProgramFromFile(program.programId, program.path);
  } catch (error) {
    throw new Error(`LEDGER_PROGRAMS: ${program.programId} could not be loaded (${error instanceof Error ? error.message : "invalid program"})`);
  }
}

export function createEmbeddedLedger(options: EmbeddedLedgerOptions = {}): EmbeddedLedger {
  const clock = options.clock ?? systemClock;
  const logger = options.logger ?? silentLogger;
  const seed = options.seed ?? crypto.getRandomValues(new Uint8Array(32));
  const svm = bootLiteSvm();
  for (const program of options.programs ?? []) loadProgram(svm, program);
  const slots = createSlotClock({ clock, seed, firstSlot: svm.getClock().slot });
  const rentEpochs = new Map<Address, bigint>();
  let syncedSlot = -1n;
  let syncedTimestamp = -1n;
  let airdrops = 0;
  let faucet: Promise<KeyPairSigner> | null = null;

  /**
   * Brings litesvm's Clock sysvar to the current slot and second before a transaction runs. Only
   * this function writes the clock and no transaction can, so when neither changed since the last
   * write there is nothing to do: rewriting it for every simulation (three crossings into Rust)
   * was about 7 % of the ledger's CPU per simulateTransaction. A node never does this work.
   */
  function syncClock(): void {
    const slot = slots.currentSlot();
    const timestamp = slots.unixTimestamp();
    if (slot === syncedSlot && timestamp === syncedTimestamp) return;
    if (slot !== syncedSlot) svm.warpToSlot(slot);
    const sysvar = svm.getClock();
    svm.setClock(new SysvarClock(slot, sysvar.epochStartTimestamp, slot / SLOTS_PER_EPOCH, sysvar.leaderScheduleEpoch, timestamp));
    syncedSlot = slot;
    syncedTimestamp = timestamp;
  }

  const programAccounts = createProgramAccountMirror(rawLiteSvm(svm), options.yieldToEventLoop);
  const subscriptions = createProgramSubscriptions(logger, (active) =>
    programAccounts.onWrite(active ? (account) => subscriptions.dispatch(account, slots.currentSlot(), rentEpochs.get(account.address) ?? 0n) : null),
  );
  const executor = createTransactionExecutor({
    svm,
    slots,
    syncClock,
    logger,
    historyCapacity: options.historyCapacity ?? 100_000,
    landed: programAccounts.transactionLanded,
    rentEpochOf: (target) => rentEpochs.get(target) ?? 0n,
  });

  const raw = rawLiteSvm(svm);

  const outcomeNotice = (signature: Signature): SignatureNotice | null => {
    const outcome = executor.outcome(signature);
    return outcome ? Object.freeze({ slot: outcome.slot, err: outcome.err }) : null;
  };
  const signatureSubscriptions = createSignatureSubscriptions(logger, outcomeNotice);

  /** Every submission goes through here, so signatureSubscribe hears each one that lands. */
  function submitWire(wire: Uint8Array, submitOptions?: SubmitOptions): SubmitResult {
    const result = executor.submit(wire, submitOptions);
    if (result.ok) {
      const notice = outcomeNotice(result.signature);
      if (notice) signatureSubscriptions.landed(result.signature, notice);
    }
    return result;
  }

  /**
   * Through the native instance with the fast base58 codec: litesvm's wrapper converts each address
   * with kit's BigInt base58, which made a cheat-code write cost ~0.6 ms (a minute to seed 100,000
   * agents, and a stalled event loop for every batch of writes).
   */
  function setAccount(target: Address, update: AccountUpdate): void {
    const key = base58Bytes(target);
    const complete = update.data !== undefined && update.owner !== undefined && update.lamports !== undefined;
    const current = complete ? null : raw.getAccount(key);
    const data = update.data ?? current?.data() ?? new Uint8Array(0);
    const written = {
      owner: update.owner ?? (current ? (base58Text(current.owner()) as Address) : SYSTEM_PROGRAM),
      lamports: update.lamports ?? current?.lamports() ?? 0n,
      executable: update.executable ?? current?.executable() ?? false,
      data,
    };
    raw.setAccount(key, new Account(written.lamports, data, base58Bytes(written.owner), written.executable, 0n));
    if (update.rentEpoch !== undefined) rentEpochs.set(target, update.rentEpoch);
    programAccounts.written(target, written);
  }

  function rentExempt(size: bigint): bigint {
    return svm.minimumBalanceForRentExemption(size);
  }

  /** Keeps the mint's supply equal to the sum of cheat-coded balances changes. */
  function adjustSupply(mint: Address, delta: bigint): void {
    const account = readAccount(svm, mint);
    if (!account || account.data.length < 82 || delta === 0n) return;
    const decoded = getMintDecoder().decode(account.data.subarray(0, 82));
    const supply = decoded.supply + delta < 0n ? 0n : decoded.supply + delta;
    const data = new Uint8Array(account.data);
    data.set(new Uint8Array(getMintEncoder().encode({ ...decoded, supply })), 0);
    setAccount(mint, { data });
  }

  async function setTokenAccount(owner: Address, mint: Address, update: TokenAccountUpdate, tokenProgram: Address = TOKEN_PROGRAM_ADDRESS): Promise<Address> {
    const [ata] = await findAssociatedTokenPda({ owner, mint, tokenProgram });
    const current = readAccount(svm, ata);
    const existing = current && current.owner === tokenProgram ? decodeTokenAccount(current.data) : null;
    const data = encodeTokenAccount(owner, mint, update, existing);
    setAccount(ata, {
      lamports: current && current.lamports > 0n ? current.lamports : rentExempt(BigInt(TOKEN_ACCOUNT_SIZE)),
      data,
      owner: tokenProgram,
      executable: false,
    });
    if (update.amount !== undefined) adjustSupply(mint, update.amount - (existing?.amount ?? 0n));
    return ata;
  }

  async function airdrop(recipient: Address, amount: bigint): Promise<Signature> {
    faucet ??= createFaucetSigner(seed);
    const signer = await faucet;
    const balance = BigInt(svm.getBalance(signer.address) ?? 0n);
    if (balance < amount + FAUCET_RESERVE / 2n) setAccount(signer.address, { lamports: balance + FAUCET_RESERVE });
    const latest = slots.latest();
    airdrops += 1;
    const wire = await buildAirdropTransaction(signer, recipient, amount, latest.blockhash, latest.lastValidBlockHeight, airdrops);
    const result = submitWire(wire);
    if (!result.ok) throw new TransactionRefused(result.refusal);
    return result.signature;
  }

  const execute: InstructionRunner = async (build) => {
    faucet ??= createFaucetSigner(seed);
    const signer = await faucet;
    const balance = BigInt(svm.getBalance(signer.address) ?? 0n);
    if (balance < FAUCET_RESERVE / 2n) setAccount(signer.address, { lamports: balance + FAUCET_RESERVE });
    const latest = slots.latest();
    const message = pipe(
      createTransactionMessage({ version: 0 }),
      (m) => setTransactionMessageFeePayerSigner(signer, m),
      (m) => setTransactionMessageLifetimeUsingBlockhash({ blockhash: latest.blockhash as Blockhash, lastValidBlockHeight: latest.lastValidBlockHeight }, m),
      (m) => appendTransactionMessageInstructions(build(signer), m),
    );
    const wire = new Uint8Array(getTransactionEncoder().encode(await signTransactionMessageWithSigners(message)));
    const result = submitWire(wire);
    if (!result.ok) throw new TransactionRefused(result.refusal);
    return result.signature;
  };

  function statusDetail(outcome: TransactionOutcome, now: bigint): StatusDetail {
    const finalized = now - outcome.slot >= FINALITY_SLOTS;
    return Object.freeze({
      slot: outcome.slot,
      confirmationStatus: finalized ? "finalized" : "confirmed",
      err: outcome.errText,
      errJson: outcome.err,
      confirmations: finalized ? null : now - outcome.slot,
    });
  }

  function statuses(signatures: readonly Signature[]): readonly (StatusDetail | null)[] {
    const now = slots.currentSlot();
    return signatures.map((signature) => {
      const outcome = executor.outcome(signature);
      return outcome ? statusDetail(outcome, now) : null;
    });
  }

  function signatureStatuses(signatures: readonly Signature[]): (SignatureStatus | null)[] {
    const now = slots.currentSlot();
    return signatures.map((signature) => {
      const outcome = executor.outcome(signature);
      if (!outcome) return null;
      const confirmationStatus = now - outcome.slot >= FINALITY_SLOTS ? "finalized" : "confirmed";
      return { slot: outcome.slot, confirmationStatus, err: outcome.errText };
    });
  }

  function embeddedAccount(target: Address): EmbeddedAccount | null {
    const account = readAccount(svm, target);
    return account ? Object.freeze({ ...account, rentEpoch: rentEpochs.get(target) ?? 0n }) : null;
  }

  function epochInfo(): EpochInfo {
    const slot = slots.currentSlot();
    return Object.freeze({
      absoluteSlot: slot,
      blockHeight: slot,
      epoch: slot / SLOTS_PER_EPOCH,
      slotIndex: slot % SLOTS_PER_EPOCH,
      slotsInEpoch: SLOTS_PER_EPOCH,
      transactionCount: executor.transactionCount(),
    });
  }

  for (const mint of options.mints ?? []) {
    setAccount(mint.address, { lamports: rentExempt(82n), data: encodeMint(mint.decimals, 0n), owner: TOKEN_PROGRAM_ADDRESS });
  }
  const genesisHash = options.genesisHash ?? base58Text(sha256(Uint8Array.from([...new TextEncoder().encode("genesis"), ...seed])));

  return Object.freeze({
    airdrop,
    requestAirdrop: airdrop,
    execute,
    setAccount,
    setTokenAccount,
    getTransaction: (signature: Signature) => executor.record(signature),
    signaturesForAddress: (target: Address, page: SignaturePage) => executor.signaturesForAddress(target, page),
    getBalance: (target: Address) => BigInt(svm.getBalance(target) ?? 0n),
    getTokenAccountBalance: (target: Address) => readTokenBalance(svm, target),
    getSlot: () => slots.currentSlot(),
    getMinimumBalanceForRentExemption: rentExempt,
    readAccount: (target: Address) => readAccount(svm, target),
    readAccountDetail: embeddedAccount,
    // Answered from a JS-side copy, filtered before anything is copied out (see program-account-mirror.ts).
    getProgramAccounts: (program: Address, filters: readonly ProgramAccountFilter[] = []) => programAccounts.read(program, filters),
    subscribeProgramAccounts: subscriptions.subscribe,
    rentEpochOf: (target: Address) => rentEpochs.get(target) ?? 0n,
    latestBlockhash: () => slots.latest(),
    isBlockhashValidNow: (blockhash: string) => slots.isValid(blockhash),
    submit: submitWire,
    subscribeSignature: signatureSubscriptions.subscribe,
    simulate: (wire: Uint8Array, simulateOptions?: SimulateOptions) => executor.simulate(wire, simulateOptions),
    signatureStatuses,
    statuses,
    epochInfo,
    genesisHash: () => genesisHash,
  });
}
