import { networkOfGenesisHash } from "../domain/networks.ts";
import { type Ledger, isLedgerError } from "./ports/ledger.ts";
import { answerWithin } from "./answer-within.ts";

/**
 * What the ledger says about `NETWORK`: it is that cluster (`matches`), it is another one
 * (`mismatch`, with the network its genesis hash names), or it could not be asked.
 */
export type LedgerNetworkCheck =
  | Readonly<{ kind: "matches" }>
  | Readonly<{ kind: "mismatch"; ledgerNetwork: string; genesisHash: string }>
  | Readonly<{ kind: "unreachable"; error: string }>;

/**
 * Asks the ledger for its genesis hash and compares the CAIP-2 id it names with `network`.
 * Settlement records are tagged with `network` and each reconciler touches only its own
 * network's records, so a service whose ledger is another cluster than `NETWORK` says would
 * tag its records wrongly and reconcile another environment's records against the wrong ledger.
 * With `deadlineMs`, a ledger that has not answered by then counts as unreachable.
 */
export async function checkLedgerNetwork(ledger: Pick<Ledger, "getGenesisHash">, network: string, deadlineMs?: number): Promise<LedgerNetworkCheck> {
  let genesisHash: string;
  try {
    const answer = ledger.getGenesisHash();
    // The call itself goes on until the ledger adapter's own timeout; its answer is not waited for.
    const first = deadlineMs === undefined ? await answer : await answerWithin(answer, deadlineMs, () => null);
    if (first === null) return Object.freeze({ kind: "unreachable", error: `no answer to getGenesisHash within ${deadlineMs} ms` });
    genesisHash = first;
  } catch (error) {
    if (!isLedgerError(error)) throw error;
    return Object.freeze({ kind: "unreachable", error: error.message });
  }
  const ledgerNetwork = networkOfGenesisHash(genesisHash);
  return ledgerNetwork === network ? Object.freeze({ kind: "matches" }) : Object.freeze({ kind: "mismatch", ledgerNetwork, genesisHash });
}

/** The problem to report for a mismatch: names both networks, never a URL. */
export function describeNetworkMismatch(network: string, check: Extract<LedgerNetworkCheck, { kind: "mismatch" }>): string {
  return `NETWORK is ${network}, but the ledger's genesis hash ${check.genesisHash} names ${check.ledgerNetwork}: set NETWORK=${check.ledgerNetwork}, or point SOLANA_RPC_URL at the ${network} cluster`;
}

/**
 * Asks the ledger until it answers, then remembers its answer: `verify()` gives `unreachable`
 * while the ledger cannot be asked, and then for good `matches` or `mismatch` (a configuration
 * error nothing at run time can fix). `known` is an answer already had (the start-up check's).
 */
export function createNetworkGuard(ledger: Pick<Ledger, "getGenesisHash">, network: string, known: LedgerNetworkCheck | null = null): Readonly<{ verify(): Promise<LedgerNetworkCheck> }> {
  let answer: LedgerNetworkCheck | null = known && known.kind !== "unreachable" ? known : null;
  return Object.freeze({
    async verify(): Promise<LedgerNetworkCheck> {
      if (answer !== null) return answer;
      const check = await checkLedgerNetwork(ledger, network);
      if (check.kind !== "unreachable") answer = check;
      return check;
    },
  });
}
