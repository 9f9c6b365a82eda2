import type { Address } from "@solana/kit";
import type { AtaDeriver } from "../../domain/payment/associated-token-account.ts";
import type { MinimumAmounts } from "../../domain/verification/minimum-amount.ts";
import type { ProtocolFeeSplit } from "../../domain/verification/protocol-fee.ts";
import type { VerificationKeyCache } from "../../domain/verification/signature-checks.ts";
import type { VerificationPolicy } from "../../domain/verification/verification-policy.ts";
import type { Clock } from "../ports/clock.ts";
import type { Ledger } from "../ports/ledger.ts";
import type { PayToPolicy } from "../ports/pay-to-policy.ts";
import type { PayerPaymentId } from "../ports/settlement-store.ts";
import type { TokenAccountViews } from "./token-accounts.ts";
import type { BlockhashCheck } from "./shared-blockhash-check.ts";
import type { MintReader } from "./mint-reader.ts";
import type { Token2022Policy } from "../../domain/token/mint-policy.ts";

/** Everything the payment pipeline reads, for every kind of payment (standard and each mode). */
export type PaymentDeps = Readonly<{
  ledger: Ledger;
  /** The facilitator's fee-payer addresses, read per request so a signer pool can change. */
  feePayers: () => readonly Address[];
  policy: VerificationPolicy;
  /** The one supported CAIP-2 network. */
  network: string;
  /** Every accepted asset (USDC_MINT); the first is the one a development ledger funds. */
  assets: readonly Address[];
  /** Decimals of the accepted assets (6, USDC), for the modes; a standard payment uses its mint's own. */
  assetDecimals: number;
  /** Each asset's mint as the ledger has it (token program, decimals, Token-2022 extensions), cached. */
  mints: MintReader;
  /** TOKEN_2022_TRANSFER_FEE and TOKEN_2022_ALLOW_PERMANENT_DELEGATE; absent: refuse fees, allow no permanent delegate. */
  token2022?: Token2022Policy;
  /** VERIFY_SIMULATE: /verify's blockhash check and simulation (/settle always simulates). */
  simulate: boolean;
  /** PROTOCOL_FEE_TREASURY and PROTOCOL_FEE_BPS: admits the x84 client's two-transfer payment. */
  protocolFee: ProtocolFeeSplit | null;
  /** MIN_PAYMENT_AMOUNT per asset; absent means any non-zero amount. */
  minimumAmounts?: MinimumAmounts;
  /** PAYTO_POLICY other than `any`; absent means every payTo is accepted. */
  payToPolicy?: PayToPolicy;
  /** True when this transaction (settlement key), or this payer's paymentId, was already settled. */
  settledLookup?: (key: string, paymentId: PayerPaymentId | null) => Promise<boolean>;
  /** The registry program (REGISTRY_PROGRAM_ID), whose accounts the settlement modes read. */
  programId: Address;
  clock: Clock;
  /** Per-process caches (`createVerificationCaches`): a fresh one per request would redo every ATA, key import and decode. */
  atas: AtaDeriver;
  verificationKeys: VerificationKeyCache;
  tokenViews: TokenAccountViews;
  /** Blockhash validity shared by concurrent verifications. */
  blockhashCheck: BlockhashCheck;
}>;
