import { describe, expect, test } from "bun:test";
import type { Address } from "@solana/kit";
import { getMintEncoder as getSplMintEncoder, TOKEN_PROGRAM_ADDRESS } from "@solana-program/token";
import { extension, getMintEncoder, TOKEN_2022_PROGRAM_ADDRESS } from "@solana-program/token-2022";
import { createMintReader } from "../../../src/application/payment/mint-reader.ts";
import type { AccountSnapshot } from "../../../src/application/ports/ledger.ts";
import { fakeLedger } from "../../../fixtures/fake-ledger.ts";

const SPL = "4zMMC9srt5Ri5X14GAgXhaHii3GnPAEERYPJgZJDncDU" as Address;
const T22 = "9ijBxK1bMz1FNfGwQ4yFcD9vBrCzdHZFjCZkmsdXnZfq" as Address;
const MISSING = "BPFLoaderUpgradeab1e11111111111111111111111" as Address;

function accounts(paused: () => boolean): Record<string, AccountSnapshot> {
  return {
    [SPL]: { address: SPL, owner: TOKEN_PROGRAM_ADDRESS, lamports: 1n, executable: false, data: new Uint8Array(getSplMintEncoder().encode({ mintAuthority: null, supply: 0n, decimals: 6, isInitialized: true, freezeAuthority: null })) },
    get [T22]() {
      const data = getMintEncoder().encode({ mintAuthority: null, supply: 0n, decimals: 6, isInitialized: true, freezeAuthority: null, extensions: [extension("PausableConfig", { authority: null, paused: paused() })] });
      return { address: T22, owner: TOKEN_2022_PROGRAM_ADDRESS, lamports: 1n, executable: false, data: new Uint8Array(data) };
    },
  };
}

describe("the mint reader's cache (pure, fake ledger)", () => {
  test("an SPL Token mint is read once per process; a Token-2022 mint again after its TTL; a missing one every time", async () => {
    let now = 0;
    let paused = false;
    const reads: Address[] = [];
    const table = accounts(() => paused);
    const ledger = fakeLedger({ getAccount: async (address) => (reads.push(address), table[address] ?? null) }, "the mint reader");
    const mints = createMintReader(ledger, { clock: { now: () => now }, ttlMs: 1_000 });

    const [a, b] = await Promise.all([mints.read(SPL), mints.read(SPL)]);
    expect(a).toBe(b);
    now += 10_000_000;
    await mints.read(SPL);
    expect(reads.filter((r) => r === SPL)).toHaveLength(1);

    expect((await mints.read(T22))?.extensions).toEqual([{ __kind: "PausableConfig", authority: { __option: "None" }, paused: false }]);
    paused = true;
    now += 999;
    expect((await mints.read(T22))?.extensions[0]).toMatchObject({ paused: false });
    now += 2;
    expect((await mints.read(T22))?.extensions[0]).toMatchObject({ paused: true });
    expect(reads.filter((r) => r === T22)).toHaveLength(2);

    expect(await mints.read(MISSING)).toBeNull();
    expect(await mints.read(MISSING)).toBeNull();
    expect(reads.filter((r) => r === MISSING)).toHaveLength(2);
  });

  test("a failed read is not kept: the next request reads again", async () => {
    let fail = true;
    const table = accounts(() => false);
    const ledger = fakeLedger({ getAccount: async (address) => { if (fail) throw new Error("ledger down"); return table[address] ?? null; } }, "the mint reader");
    const mints = createMintReader(ledger);
    await expect(mints.read(SPL)).rejects.toThrow("ledger down");
    fail = false;
    expect(await mints.read(SPL)).toMatchObject({ tokenProgram: TOKEN_PROGRAM_ADDRESS, decimals: 6 });
  });
});
