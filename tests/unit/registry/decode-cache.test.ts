import { describe, expect, test } from "bun:test";
import type { AccountSnapshot } from "../../../src/application/ports/ledger.ts";
import { decodeAgentIdentity, encodeAgentIdentity } from "../../../src/domain/registry/agent-identity.ts";
import { finishNow } from "../../../src/domain/registry/sliced-work.ts";
import { createDecodeCache } from "../../../src/infrastructure/registry/decode-cache.ts";
import { agentIdentity, padded, PROGRAM_ID, testAddress } from "../../registry/support/registry-fixtures.ts";

const account = (n: number, data = padded(encodeAgentIdentity(agentIdentity(n)), 600), owner = PROGRAM_ID): AccountSnapshot => ({
  address: testAddress(9, n),
  owner,
  lamports: 1n,
  data,
  executable: false,
});

describe("decode cache (real agent codec): what a refresh counts as changed", () => {
  test("0 for the same accounts; new, changed, gone and no-longer-decodable accounts each count", () => {
    const cache = createDecodeCache(PROGRAM_ID, decodeAgentIdentity, (address, identity) => ({ address, identity }));
    const refresh = (accounts: AccountSnapshot[]) => finishNow(cache.refresh(accounts));
    const first = refresh([account(1), account(2), account(3)]);
    expect(first.changed).toBe(3);
    const same = refresh([account(3), account(1), account(2)]);
    expect(same.changed).toBe(0);
    expect(same.records.map((r) => r.identity.nftMint)).toEqual([3, 1, 2].map((n) => agentIdentity(n).nftMint));
    expect(same.records[1]).toBe(first.records[0] as (typeof first.records)[number]);

    expect(refresh([account(1), account(2), account(3), account(4)]).changed).toBe(1); // new
    expect(refresh([account(1), account(2, padded(encodeAgentIdentity(agentIdentity(2, { active: false })), 600)), account(3), account(4)]).changed).toBe(1);
    expect(refresh([account(1), account(2, padded(encodeAgentIdentity(agentIdentity(2, { active: false })), 600)), account(3)]).changed).toBe(1); // gone
    const broken = refresh([account(1, new Uint8Array(12)), account(2, padded(encodeAgentIdentity(agentIdentity(2, { active: false })), 600)), account(3)]);
    expect([broken.changed, broken.skipped]).toEqual([1, [testAddress(9, 1)]]);
    const forged = refresh([account(1, undefined, testAddress(8, 1))]);
    expect(forged.changed).toBe(2);
  });

  test("bytes after the fields (Anchor padding) that change are no change: the record is the same", () => {
    const cache = createDecodeCache(PROGRAM_ID, decodeAgentIdentity, (address, identity) => ({ address, identity }));
    const first = finishNow(cache.refresh([account(1)]));
    const dirtyPadding = padded(encodeAgentIdentity(agentIdentity(1)), 600);
    dirtyPadding[599] = 0xff;
    const again = finishNow(cache.refresh([account(1, dirtyPadding)]));
    expect(again.changed).toBe(0);
    expect(again.records[0]).toBe(first.records[0] as (typeof first.records)[number]);
    const shorter = finishNow(cache.refresh([account(1, encodeAgentIdentity(agentIdentity(1)))]));
    expect(shorter.changed).toBe(0);
  });
});

