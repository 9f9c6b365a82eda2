import type { Address } from "@solana/kit";
import { AccountState, TOKEN_PROGRAM_ADDRESS, getTokenEncoder } from "@solana-program/token";
import type { AccountSnapshot, Ledger, SimulationOutcome } from "../../../src/application/ports/ledger.ts";
import { DEVNET_USDC_MINT } from "../../../src/domain/networks.ts";
import { fakeLedger } from "../../support/fake-ledger.ts";

/** A token account as the funds check reads it; `null` makes the source account missing. */
export type FakeTokenAccount = Readonly<{
  owner: Address;
  amount: bigint;
  mint?: Address;
  delegate?: Address;
  delegatedAmount?: bigint;
  frozen?: boolean;
}> | null;

/**
 * Hand-written fake Ledger for verification tests: the blockhash check, simulation and the
 * funds check's token-account read answer; everything else throws, so a test notices if
 * verification reads anything more.
 */
export type FakeLedger = Ledger &
  Readonly<{
    calls: { simulate: number; blockhash: number; account: number };
    /** What getAccount answers for every address (the source token account). */
    setTokenAccount(account: FakeTokenAccount): void;
    setBlockhashValid(valid: boolean): void;
    setSimulation(outcome: SimulationOutcome | Error): void;
    lastSimulated(): Readonly<{ wire: Uint8Array; sigVerify: boolean | undefined }> | null;
  }>;

/** `owner` is who the funds check sees as the source's owner: the payer, usually. */
export function createFakeLedger(owner: Address | null = null): FakeLedger {
  let tokenAccount: FakeTokenAccount = owner === null ? null : { owner, amount: 1_000_000_000_000n };
  let blockhashValid = true;
  let simulation: SimulationOutcome | Error = { ok: true, unitsConsumed: 6_000n, logs: [] };
  let last: { wire: Uint8Array; sigVerify: boolean | undefined } | null = null;
  const calls = { simulate: 0, blockhash: 0, account: 0 };
  return {
    ...fakeLedger({}, "verification"),
    calls,
    setTokenAccount: (account) => void (tokenAccount = account),
    setBlockhashValid: (valid) => void (blockhashValid = valid),
    setSimulation: (outcome) => void (simulation = outcome),
    lastSimulated: () => last,
    async isBlockhashValid() {
      calls.blockhash++;
      return blockhashValid;
    },
    async getAccount(address: Address) {
      calls.account++;
      return tokenAccount === null ? null : encodeTokenAccount(address, tokenAccount);
    },
    async getMultipleAccounts(addresses: readonly Address[]) {
      calls.account++;
      return addresses.map((address) => (tokenAccount === null ? null : encodeTokenAccount(address, tokenAccount)));
    },
    async simulateTransaction(wire, options) {
      calls.simulate++;
      last = { wire, sigVerify: options?.sigVerify };
      if (simulation instanceof Error) throw simulation;
      return simulation;
    },
    ping: () => Promise.resolve(),
  };
}

function encodeTokenAccount(address: Address, account: NonNullable<FakeTokenAccount>): AccountSnapshot {
  const data = getTokenEncoder().encode({
    mint: account.mint ?? (DEVNET_USDC_MINT as Address),
    owner: account.owner,
    amount: account.amount,
    delegate: account.delegate ?? null,
    state: account.frozen ? AccountState.Frozen : AccountState.Initialized,
    isNative: null,
    delegatedAmount: account.delegatedAmount ?? 0n,
    closeAuthority: null,
  });
  return { address, owner: TOKEN_PROGRAM_ADDRESS, lamports: 2_039_280n, data: new Uint8Array(data), executable: false };
}
