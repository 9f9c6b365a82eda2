import { describe, expect, test } from "bun:test";
import type { Address } from "@solana/kit";
import type { AccountSnapshot } from "../../../src/application/ports/ledger.ts";
import { decodeAgentIdentity, encodeAgentIdentity } from "../../../src/domain/registry/agent-identity.ts";
import { finishNow } from "../../../src/domain/registry/sliced-work.ts";
import { createAccountBaseline, type AccountWrite } from "../../../src/infrastructure/registry/account-baseline.ts";
import { agentIdentity, padded, PROGRAM_ID, testAddress } from "../../registry/support/registry-fixtures.ts";

const bytes = (n: number, overrides: Parameters<typeof agentIdentity>[1] = {}) => padded(encodeAgentIdentity(agentIdentity(n, overrides)), 600);
const account = (n: number, data = bytes(n), owner: Address = PROGRAM_ID): AccountSnapshot => ({ address: testAddress(9, n), owner, lamports: 1n, data, executable: false });
const write = (n: number, slot: bigint, data = bytes(n), extra: Partial<AccountWrite> = {}): AccountWrite => ({ address: testAddress(9, n), owner: PROGRAM_ID, lamports: 1n, data, slot, ...extra });
const mintsOf = (records: readonly { identity: { nftMint: string } }[]) => records.map((r) => r.identity.nftMint);
const mint = (n: number) => agentIdentity(n).nftMint;

function baseline() {
  const b = createAccountBaseline(PROGRAM_ID, decodeAgentIdentity, (address, identity) => ({ address, identity }));
  return {
    b,
    /** A full read that started now (after everything applied so far). */
    read: (accounts: AccountSnapshot[], slot = 0n) => finishNow(b.reconcile(accounts, slot, b.mark())),
    apply: (writes: AccountWrite[]) => finishNow(b.apply(writes)),
  };
}

describe("account baseline (real agent codec): full reads", () => {
  test("the same read twice changes nothing and keeps the records; new, changed, gone, undecodable and forged accounts are changes", () => {
    const { b, read } = baseline();
    const first = read([account(1), account(2), account(3)]);
    expect(mintsOf(first.added)).toEqual([1, 2, 3].map(mint));
    expect(first.stored.map((s) => s.address)).toEqual([1, 2, 3].map((n) => testAddress(9, n)));
    const records = finishNow(b.records());
    const same = read([account(3), account(1), account(2)]);
    expect([same.added.length, same.removed.length, same.stored.length]).toEqual([0, 0, 0]);
    expect(finishNow(b.records()).every((record, i) => record === records[i])).toBe(true);

    expect(mintsOf(read([account(1), account(2), account(3), account(4)]).added)).toEqual([mint(4)]);
    const changed = read([account(1), account(2, bytes(2, { active: false })), account(3), account(4)]);
    expect(mintsOf(changed.added)).toEqual([mint(2)]);
    expect(changed.removed[0]).toBe(records[1] as NonNullable<(typeof records)[1]>);
    const gone = read([account(1), account(2, bytes(2, { active: false })), account(3)]);
    expect([gone.added.length, mintsOf(gone.removed), gone.stored]).toEqual([0, [mint(4)], [{ address: testAddress(9, 4), slot: 0n, data: null }]]);
    const broken = read([account(1, new Uint8Array(12)), account(2, bytes(2, { active: false })), account(3)]);
    expect([mintsOf(broken.removed), broken.skipped]).toEqual([[mint(1)], [testAddress(9, 1)]]);
    const forged = read([account(2, undefined, testAddress(8, 1))]);
    expect([forged.skipped, mintsOf(forged.removed).sort()]).toEqual([[testAddress(9, 2)], [mint(2), mint(3)].sort()]);
    expect(b.size()).toBe(0);
  });

  test("bytes after the fields (Anchor padding) that change are no change: the record is the same", () => {
    const { b, read } = baseline();
    read([account(1)]);
    const [record] = finishNow(b.records());
    const dirtyPadding = bytes(1);
    dirtyPadding[599] = 0xff;
    expect(read([account(1, dirtyPadding)]).stored).toEqual([]);
    expect(read([account(1, encodeAgentIdentity(agentIdentity(1)))]).stored).toEqual([]);
    expect(finishNow(b.records())[0]).toBe(record as NonNullable<typeof record>);
  });

  test("a write pushed after a read began wins over the read, whether the read saw older bytes or no account; states from before it lose", () => {
    const { b, read, apply } = baseline();
    read([account(1), account(2)], 10n);
    // A state from the store or an earlier push, with a slot past the next read's: the read still decides.
    apply([write(2, 900n, bytes(2, { metadataUri: "https://stored.example/2" }))]);
    const since = b.mark();
    apply([write(1, 20n, bytes(1, { metadataUri: "https://newer.example" })), write(3, 20n)]);
    const stale = finishNow(b.reconcile([account(1), account(2)], 15n, since));
    expect(mintsOf(stale.added)).toEqual([mint(2)]);
    expect(finishNow(b.records()).map((r) => r.identity.metadataUri).sort()).toEqual(["https://agents.example/2/card.json", "https://newer.example", agentIdentity(3).metadataUri].sort());
    expect(b.size()).toBe(3);
    // A read that began after those writes decides again.
    const later = read([account(1), account(2)], 25n);
    expect(mintsOf(later.removed).sort()).toEqual([mint(1), mint(3)].sort());
  });
});

