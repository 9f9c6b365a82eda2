import type { Address, Signature } from "@solana/kit";
import type { AccountSnapshot, Ledger, SignatureStatus, TransactionEffects } from "../../../src/application/ports/ledger.ts";
import { fakeLedger } from "../../../fixtures/fake-ledger.ts";

/**
 * Hand-written fake Ledger for the mode checks: accounts, signature statuses and transaction
 * effects the test puts in; every other method throws, so a test notices if the mode checks
 * read anything more.
 */
export type FakeModeLedger = Ledger &
  Readonly<{
    putAccount(address: Address, owner: Address, data: Uint8Array): void;
    putStatus(signature: Signature, status: SignatureStatus): void;
    putTransaction(signature: Signature, effects: TransactionEffects): void;
    reads: Address[];
    /** Signatures whose transaction was read, in order. */
    transactionReads: Signature[];
  }>;

export function createFakeModeLedger(): FakeModeLedger {
  const accounts = new Map<string, AccountSnapshot>();
  const statuses = new Map<string, SignatureStatus>();
  const transactions = new Map<string, TransactionEffects>();
  const reads: Address[] = [];
  const transactionReads: Signature[] = [];
  return {
    ...fakeLedger({}, "the mode checks"),
    reads,
    transactionReads,
    putAccount(address, owner, data) {
      accounts.set(address, Object.freeze({ address, owner, lamports: 1_000_000n, data, executable: false }));
    },
    putStatus(signature, status) {
      statuses.set(signature, status);
    },
    putTransaction(signature, effects) {
      transactions.set(signature, effects);
    },
    async getAccount(address) {
      reads.push(address);
      return accounts.get(address) ?? null;
    },
    async getMultipleAccounts(addresses) {
      reads.push(...addresses);
      return addresses.map((a) => accounts.get(a) ?? null);
    },
    async getSignatureStatuses(signatures) {
      return signatures.map((s) => statuses.get(s) ?? null);
    },
    async getTransactionEffects(signature) {
      transactionReads.push(signature);
      return transactions.get(signature) ?? null;
    },
  };
}
