import { anchorAccount, type LayoutValue } from "../registry/anchor-layout.ts";
import { bool, bytes32, bytes64, enumOf, i64, option, pubkey, string, u64, u8 } from "../registry/borsh-codecs.ts";

/** The IDL enum `SettlementMode`, Borsh-encoded as its u8 variant index in this order. */
export const RECEIPT_SETTLEMENT_MODES = ["atomic", "attestation", "delegated"] as const;
export type ReceiptSettlementMode = (typeof RECEIPT_SETTLEMENT_MODES)[number];

/** The registry program's `PaymentReceipt` account, fields in IDL order. */
const paymentReceipt = anchorAccount("PaymentReceipt", {
  paymentId: bytes32, nftMint: pubkey, payer: pubkey, payee: pubkey, amount: u64, feeAmount: u64, tokenMint: pubkey,
  /** The 64 raw bytes of the SPL transfer's transaction signature. */ txSignature: bytes64,
  resource: string, settlementMode: enumOf(RECEIPT_SETTLEMENT_MODES),
  /** The Delegation PDA used, in delegated mode. */ delegation: option(pubkey),
  settled: bool,
  /** Unix seconds. */ createdAt: i64,
  bump: u8,
});
export type PaymentReceipt = LayoutValue<typeof paymentReceipt>;
export const { discriminator: PAYMENT_RECEIPT_DISCRIMINATOR, encode: encodePaymentReceipt, decode: decodePaymentReceipt } = paymentReceipt;