describe("account baseline: pushed writes", () => {
  test("an older write than the one known is ignored; the same bytes are no change; a new slot is remembered", () => {
    const { b, apply } = baseline();
    expect(mintsOf(apply([write(1, 5n)]).added)).toEqual([mint(1)]);
    expect(apply([write(1, 4n, bytes(1, { active: false }))]).stored).toEqual([]);
    expect(apply([write(1, 6n)]).stored).toEqual([]);
    expect(apply([write(1, 5n, bytes(1, { active: false }))]).stored).toEqual([]);
    expect(finishNow(b.records())[0]?.identity.active).toBe(true);
    const newer = apply([write(1, 7n, bytes(1, { active: false }))]);
    expect([newer.added[0]?.identity.active, newer.removed[0]?.identity.active]).toEqual([false, true]);
  });

  test("a write without lamports, under another owner, or that does not decode takes the account out", () => {
    const { b, apply } = baseline();
    apply([write(1, 1n), write(2, 1n), write(3, 1n)]);
    const out = apply([write(1, 2n, bytes(1), { lamports: 0n }), write(2, 2n, bytes(2), { owner: testAddress(8, 1) }), write(3, 2n, new Uint8Array(12))]);
    expect(mintsOf(out.removed)).toEqual([mint(1), mint(2), mint(3)]);
    expect(out.skipped).toEqual([testAddress(9, 2), testAddress(9, 3)]);
    expect(out.stored.map((s) => s.data)).toEqual([null, null, null]);
    expect(b.size()).toBe(0);
  });
});

describe("account baseline: a full read written whole (a new writer of the store)", () => {
  test("every account of the read is to be stored, with the bytes its fields took; has() knows exactly the live accounts", () => {
    const { b, read } = baseline();
    read([account(1), account(2), account(3)], 5n);
    const changedBytes = bytes(2, { active: false });
    const whole = finishNow(b.reconcile([account(1), account(2, changedBytes), account(4)], 7n, b.mark(), true));
    expect(mintsOf(whole.added).sort()).toEqual([mint(2), mint(4)].sort());
    const stored = new Map(whole.stored.map((s) => [s.address, s]));
    expect([...stored.keys()].sort()).toEqual([1, 2, 3, 4].map((n) => testAddress(9, n)).sort());
    expect(stored.get(testAddress(9, 3))?.data).toBeNull();
    const unchanged = stored.get(testAddress(9, 1));
    expect(unchanged?.slot).toBe(7n);
    // Only the fields' bytes (the Anchor padding after them is not stored).
    expect(unchanged?.data).toEqual(encodeAgentIdentity(agentIdentity(1)));
    expect([1, 2, 3, 4].map((n) => b.has(testAddress(9, n)))).toEqual([true, true, false, true]);
  });

  test("an account pushed after the read began is not written from the read's (possibly older) bytes", () => {
    const { b, apply } = baseline();
    finishNow(b.reconcile([account(1), account(2)], 5n, b.mark()));
    const since = b.mark();
    apply([write(2, 9n, bytes(2, { active: false }))]);
    const whole = finishNow(b.reconcile([account(1), account(2)], 6n, since, true));
    expect(whole.stored.map((s) => s.address)).toEqual([testAddress(9, 1)]);
  });
});
