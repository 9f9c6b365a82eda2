/**
 * SEED_SAMPLE_AGENTS: writes the sample registry into a fresh embedded ledger, so a new user who
 * runs `npm start` has agents to browse and one to pay (`npm run demo`). Never for a real cluster:
 * the caller refuses the setting without the embedded ledger.
 */
import type { Address } from "@solana/kit";
import type { EmbeddedLedger } from "@x84/embedded-ledger";
import { loadSampleSeed } from "./sample-registry-cache.ts";

/** SOL the payable agent's owner holds, so it looks like (and can act as) a real merchant wallet. */
const MERCHANT_LAMPORTS = 1_000_000_000n;

export type SampleSeedSummary = Readonly<{
  agents: number;
  accounts: number;
  payableAgent: Address;
  merchant: Address;
}>;

type SeedTarget = Pick<EmbeddedLedger, "setAccount" | "setTokenAccount" | "getMinimumBalanceForRentExemption">;

/**
 * Registry accounts owned by the program and rent-exempt, as the program would have created them;
 * the payable agent's owner gets SOL and its USDC associated token account (which an x402 `exact`
 * payment pays into, so it must exist).
 */
export async function seedSampleAgents(
  ledger: SeedTarget,
  options: Readonly<{ programId: Address; usdcMint: Address; /** Where the built accounts are kept between starts (sample-registry-cache.ts). */ cacheFile?: string }>,
): Promise<SampleSeedSummary> {
  const registry = await loadSampleSeed(options.programId, options.usdcMint, options.cacheFile ?? null);
  for (const account of registry.accounts) {
    ledger.setAccount(account.address, {
      lamports: ledger.getMinimumBalanceForRentExemption(BigInt(account.data.length)),
      owner: options.programId,
      data: account.data,
      executable: false,
    });
  }
  const merchant = registry.payable.owner;
  ledger.setAccount(merchant, { lamports: MERCHANT_LAMPORTS });
  await ledger.setTokenAccount(merchant, options.usdcMint, { amount: registry.payable.ownerUsdc ?? 0n });
  return Object.freeze({
    agents: registry.agentCount,
    accounts: registry.accounts.length,
    payableAgent: registry.payable.nftMint,
    merchant,
  });
}
