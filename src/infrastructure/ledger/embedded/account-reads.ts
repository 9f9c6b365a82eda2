import type { Address, ReadonlyUint8Array } from "@solana/kit";
import type { LiteSVM } from "litesvm";
import type { AccountSnapshot, ProgramAccountFilter } from "../../../application/ports/ledger.ts";
import { decodeMintDecimals, decodeTokenAccount, isTokenProgram } from "./token-state.ts";

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

export function matchesFilters(data: ReadonlyUint8Array, filters: readonly ProgramAccountFilter[]): boolean {
  return filters.every((filter) => {
    if ("dataSize" in filter) return data.length === filter.dataSize;
    const { offset, bytes } = filter.memcmp;
    if (offset < 0 || offset + bytes.length > data.length) return false;
    for (let i = 0; i < bytes.length; i++) if (data[offset + i] !== bytes[i]) return false;
    return true;
  });
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

export type BalanceSnapshot = Readonly<{ lamports: readonly bigint[]; tokens: readonly TokenBalance[] }>;

/** Lamports and token balances of a transaction's static accounts, for `preBalances`/`postBalances`. */
export function snapshotBalances(svm: LiteSVM, accounts: readonly Address[]): BalanceSnapshot {
  const lamports = accounts.map((a) => BigInt(svm.getBalance(a) ?? 0n));
  const tokens: TokenBalance[] = [];
  accounts.forEach((a, index) => {
    const balance = readTokenBalance(svm, a, index);
    if (balance) tokens.push(balance);
  });
  return Object.freeze({ lamports, tokens });
}
