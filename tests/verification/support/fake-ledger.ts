import type { Address } from "@solana/kit";
import type { Ledger, SimulationOutcome } from "../../../src/application/ports/ledger.ts";

/**
 * Hand-written fake Ledger for verification tests: only the blockhash check and simulation
 * answer; everything else throws, so a test notices if verification reads anything more.
 */
export type FakeLedger = Ledger &
  Readonly<{
    calls: { simulate: number; blockhash: number };
    setBlockhashValid(valid: boolean): void;
    setSimulation(outcome: SimulationOutcome | Error): void;
    lastSimulated(): Readonly<{ wire: Uint8Array; sigVerify: boolean | undefined }> | null;
  }>;

export function createFakeLedger(): FakeLedger {
  let blockhashValid = true;
  let simulation: SimulationOutcome | Error = { ok: true, unitsConsumed: 6_000n, logs: [] };
  let last: { wire: Uint8Array; sigVerify: boolean | undefined } | null = null;
  const calls = { simulate: 0, blockhash: 0 };
  const unused = (name: string) => () => Promise.reject(new Error(`fake ledger: ${name} is not used by verification`));
  return {
    calls,
    setBlockhashValid: (valid) => void (blockhashValid = valid),
    setSimulation: (outcome) => void (simulation = outcome),
    lastSimulated: () => last,
    getLatestBlockhash: unused("getLatestBlockhash"),
    async isBlockhashValid() {
      calls.blockhash++;
      return blockhashValid;
    },
    getBlockHeight: unused("getBlockHeight"),
    getAccount: unused("getAccount") as (address: Address) => Promise<never>,
    getMultipleAccounts: unused("getMultipleAccounts"),
    getProgramAccounts: unused("getProgramAccounts"),
    async simulateTransaction(wire, options) {
      calls.simulate++;
      last = { wire, sigVerify: options?.sigVerify };
      if (simulation instanceof Error) throw simulation;
      return simulation;
    },
    sendTransaction: unused("sendTransaction"),
    getSignatureStatuses: unused("getSignatureStatuses"),
    ping: () => Promise.resolve(),
  };
}
