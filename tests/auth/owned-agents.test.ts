/**
 * The agents of a signed-in user under load: the real ledger agent index over the embedded litesvm
 * ledger (wrapped only to count getProgramAccounts calls and to fail on demand), manual clock.
 */
import { describe, expect, test } from "bun:test";
import { type Address, generateKeyPairSigner } from "@solana/kit";
import { createOwnedAgents } from "../../src/application/auth/owned-agents.ts";
import type { Ledger } from "../../src/application/ports/ledger.ts";
import { silentLogger } from "../../src/application/ports/logger.ts";
import { createLocalLedger } from "../../src/infrastructure/ledger/local-ledger.ts";
import { createAgentIndex } from "../../src/infrastructure/registry/ledger-agent-index.ts";
import { createManualClock } from "../registry/support/manual-clock.ts";
import { PROGRAM_ID } from "../registry/support/registry-fixtures.ts";
import { seedAgent } from "./support/sign-in-client.ts";

function rig() {
  const embedded = createLocalLedger();
  const clock = createManualClock();
  const counts = { ownerReads: 0 };
  let failing = false;
  const ledger: Ledger = {
    ...embedded,
    getProgramAccounts: async (program, filters) => {
      // An owner filter sits at offset 40; the index's full refresh has only the discriminator.
      if ((filters ?? []).some((f) => "memcmp" in f && f.memcmp.offset === 40)) {
        counts.ownerReads += 1;
        if (failing) throw new Error("rpc down");
      }
      return embedded.getProgramAccounts(program, filters);
    },
  };
  const index = createAgentIndex({ ledger, clock, programId: PROGRAM_ID as Address, ttlMs: 30_000, logger: silentLogger });
  const ownedAgents = createOwnedAgents({ index, clock, logger: silentLogger, freshReadsPerSecond: 2 });
  return { embedded, clock, counts, index, ownedAgents, fail: (on: boolean) => void (failing = on) };
}

describe("agents of a signed-in user (embedded ledger, real agent index)", () => {
  test("read from the ledger directly: an agent added after the index's last refresh is listed", async () => {
    const r = rig();
    const owner = (await generateKeyPairSigner()).address;
    await r.index.refresh();
    const mint = await seedAgent(r.embedded, 1, owner);
    expect(await r.ownedAgents(owner)).toEqual([mint]);
    expect(r.counts.ownerReads).toBe(1);
  });

  test("50 concurrent requests for one owner share one ledger read", async () => {
    const r = rig();
    const owner = (await generateKeyPairSigner()).address;
    const mint = await seedAgent(r.embedded, 2, owner);
    const answers = await Promise.all(Array.from({ length: 50 }, () => r.ownedAgents(owner)));
    expect(new Set(answers.map((a) => a.join()))).toEqual(new Set([mint]));
    expect(r.counts.ownerReads).toBe(1);
  });

  test("past the per-second budget of direct reads the index answers (at most one TTL old); the budget refills", async () => {
    const r = rig();
    const owners = await Promise.all(Array.from({ length: 6 }, async () => (await generateKeyPairSigner()).address));
    const mints = await Promise.all(owners.map((owner, i) => seedAgent(r.embedded, 10 + i, owner)));
    await r.index.refresh();
    const late = await seedAgent(r.embedded, 20, owners[5] as Address);
    for (const [i, owner] of owners.entries()) expect(await r.ownedAgents(owner)).toContain(mints[i] as string);
    expect(r.counts.ownerReads).toBe(2);
    // The sixth owner was answered from the index, which has not seen its newest agent yet.
    expect(await r.ownedAgents(owners[5] as Address)).not.toContain(late);
    r.clock.advance(1_000);
    expect(await r.ownedAgents(owners[5] as Address)).toContain(late);
    expect(r.counts.ownerReads).toBe(3);
  });

  test("a failing direct read falls back to the index instead of failing the request", async () => {
    const r = rig();
    const owner = (await generateKeyPairSigner()).address;
    const mint = await seedAgent(r.embedded, 30, owner);
    await r.index.refresh();
    r.fail(true);
    expect(await r.ownedAgents(owner)).toEqual([mint]);
  });
});
