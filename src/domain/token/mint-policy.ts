import type { Address } from "@solana/kit";
import { AccountState } from "@solana-program/token-2022";
import { reject, type Rejection } from "../rejection.ts";
import type { MintExtension, MintView } from "./mint-view.ts";
import { certainFee, transferFeeTermsOf } from "./transfer-fee.ts";

/**
 * TOKEN_2022_TRANSFER_FEE and TOKEN_2022_ALLOW_PERMANENT_DELEGATE: how this facilitator accepts
 * Token-2022 mints whose extensions change what a payment does (docs/verification.md).
 */
export type Token2022Policy = Readonly<{
  /** `refuse`: a fee-bearing transfer is refused; `gross-up`: TransferCheckedWithFee whose received amount is the requirement. */
  transferFee: "refuse" | "gross-up";
  /** Mints whose permanent delegate the operator accepts. */
  allowPermanentDelegate: ReadonlySet<string>;
}>;

export const DEFAULT_TOKEN_2022_POLICY: Token2022Policy = Object.freeze({ transferFee: "refuse", allowPermanentDelegate: new Set<string>() });

/** Token-2022 writes an unset OptionalNonZeroPubkey as 32 zero bytes, which reads as this address. */
const UNSET_ADDRESS = "11111111111111111111111111111111";

/**
 * Extensions that change nothing about a plain transfer into the payee's account. Any other
 * extension is handled by a rule below or refused: a mint extension this code does not know is
 * one whose effect on our fee-paid transaction nobody checked.
 */
const NEUTRAL_EXTENSIONS: ReadonlySet<MintExtension["__kind"]> = new Set([
  "Uninitialized",
  "MintCloseAuthority",
  "InterestBearingConfig",
  "ScaledUiAmountConfig",
  "MetadataPointer",
  "TokenMetadata",
  "GroupPointer",
  "TokenGroup",
  "GroupMemberPointer",
  "TokenGroupMember",
  // Confidential transfers are optional beside plain ones: a plain transfer is unaffected.
  "ConfidentialTransferMint",
  "ConfidentialTransferFee",
  "PermissionedBurn",
]);

/** Extensions with a rule of their own in `checkExtension`. */
const RULED_EXTENSIONS: ReadonlySet<MintExtension["__kind"]> = new Set([
  "TransferFeeConfig",
  "TransferHook",
  "PermanentDelegate",
  "NonTransferable",
  "DefaultAccountState",
  "PausableConfig",
  "ConfidentialMintBurn",
]);

/**
 * The extension policy of the mint a payment of `amount` moves: the first extension that makes the
 * payment unsafe for the payee or for our fee payer, or null. SPL Token mints have none.
 * `transfers` are the amounts the transaction moves (the payment, then any protocol fee), each
 * checked for a withheld fee.
 */
export function checkMintPolicy(mint: MintView, transfers: readonly bigint[], policy: Token2022Policy): Rejection | null {
  for (const extension of mint.extensions) {
    const rejection = checkExtension(mint, extension, transfers, policy);
    if (rejection) return rejection;
  }
  return null;
}

function checkExtension(mint: MintView, extension: MintExtension, transfers: readonly bigint[], policy: Token2022Policy): Rejection | null {
  const kind = extension.__kind;
  if (NEUTRAL_EXTENSIONS.has(kind)) return null;
  if (!RULED_EXTENSIONS.has(kind)) {
    // SECURITY: an account-level or unknown extension inside a mint is not a mint we can vouch for.
    return reject("UNSUPPORTED_ASSET", `mint ${mint.address} carries the ${kind} extension, which this facilitator does not accept`);
  }
  switch (extension.__kind) {
    case "TransferHook":
      // SECURITY: a hook runs an arbitrary program inside the transaction our key pays for and signs.
      return extension.programId === UNSET_ADDRESS
        ? null
        : reject("TRANSFER_HOOK_NOT_ALLOWED", `mint ${mint.address} runs transfer-hook program ${extension.programId} on every transfer`);
    case "PermanentDelegate":
      // SECURITY: the delegate can move the payee's tokens at any time after they are received.
      return extension.delegate === UNSET_ADDRESS || policy.allowPermanentDelegate.has(mint.address)
        ? null
        : reject("PERMANENT_DELEGATE_NOT_ALLOWED", `mint ${mint.address} has permanent delegate ${extension.delegate}, who can move the payee's tokens; it is not in TOKEN_2022_ALLOW_PERMANENT_DELEGATE`);
    case "NonTransferable":
      return reject("MINT_NOT_TRANSFERABLE", `mint ${mint.address} is non-transferable`);
    case "PausableConfig":
      return extension.paused ? reject("MINT_NOT_TRANSFERABLE", `mint ${mint.address} is paused: no transfer can land`) : null;
    case "DefaultAccountState":
      return extension.state === AccountState.Frozen
        ? reject("MINT_NOT_TRANSFERABLE", `mint ${mint.address} freezes every new token account until its issuer thaws it`)
        : null;
    case "ConfidentialMintBurn":
      // Its supply is minted and burned confidentially only: no plain balance exists to transfer.
      return reject("MINT_NOT_TRANSFERABLE", `mint ${mint.address} is confidential-only: a plain TransferChecked cannot move it`);
    case "TransferFeeConfig":
      return checkTransferFee(mint, transfers, policy);
    default:
      return null;
  }
}

/**
 * SECURITY: with a transfer fee the payee receives less than `amount`. Refused unless the fee on
 * every amount moved is certainly 0, or the operator chose gross-up (then the transaction must be
 * TransferCheckedWithFee whose received amount is the requirement: verify-transaction.ts).
 */
function checkTransferFee(mint: MintView, transfers: readonly bigint[], policy: Token2022Policy): Rejection | null {
  if (policy.transferFee === "gross-up") return null;
  const terms = transferFeeTermsOf(mint);
  for (const amount of transfers) {
    const fee = certainFee(terms, amount);
    if (fee !== 0n) {
      const what = fee === null ? "a fee that changes with the epoch" : `a fee of ${fee}`;
      return reject("TRANSFER_FEE_NOT_ALLOWED", `mint ${mint.address} withholds ${what} on a transfer of ${amount}, so the payee would receive less than the amount`);
    }
  }
  return null;
}

/** Parses TOKEN_2022_ALLOW_PERMANENT_DELEGATE: comma-separated mint addresses. */
export function parseAllowedDelegateMints(text: string): ReadonlySet<Address> {
  return new Set(text.split(",").map((part) => part.trim()).filter((part) => part.length > 0) as Address[]);
}
