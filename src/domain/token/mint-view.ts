import type { Address } from "@solana/kit";
import { getMintDecoder as getSplMintDecoder, getMintSize, TOKEN_PROGRAM_ADDRESS } from "@solana-program/token";
import { type Extension, getMintDecoder as getToken2022MintDecoder, TOKEN_2022_PROGRAM_ADDRESS } from "@solana-program/token-2022";

export { TOKEN_2022_PROGRAM_ADDRESS, TOKEN_PROGRAM_ADDRESS };

/** The two token programs a payment may move tokens through. */
export type TokenProgram = typeof TOKEN_PROGRAM_ADDRESS | typeof TOKEN_2022_PROGRAM_ADDRESS;

/** A Token-2022 mint extension as kit's Token-2022 codecs decode it. */
export type MintExtension = Extension;

/**
 * A mint as verification reads it: which program owns it (the one the transfer must call), its
 * decimals and, for Token-2022, the extensions after the base mint and the account-type byte.
 */
export type MintView = Readonly<{
  address: Address;
  tokenProgram: TokenProgram;
  decimals: number;
  extensions: readonly MintExtension[];
}>;

const SPL_MINT_SIZE = getMintSize();
/** Built once: a decoder composes many codecs, costing as much as a decode. */
const splMintDecoder = getSplMintDecoder();
const token2022MintDecoder = getToken2022MintDecoder();

/**
 * The mint at `account`, or null when it is not an initialized mint of either token program.
 * SECURITY: the program is the account's owner on the ledger, never what a client names: bytes
 * shaped like a mint mean nothing unless a token program owns them.
 */
export function decodeMintAccount(account: Readonly<{ address: Address; owner: Address; data: Uint8Array }> | null): MintView | null {
  if (account === null) return null;
  try {
    if (account.owner === TOKEN_PROGRAM_ADDRESS) {
      if (account.data.length !== SPL_MINT_SIZE) return null;
      const mint = splMintDecoder.decode(account.data);
      return mint.isInitialized ? Object.freeze({ address: account.address, tokenProgram: TOKEN_PROGRAM_ADDRESS, decimals: mint.decimals, extensions: [] }) : null;
    }
    if (account.owner === TOKEN_2022_PROGRAM_ADDRESS) {
      // A Token-2022 token account (165 bytes and more) is not a mint: its account-type byte says so.
      if (account.data.length !== SPL_MINT_SIZE && account.data[165] !== ACCOUNT_TYPE_MINT) return null;
      const mint = token2022MintDecoder.decode(account.data);
      if (!mint.isInitialized) return null;
      const extensions = mint.extensions.__option === "Some" ? mint.extensions.value : [];
      return Object.freeze({ address: account.address, tokenProgram: TOKEN_2022_PROGRAM_ADDRESS, decimals: mint.decimals, extensions: Object.freeze([...extensions]) });
    }
  } catch {
    // Truncated or unknown extension data: not a mint this facilitator can vouch for.
    return null;
  }
  return null;
}

/** Token-2022's AccountType byte after the padded base state: 1 mint, 2 token account. */
const ACCOUNT_TYPE_MINT = 1;
