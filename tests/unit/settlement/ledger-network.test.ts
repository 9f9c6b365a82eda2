// NETWORK against the ledger's genesis hash: the check the service runs at start-up, and the guard
// recovery asks before each pass. Hand-written fake ledgers (only getGenesisHash answers).
import { describe, expect, test } from "bun:test";
import { checkLedgerNetwork, createNetworkGuard, describeNetworkMismatch } from "../../../src/application/ledger-network.ts";
import { LedgerError } from "../../../src/application/ports/ledger.ts";
import { DEVNET_GENESIS_HASH, SOLANA_DEVNET, SOLANA_MAINNET, networkOfGenesisHash } from "../../../src/domain/networks.ts";

const MAINNET_GENESIS_HASH = "5eykt4UsFv8P8NJdTREpY1vzqKqZKvdpKuc147dw2N9d";

/** A ledger whose genesis hash answers are scripted, one per call (the last one repeats). */
function ledgerAnswering(...answers: readonly (string | Error | "never")[]) {
  let calls = 0;
  return {
    calls: () => calls,
    getGenesisHash(): Promise<string> {
      const answer = answers[Math.min(calls, answers.length - 1)];
      calls += 1;
      if (answer === "never") return new Promise<string>(() => {});
      return answer instanceof Error ? Promise.reject(answer) : Promise.resolve(answer ?? "");
    },
  };
}

describe("the CAIP-2 id a genesis hash names", () => {
  test("solana: and the hash's first 32 characters: devnet's and mainnet's ids", () => {
    expect(networkOfGenesisHash(DEVNET_GENESIS_HASH)).toBe(SOLANA_DEVNET);
    expect(networkOfGenesisHash(MAINNET_GENESIS_HASH)).toBe(SOLANA_MAINNET);
  });
});

describe("checkLedgerNetwork", () => {
  test("matches, or a mismatch naming the ledger's network and genesis hash", async () => {
    expect(await checkLedgerNetwork(ledgerAnswering(DEVNET_GENESIS_HASH), SOLANA_DEVNET)).toEqual({ kind: "matches" });
    const mismatch = await checkLedgerNetwork(ledgerAnswering(MAINNET_GENESIS_HASH), SOLANA_DEVNET);
    expect(mismatch).toEqual({ kind: "mismatch", ledgerNetwork: SOLANA_MAINNET, genesisHash: MAINNET_GENESIS_HASH });
    if (mismatch.kind !== "mismatch") throw new Error("expected a mismatch");
    expect(describeNetworkMismatch(SOLANA_DEVNET, mismatch)).toBe(
      `NETWORK is ${SOLANA_DEVNET}, but the ledger's genesis hash ${MAINNET_GENESIS_HASH} names ${SOLANA_MAINNET}: set NETWORK=${SOLANA_MAINNET}, or point SOLANA_RPC_URL at the ${SOLANA_DEVNET} cluster`,
    );
  });

  test("a ledger error or no answer before the deadline is `unreachable`; anything else is a bug and throws", async () => {
    expect(await checkLedgerNetwork(ledgerAnswering(new LedgerError("unavailable", "getGenesisHash: connection refused")), SOLANA_DEVNET)).toEqual({
      kind: "unreachable",
      error: "getGenesisHash: connection refused",
    });
    const started = performance.now();
    expect(await checkLedgerNetwork(ledgerAnswering("never"), SOLANA_DEVNET, 20)).toEqual({ kind: "unreachable", error: "no answer to getGenesisHash within 20 ms" });
    expect(performance.now() - started).toBeLessThan(1_000);
    await expect(checkLedgerNetwork(ledgerAnswering(new TypeError("bug")), SOLANA_DEVNET)).rejects.toThrow("bug");
  });
});

describe("createNetworkGuard", () => {
  test("asks until the ledger answers, then never again; a mismatch stays a mismatch", async () => {
    const ledger = ledgerAnswering(new LedgerError("unavailable", "down"), DEVNET_GENESIS_HASH);
    const guard = createNetworkGuard(ledger, SOLANA_DEVNET);
    expect((await guard.verify()).kind).toBe("unreachable");
    expect((await guard.verify()).kind).toBe("matches");
    expect((await guard.verify()).kind).toBe("matches");
    expect(ledger.calls()).toBe(2);

    const wrong = ledgerAnswering(MAINNET_GENESIS_HASH, DEVNET_GENESIS_HASH);
    const wrongGuard = createNetworkGuard(wrong, SOLANA_DEVNET);
    expect((await wrongGuard.verify()).kind).toBe("mismatch");
    expect((await wrongGuard.verify()).kind).toBe("mismatch");
    expect(wrong.calls()).toBe(1);
  });

  test("an answer from start-up is kept; an unreachable one is asked again", async () => {
    const ledger = ledgerAnswering(DEVNET_GENESIS_HASH);
    expect((await createNetworkGuard(ledger, SOLANA_DEVNET, { kind: "matches" }).verify()).kind).toBe("matches");
    expect(ledger.calls()).toBe(0);
    expect((await createNetworkGuard(ledger, SOLANA_DEVNET, { kind: "unreachable", error: "down" }).verify()).kind).toBe("matches");
    expect(ledger.calls()).toBe(1);
  });
});
