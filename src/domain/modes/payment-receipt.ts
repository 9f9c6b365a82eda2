import {
  fixCodecSize,
  getAddressCodec,
  getBooleanCodec,
  getBytesCodec,
  getI64Codec,
  getNullableCodec,
  getStructCodec,
  getU64Codec,
  getU8Codec,
  transformCodec,
  type Address,
  type Codec,
  type ReadonlyUint8Array,
} from "@solana/kit";
import { getBorshStringCodec, getBytes32Codec } from "../registry/borsh-codecs.ts";
import { anchorAccountCodec, type DecodeResult } from "../registry/decode-result.ts";

/** `account:PaymentReceipt` discriminator from the registry IDL (sha256 prefix; checked by a test). */
export const PAYMENT_RECEIPT_DISCRIMINATOR: ReadonlyUint8Array = new Uint8Array([168, 198, 209, 4, 60, 235, 126, 109]);

/** The IDL enum `SettlementMode`, Borsh-encoded as its u8 variant index in this order. */
export const RECEIPT_SETTLEMENT_MODES = ["atomic", "attestation", "delegated"] as const;
export type ReceiptSettlementMode = (typeof RECEIPT_SETTLEMENT_MODES)[number];

/** The registry program's `PaymentReceipt` account, fields in IDL order. */
export type PaymentReceipt = Readonly<{
  paymentId: ReadonlyUint8Array;
  nftMint: Address;
  payer: Address;
  payee: Address;
  amount: bigint;
  feeAmount: bigint;
  tokenMint: Address;
  /** The 64 raw bytes of the SPL transfer's transaction signature. */
  txSignature: ReadonlyUint8Array;
  resource: string;
  settlementMode: ReceiptSettlementMode;
  /** The Delegation PDA used, in delegated mode. */
  delegation: Address | null;
  settled: boolean;
  /** Unix seconds. */
  createdAt: bigint;
  bump: number;
}>;

/** u8 variant index <-> mode name. An unknown index fails decoding (the account is malformed). */
export function getReceiptSettlementModeCodec(): Codec<ReceiptSettlementMode> {
  return transformCodec(
    getU8Codec(),
    (mode: ReceiptSettlementMode) => RECEIPT_SETTLEMENT_MODES.indexOf(mode),
    (index: number) => {
      const mode = RECEIPT_SETTLEMENT_MODES[index];
      if (mode === undefined) throw new Error(`unknown SettlementMode variant ${index}`);
      return mode;
    },
  );
}

function getPaymentReceiptFieldsCodec() {
  return getStructCodec([
    ["paymentId", getBytes32Codec()],
    ["nftMint", getAddressCodec()],
    ["payer", getAddressCodec()],
    ["payee", getAddressCodec()],
    ["amount", getU64Codec()],
    ["feeAmount", getU64Codec()],
    ["tokenMint", getAddressCodec()],
    ["txSignature", fixCodecSize(getBytesCodec(), 64)],
    ["resource", getBorshStringCodec()],
    ["settlementMode", getReceiptSettlementModeCodec()],
    ["delegation", getNullableCodec(getAddressCodec())],
    ["settled", getBooleanCodec()],
    ["createdAt", getI64Codec()],
    ["bump", getU8Codec()],
  ]);
}

const account = anchorAccountCodec(PAYMENT_RECEIPT_DISCRIMINATOR, getPaymentReceiptFieldsCodec);

/** Discriminator + Borsh fields. Decoding ignores trailing padding and never throws. */
export const getPaymentReceiptCodec: () => Codec<PaymentReceipt> = account.codec;
export const encodePaymentReceipt: (value: PaymentReceipt) => Uint8Array = account.encode;
export const decodePaymentReceipt: (data: ReadonlyUint8Array) => DecodeResult<PaymentReceipt> = account.decode;
