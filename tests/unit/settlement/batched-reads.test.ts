import { describe, expect, test } from "bun:test";
import { fakeLedger } from "../../../fixtures/fake-ledger.ts";
import type { Address } from "@solana/kit";
import { type AccountSnapshot, LedgerError } from "../../../src/application/ports/ledger.ts";
import { withBatchedAccountReads } from "../../../src/application/settlement/batched-account-reads.ts";
import { BLOCKHASH_LIFETIME_BLOCKS, createBlockhashWindowReader } from "../../../src/application/settlement/blockhash-window.ts";

/** Hand-written fake Ledger for the pre-signing reads; every call is recorded. */
function recordingLedger(options: Readonly<{ valid?: (blockhash: string) => boolean; down?: () => boolean }> = {}) {
  const calls: { method: string; args: unknown }[] = [];
  let height = 1_000n;
  const check = () => {
    if (options.down?.()) throw new LedgerError("unavailable", "connection refused");
  };
  const ledger = fakeLedger({
    async getMultipleAccounts(addresses) {
      calls.push({ method: "getMultipleAccounts", args: [...addresses] });
      check();
      return addresses.map((address): AccountSnapshot | null =>
        address.startsWith("missing") ? null : { address, owner: "owner" as Address, lamports: BigInt(address.length), data: new Uint8Array(), executable: false },
      );
    },
    async getBlockHeight() {
      calls.push({ method: "getBlockHeight", args: [] });
      check();
      height += 1n;
      return height;
    },
    async isBlockhashValid(blockhash) {
      calls.push({ method: "isBlockhashValid", args: blockhash });
      check();
      return options.valid ? options.valid(blockhash) : true;
    },
  }, "these reads");
  return { ledger, calls, count: (method: string) => calls.filter((c) => c.method === method).length };
}

const addr = (text: string) => text as Address;

describe("funds-check reads of the settlements in flight (withBatchedAccountReads)", () => {
  test("40 concurrent checks are one getMultipleAccounts, each shared account asked once, each caller answered in its own order", async () => {
    const fake = recordingLedger();
    const reads = withBatchedAccountReads(fake.ledger);
    const asked = Array.from({ length: 40 }, (_, i) => [addr(`source-${i}`), addr(`payee-${i % 4}`), addr(i % 10 === 0 ? "missing-x" : `payee-${(i + 1) % 4}`)]);
    const answers = await Promise.all(asked.map((addresses) => reads.getMultipleAccounts(addresses)));
    expect(fake.count("getMultipleAccounts")).toBe(1);
    expect((fake.calls[0]?.args as string[]).length).toBe(40 + 4 + 1);
    answers.forEach((accounts, i) => expect(accounts.map((a) => a?.address ?? null)).toEqual(asked[i]!.map((a) => (a.startsWith("missing") ? null : a))));
  });

  test("more than 100 distinct accounts go out in pages of 100; a ledger error fails every check of the batch", async () => {
    let down = false;
    const fake = recordingLedger({ down: () => down });
    const reads = withBatchedAccountReads(fake.ledger);
    await Promise.all(Array.from({ length: 75 }, (_, i) => reads.getMultipleAccounts([addr(`a-${i}`), addr(`b-${i}`)])));
    expect(fake.calls.map((c) => (c.args as string[]).length)).toEqual([100, 50]);
    down = true;
    const failed = await Promise.allSettled([reads.getAccount(addr("x")), reads.getAccount(addr("y"))]);
    expect(failed.map((r) => (r.status === "rejected" && r.reason instanceof LedgerError ? "LedgerError" : r.status))).toEqual(["LedgerError", "LedgerError"]);
  });
});

describe("blockhash windows of the settlements in flight (createBlockhashWindowReader)", () => {
  test("50 concurrent checks over 3 blockhashes: one height read, one validity read per blockhash, each answered", async () => {
    const fake = recordingLedger({ valid: (blockhash) => blockhash !== "old" });
    const read = createBlockhashWindowReader(fake.ledger);
    const blockhashes = Array.from({ length: 50 }, (_, i) => ["a", "b", "old"][i % 3] ?? "a");
    const windows = await Promise.all(blockhashes.map(read));
    expect(fake.count("getBlockHeight")).toBe(1);
    expect(fake.count("isBlockhashValid")).toBe(3);
    windows.forEach((window, i) =>
      expect(window).toEqual(blockhashes[i] === "old" ? { kind: "expired" } : { kind: "valid", lastValidBlockHeight: 1_001n + BLOCKHASH_LIFETIME_BLOCKS }),
    );
  });

  test("a check that arrives while a read is under way gets a read that starts after it arrived (its height bound stays valid); a ledger outage is `unavailable`", async () => {
    let down = false;
    const fake = recordingLedger({ down: () => down });
    const read = createBlockhashWindowReader(fake.ledger);
    const first = read("a");
    await new Promise((resolve) => setTimeout(resolve, 0));
    const second = read("a");
    expect(await first).toEqual({ kind: "valid", lastValidBlockHeight: 1_001n + BLOCKHASH_LIFETIME_BLOCKS });
    expect(await second).toEqual({ kind: "valid", lastValidBlockHeight: 1_002n + BLOCKHASH_LIFETIME_BLOCKS });
    down = true;
    expect(await read("a")).toEqual({ kind: "unavailable", error: "connection refused" });
  });
});
