import type { Address } from "@solana/kit";

/** An SPL token account as the checks read it: what the funds, self-payment and delegate rules need. */
export type TokenAccountView = Readonly<{
  address: Address;
  mint: Address;
  owner: Address;
  amount: bigint;
  delegate: Address | null;
  delegatedAmount: bigint;
  frozen: boolean;
}>;
