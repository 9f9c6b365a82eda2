import type { Address, ReadonlyUint8Array } from "@solana/kit";
import type { LiteSVM } from "litesvm";
import type { AccountSnapshot, ProgramAccountFilter } from "./ports.ts";
import { TOKEN_PROGRAM_ADDRESS } from "@solana-program/token";
import { base58Bytes } from "./base58.ts";
import type { RawLiteSvm } from "./litesvm-raw.ts";
import { decodeMintDecimals, decodeTokenAccount, isTokenProgram, MINT_SIZE, TOKEN_2022_PROGRAM_ADDRESS, TOKEN_ACCOUNT_SIZE } from "./token-state.ts";

/** One SPL token balance as the RPC's `preTokenBalances`/`postTokenBalances` report it. */
export type TokenBalance = Readonly<{
  accountIndex: number;
  mint: Address;
  owner: Address;
  programId: Address;
  amount: bigint;
  decimals: number;
}>;

export function readAccount(svm: LiteSVM, address: Address): AccountSnapshot | null {
  const account = svm.getAccount(address);
  if (!account.exists) return null;
  return Object.freeze({
    address,
    owner: account.programAddress,
    lamports: BigInt(account.lamports),
    data: new Uint8Array(account.data),
    executable: account.executable,
  });
}

/** A plain loop, no closure: a listing runs it once per account (100,000 closures were garbage per read). */
export function matchesFilters(data: ReadonlyUint8Array, filters: readonly ProgramAccountFilter[]): boolean {
  for (const filter of filters) {
    if ("dataSize" in filter) {
      if (data.length !== filter.dataSize) return false;
      continue;
    }
    const { offset, bytes } = filter.memcmp;
    if (offset < 0 || offset + bytes.length > data.length) return false;
    for (let i = 0; i < bytes.length; i++) if (data[offset + i] !== bytes[i]) return false;
  }
  return true;
}

export function mintDecimals(svm: LiteSVM, mint: Address): number | null {
  const account = readAccount(svm, mint);
  return account && isTokenProgram(account.owner) ? decodeMintDecimals(account.data) : null;
}

/** Token balance of a token account, or null when `address` is not one. */
export function readTokenBalance(svm: LiteSVM, address: Address, accountIndex = 0): TokenBalance | null {
  const account = readAccount(svm, address);
  if (!account || !isTokenProgram(account.owner)) return null;
  const token = decodeTokenAccount(account.data);
  if (!token) return null;
  const decimals = mintDecimals(svm, token.mint);
  if (decimals === null) return null;
  return Object.freeze({
    accountIndex,
    mint: token.mint,
    owner: token.owner,
    programId: account.owner,
    amount: token.amount,
    decimals,
  });
}

/** Token account bytes and its mint's bytes as they were at one moment, decoded only when asked for. */
type RawTokenState = Readonly<{ accountIndex: number; programId: Address; data: Uint8Array; mint: RawAccount | null }>;
type RawAccount = Readonly<{ owner: Uint8Array; data: Uint8Array }>;

/**
 * Lamports and raw token state of a transaction's static accounts, read through the native
 * litesvm with the key bytes the transaction already carries. Token balances are decoded
 * later (`tokenBalances`), so a send pays for a few native reads and no base58 at all.
 */
export type BalanceSnapshot = Readonly<{ lamports: readonly bigint[]; tokens: readonly RawTokenState[] }>;

const TOKEN_PROGRAM_KEYS: readonly (readonly [Address, Uint8Array])[] = [TOKEN_PROGRAM_ADDRESS, TOKEN_2022_PROGRAM_ADDRESS].map(
  (program) => [program, base58Bytes(program)] as const,
);

function tokenProgramOf(owner: Uint8Array): Address | null {
  for (const [program, key] of TOKEN_PROGRAM_KEYS) {
    if (owner.length === key.length && owner.every((b, i) => b === key[i])) return program;
  }
  return null;
}

/** The decoders read only this prefix (and check the length against it), so history keeps no more. */
function prefix(data: Uint8Array, length: number): Uint8Array {
  return data.length > length ? data.slice(0, length) : data;
}

function rawTokenState(raw: RawLiteSvm, key: Uint8Array, accountIndex: number): RawTokenState | null {
  const account = raw.getAccount(key);
  const programId = account ? tokenProgramOf(account.owner()) : null;
  if (!account || !programId) return null;
  const data = account.data();
  // The mint is the token account's first 32 bytes; a short account never decodes, so it needs none.
  const mint = data.length >= TOKEN_ACCOUNT_SIZE ? raw.getAccount(data.slice(0, 32)) : null;
  return Object.freeze({
    accountIndex,
    programId,
    data: prefix(data, TOKEN_ACCOUNT_SIZE),
    mint: mint ? { owner: mint.owner(), data: prefix(mint.data(), MINT_SIZE) } : null,
  });
}

/** Lamports and token state of `keys` (a transaction's static accounts), for `preBalances`/`postBalances`. */
export function snapshotBalances(raw: RawLiteSvm, keys: readonly Uint8Array[]): BalanceSnapshot {
  const lamports = keys.map((key) => raw.getBalance(key) ?? 0n);
  const tokens: RawTokenState[] = [];
  keys.forEach((key, index) => {
    const state = rawTokenState(raw, key, index);
    if (state) tokens.push(state);
  });
  return Object.freeze({ lamports: Object.freeze(lamports), tokens: Object.freeze(tokens) });
}

/** The token balances a snapshot held, decoded exactly as `readTokenBalance` decodes live accounts. */
export function tokenBalances(snapshot: BalanceSnapshot): readonly TokenBalance[] {
  const balances: TokenBalance[] = [];
  for (const state of snapshot.tokens) {
    const token = decodeTokenAccount(state.data);
    const mint = state.mint;
    if (!token || !mint || !tokenProgramOf(mint.owner)) continue;
    const decimals = decodeMintDecimals(mint.data);
    if (decimals === null) continue;
    balances.push(Object.freeze({ accountIndex: state.accountIndex, mint: token.mint, owner: token.owner, programId: state.programId, amount: token.amount, decimals }));
  }
  return Object.freeze(balances);
}
