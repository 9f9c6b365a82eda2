import type { Address } from "@solana/kit";
import type { ReasonCode } from "../../domain/reason-codes.ts";
import { checkMintPolicy, DEFAULT_TOKEN_2022_POLICY, type Token2022Policy } from "../../domain/token/mint-policy.ts";
import { transferFeeTermsOf } from "../../domain/token/transfer-fee.ts";
import type { MintReader } from "./mint-reader.ts";

/** What /supported declares of one accepted asset: its token program and the extensions it is accepted with. */
export type AssetPolicy = Readonly<{
  asset: string;
  /** The mint's owner on the ledger; null when the ledger could not be read just now, or no mint is there. */
  tokenProgram: string | null;
  decimals: number | null;
  /** The mint's Token-2022 extensions (empty for SPL Token), each accepted under the policy unless `refusedWith` says otherwise. */
  extensions: readonly string[];
  /** How a transfer fee is handled: `none` (no fee configured), `refuse` (TRANSFER_FEE_NOT_ALLOWED unless 0 for the amount) or `gross-up`. */
  transferFee: "none" | "refuse" | "gross-up";
  /** The reason every payment in this asset is refused right now (a hook, a pause...), or null. */
  refusedWith: ReasonCode | null;
}>;

/**
 * Each accepted asset's declaration, from the same cached mint reads and policy verification uses.
 * A mint that cannot be read is declared unknown rather than failing /supported.
 */
export async function describeAssetPolicies(assets: readonly Address[], mints: MintReader, policy: Token2022Policy = DEFAULT_TOKEN_2022_POLICY): Promise<readonly AssetPolicy[]> {
  return Promise.all(
    assets.map(async (asset): Promise<AssetPolicy> => {
      const mint = await mints.read(asset).catch(() => null);
      if (mint === null) return { asset, tokenProgram: null, decimals: null, extensions: [], transferFee: "none", refusedWith: null };
      const hasFee = transferFeeTermsOf(mint) !== null;
      return {
        asset,
        tokenProgram: mint.tokenProgram,
        decimals: mint.decimals,
        extensions: mint.extensions.map((e) => e.__kind).filter((kind) => kind !== "Uninitialized"),
        transferFee: hasFee ? policy.transferFee : "none",
        // No amounts: the fee rule depends on the amount, the rest do not.
        refusedWith: checkMintPolicy(mint, [], policy)?.reason ?? null,
      };
    }),
  );
}
