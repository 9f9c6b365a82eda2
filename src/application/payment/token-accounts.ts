import type { Address } from "@solana/kit";
import { TOKEN_PROGRAM_ADDRESS } from "@solana-program/token";
import { TOKEN_2022_PROGRAM_ADDRESS } from "@solana-program/token-2022";
import type { TokenAccountView } from "../../domain/modes/token-delegate-check.ts";
import { createAddressCache } from "../../domain/transaction/address-cache.ts";
import type { AccountSnapshot, Ledger } from "../ports/ledger.ts";

/** SPL Token's Account (and Token-2022's base state): 165 bytes, laid out as below. */
const TOKEN_ACCOUNT_SIZE = 165;
/** Token-2022's AccountType byte after the base state: 2 for a token account. */
const ACCOUNT_TYPE_ACCOUNT = 2;
/** Multisig accounts are 355 bytes; both token programs refuse that size as a token account. */
const MULTISIG_SIZE = 355;
/** Byte offsets of spl_token::state::Account (Pack): COption tags are little-endian u32s, 0 or 1. */
const MINT = 0;
const OWNER = 32;
const AMOUNT = 64;
const DELEGATE_TAG = 72;
const DELEGATE = 76;
const STATE = 108;
const IS_NATIVE_TAG = 109;
const DELEGATED_AMOUNT = 121;
const CLOSE_AUTHORITY_TAG = 129;
/** AccountState: 0 uninitialized, 1 initialized, 2 frozen. */
const INITIALIZED = 1;
const FROZEN = 2;
/** Mints, owners and delegates repeat across payments: their base58 is computed once. */
const addresses = createAddressCache(10_000);

/** Token account views by snapshot: `of` decodes each snapshot object once. */
export type TokenAccountViews = Readonly<{ of(account: AccountSnapshot | null): TokenAccountView | null }>;

/**
 * A batched read (batched-account-reads.ts) hands every settlement of a run the same frozen
 * snapshot of a shared account (a payer's source, a payee's account), so with one of these, owned
 * by the composition root, each is decoded once per run, not once per settlement. Weak: a
 * snapshot's view goes with it.
 */
export function createTokenAccountViews(): TokenAccountViews {
  const views = new WeakMap<AccountSnapshot, TokenAccountView | null>();
  return {
    of(account) {
      if (account === null) return null;
      const cached = views.get(account);
      if (cached !== undefined) return cached;
      const view = toTokenAccountView(account);
      views.set(account, view);
      return view;
    },
  };
}

/**
 * The token account at `address` as the delegated checks see it, or null when it is
 * missing, not owned by SPL Token or Token-2022, or not an initialized token account.
 */
export async function readTokenAccount(ledger: Ledger, address: Address): Promise<TokenAccountView | null> {
  return toTokenAccountView(await ledger.getAccount(address));
}

/** One snapshot decoded, without a cache. */
export function toTokenAccountView(account: AccountSnapshot | null): TokenAccountView | null {
  if (account === null) return null;
  // SECURITY: bytes shaped like a token account mean nothing unless a token program owns them.
  // Token-2022 accounts share SPL Token's 165-byte base; their extensions follow it.
  if (account.owner !== TOKEN_PROGRAM_ADDRESS && account.owner !== TOKEN_2022_PROGRAM_ADDRESS) return null;
  if (account.data.length < TOKEN_ACCOUNT_SIZE) return null;
  // SECURITY: as the programs' own unpack: SPL Token's accounts are exactly 165 bytes, and Token-2022
  // never reads a 355-byte account (a multisig's size) as a token account, whatever its byte 165.
  if (account.owner === TOKEN_PROGRAM_ADDRESS && account.data.length !== TOKEN_ACCOUNT_SIZE) return null;
  if (account.data.length === MULTISIG_SIZE) return null;
  // A Token-2022 mint with extensions is as long as an account: its account-type byte tells them apart.
  if (account.data.length > TOKEN_ACCOUNT_SIZE && account.data[TOKEN_ACCOUNT_SIZE] !== ACCOUNT_TYPE_ACCOUNT) return null;
  return decodeTokenAccount(account.address, account.data);
}

/**
 * The base state read field by field (kit's composed decoder, with a BigInt base58 for each key,
 * was 6-7 % of the server's CPU per settlement). As strict as the token program's own unpack: a
 * COption tag other than 0 or 1, or a state past Frozen, is not a token account.
 */
function decodeTokenAccount(address: Address, data: Uint8Array): TokenAccountView | null {
  const state = data[STATE];
  if (state !== INITIALIZED && state !== FROZEN) return null;
  const view = new DataView(data.buffer, data.byteOffset, TOKEN_ACCOUNT_SIZE);
  const delegateTag = view.getUint32(DELEGATE_TAG, true);
  if (delegateTag > 1 || view.getUint32(IS_NATIVE_TAG, true) > 1 || view.getUint32(CLOSE_AUTHORITY_TAG, true) > 1) return null;
  return Object.freeze({
    address,
    mint: addresses.toAddress(data.subarray(MINT, MINT + 32)),
    owner: addresses.toAddress(data.subarray(OWNER, OWNER + 32)),
    amount: view.getBigUint64(AMOUNT, true),
    delegate: delegateTag === 1 ? addresses.toAddress(data.subarray(DELEGATE, DELEGATE + 32)) : null,
    delegatedAmount: view.getBigUint64(DELEGATED_AMOUNT, true),
    frozen: state === FROZEN,
  });
}
