import {
  fixCodecSize,
  getAddressCodec,
  getBooleanCodec,
  getBytesCodec,
  getConstantCodec,
  getHiddenPrefixCodec,
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
import { decodeAccountData, type DecodeResult } from "../registry/decode-result.ts";

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

let cachedCodec: Codec<PaymentReceipt> | undefined;

/** Discriminator + Borsh fields. Decoding ignores trailing padding (Anchor allocates max size). */
export function getPaymentReceiptCodec(): Codec<PaymentReceipt> {
  cachedCodec ??= getHiddenPrefixCodec(getPaymentReceiptFieldsCodec(), [getConstantCodec(PAYMENT_RECEIPT_DISCRIMINATOR)]);
  return cachedCodec;
}

export function encodePaymentReceipt(receipt: PaymentReceipt): Uint8Array {
  return new Uint8Array(getPaymentReceiptCodec().encode(receipt));
}

export function decodePaymentReceipt(data: ReadonlyUint8Array): DecodeResult<PaymentReceipt> {
  return decodeAccountData(getPaymentReceiptCodec(), PAYMENT_RECEIPT_DISCRIMINATOR, data);
}
