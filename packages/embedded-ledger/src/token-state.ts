import { address, isNone, none, some, type Address, type Option } from "@solana/kit";
import {
  AccountState,
  getMintDecoder,
  getMintEncoder,
  getTokenDecoder,
  getTokenEncoder,
  getTokenSize,
  TOKEN_PROGRAM_ADDRESS,
  type Token,
} from "@solana-program/token";

export const TOKEN_2022_PROGRAM_ADDRESS = address("TokenzQdBNbLqP5VEhdkAS6EPFLC1PHnBqCXEpPxuEb");
export const TOKEN_ACCOUNT_SIZE = getTokenSize();
/** Bytes of an SPL mint's base state (what `decodeMintDecimals` reads). */
export const MINT_SIZE = 82;

export function isTokenProgram(program: Address): boolean {
  return program === TOKEN_PROGRAM_ADDRESS || program === TOKEN_2022_PROGRAM_ADDRESS;
}

/** Surfpool's `surfnet_setTokenAccount` update. `delegate`/`closeAuthority` take a base58 key, or "null" to clear. */
export type TokenAccountUpdate = Readonly<{
  amount?: bigint;
  delegate?: Address | null;
  delegatedAmount?: bigint;
  state?: "uninitialized" | "initialized" | "frozen";
  closeAuthority?: Address | null;
}>;

const STATES: Readonly<Record<NonNullable<TokenAccountUpdate["state"]>, AccountState>> = {
  uninitialized: AccountState.Uninitialized,
  initialized: AccountState.Initialized,
  frozen: AccountState.Frozen,
};

function optionOf(value: Address | null | undefined, current: Option<Address>): Option<Address> {
  if (value === undefined) return current;
  return value === null ? none() : some(value);
}

/** Token account bytes after applying `update` to `existing` (or to a fresh initialized account). */
export function encodeTokenAccount(
  owner: Address,
  mint: Address,
  update: TokenAccountUpdate,
  existing: Token | null,
): Uint8Array {
  const base: Token = existing ?? {
    mint,
    owner,
    amount: 0n,
    delegate: none(),
    state: AccountState.Initialized,
    isNative: none(),
    delegatedAmount: 0n,
    closeAuthority: none(),
  };
  const delegate = optionOf(update.delegate, base.delegate);
  return new Uint8Array(
    getTokenEncoder().encode({
      mint,
      owner,
      amount: update.amount ?? base.amount,
      delegate,
      state: update.state ? STATES[update.state] : base.state,
      isNative: base.isNative,
      // A cleared delegate cannot keep an allowance (the token program enforces the same).
      delegatedAmount: isNone(delegate) ? 0n : (update.delegatedAmount ?? base.delegatedAmount),
      closeAuthority: optionOf(update.closeAuthority, base.closeAuthority),
    }),
  );
}

export function decodeTokenAccount(data: Uint8Array): Token | null {
  if (data.length < TOKEN_ACCOUNT_SIZE) return null;
  try {
    return getTokenDecoder().decode(data.subarray(0, TOKEN_ACCOUNT_SIZE));
  } catch {
    return null;
  }
}

export function decodeMintDecimals(data: Uint8Array): number | null {
  if (data.length < MINT_SIZE) return null;
  try {
    return getMintDecoder().decode(data.subarray(0, MINT_SIZE)).decimals;
  } catch {
    return null;
  }
}

/** An initialized mint with no mint or freeze authority (USDC's real authorities are Circle's keys). */
export function encodeMint(decimals: number, supply: bigint): Uint8Array {
  return new Uint8Array(
    getMintEncoder().encode({
      mintAuthority: none(),
      supply,
      decimals,
      isInitialized: true,
      freezeAuthority: none(),
    }),
  );
}

/** Raw amount rendered with decimals, as the RPC's `uiAmountString`. */
export function formatUiAmount(amount: bigint, decimals: number): string {
  if (decimals === 0) return amount.toString();
  const text = amount.toString().padStart(decimals + 1, "0");
  const whole = text.slice(0, -decimals);
  const fraction = text.slice(-decimals).replace(/0+$/, "");
  return fraction ? `${whole}.${fraction}` : whole;
}
