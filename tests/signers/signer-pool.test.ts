import { describe, expect, test } from "bun:test";
import type { Address } from "@solana/kit";
import type { Clock } from "../../src/application/ports/clock.ts";
import type { Signer } from "../../src/application/ports/signer.ts";
import { createSignerPool, summarizeSignerHealth } from "../../src/application/signer-pool.ts";
import { CodedError } from "../../src/domain/coded-error.ts";

/** Hand-written fake satisfying the Signer port: fails while `failing` is true, counts calls. */
type FakeSigner = Signer & { failing: boolean; calls: number; closed: boolean };

function fakeSigner(address: string, kind: Signer["kind"] = "local"): FakeSigner {
  const fake: FakeSigner = {
    address: address as Address,
    kind,
    failing: false,
    calls: 0,
    closed: false,
    async signMessages(messages) {
      fake.calls += 1;
      if (fake.failing) throw new Error(`backend for ${address} is down`);
      return messages.map(() => new Uint8Array(64).fill(1));
    },
    async close() {
      fake.closed = true;
    },
  };
  return fake;
}

/** A clock the test moves by hand. */
function manualClock(start = 1_000_000): Clock & { advance(ms: number): void } {
  let now = start;
  return { now: () => now, advance: (ms) => void (now += ms) };
}

const A = "A1111111111111111111111111111111111111111111";
const B = "B2222222222222222222222222222222222222222222";
const C = "C3333333333333333333333333333333333333333333";
const message = [new Uint8Array([1])];

async function failTimes(pool: ReturnType<typeof createSignerPool>, address: string, times: number) {
  for (let i = 0; i < times; i++) await pool.sign(address, message).catch(() => undefined);
}

describe("signer pool (hand-written fake signers, manual clock)", () => {
  test("advertises every address and resolves only its own", async () => {
    const pool = createSignerPool([fakeSigner(A), fakeSigner(B, "aws-kms")], { clock: manualClock() });
    expect(pool.addresses).toEqual([A, B] as Address[]);
    expect(pool.get(B)?.kind).toBe("aws-kms");
    expect(pool.get(C)).toBeNull();
    await expect(pool.sign(C, message)).rejects.toBeInstanceOf(CodedError);
    await expect(pool.sign(C, message)).rejects.toMatchObject({ code: "SIGNER_UNKNOWN" });
  });

  test("pickHealthy rotates round robin while all are healthy", () => {
    const pool = createSignerPool([fakeSigner(A), fakeSigner(B), fakeSigner(C)], { clock: manualClock() });
    const picks = Array.from({ length: 6 }, () => pool.pickHealthy()?.address);
    expect(picks).toEqual([A, B, C, A, B, C] as Address[]);
  });

  test("repeated failures make a signer unhealthy and pickHealthy skips it", async () => {
    const a = fakeSigner(A);
    const pool = createSignerPool([a, fakeSigner(B)], { clock: manualClock(), failureThreshold: 3 });
    a.failing = true;
    await failTimes(pool, A, 2);
    expect(pool.health().find((h) => h.address === A)).toMatchObject({ healthy: true, consecutiveFailures: 2 });
    await failTimes(pool, A, 1);
    expect(pool.health()).toEqual([
      { address: A as Address, kind: "local", healthy: false, consecutiveFailures: 3 },
      { address: B as Address, kind: "local", healthy: true, consecutiveFailures: 0 },
    ]);
    expect(Array.from({ length: 4 }, () => pool.pickHealthy()?.address)).toEqual([B, B, B, B] as Address[]);
    expect(summarizeSignerHealth(pool.health())).toBe("degraded");
  });

  test("failures through a signer obtained from the pool are recorded too", async () => {
    const a = fakeSigner(A);
    const pool = createSignerPool([a], { clock: manualClock(), failureThreshold: 2 });
    a.failing = true;
    const viaGet = pool.get(A);
    await viaGet?.signMessages(message).catch(() => undefined);
    await pool.pickHealthy()?.signMessages(message).catch(() => undefined);
    expect(pool.health()[0]).toMatchObject({ healthy: false, consecutiveFailures: 2 });
  });

  test("after the cooldown an unhealthy signer is tried again; success restores it, failure re-trips it", async () => {
    const clock = manualClock();
    const a = fakeSigner(A);
    const pool = createSignerPool([a, fakeSigner(B)], { clock, failureThreshold: 2, cooldownMs: 10_000 });
    a.failing = true;
    await failTimes(pool, A, 2);
    clock.advance(9_999);
    expect(pool.health()[0]?.healthy).toBe(false);
    clock.advance(1);
    expect(pool.health()[0]?.healthy).toBe(true);

    await failTimes(pool, A, 1);
    expect(pool.health()[0]).toMatchObject({ healthy: false, consecutiveFailures: 3 });

    clock.advance(10_000);
    a.failing = false;
    await pool.sign(A, message);
    expect(pool.health()[0]).toMatchObject({ healthy: true, consecutiveFailures: 0 });
  });

  test("a success between failures resets the count", async () => {
    const a = fakeSigner(A);
    const pool = createSignerPool([a], { clock: manualClock(), failureThreshold: 2 });
    a.failing = true;
    await failTimes(pool, A, 1);
    a.failing = false;
    await pool.sign(A, message);
    a.failing = true;
    await failTimes(pool, A, 1);
    expect(pool.health()[0]).toMatchObject({ healthy: true, consecutiveFailures: 1 });
  });

  test("when none is healthy, pickHealthy still returns the one that failed longest ago", async () => {
    const clock = manualClock();
    const a = fakeSigner(A);
    const b = fakeSigner(B);
    const pool = createSignerPool([a, b], { clock, failureThreshold: 1, cooldownMs: 60_000 });
    a.failing = true;
    b.failing = true;
    await failTimes(pool, B, 1);
    clock.advance(1_000);
    await failTimes(pool, A, 1);
    expect(pool.pickHealthy()?.address).toBe(B as Address);
    expect(summarizeSignerHealth(pool.health())).toBe("down");
  });

  test("a backend returning malformed signatures counts as a failure", async () => {
    const broken: Signer = {
      address: A as Address,
      kind: "pkcs11",
      signMessages: async () => [new Uint8Array(10)],
    };
    const pool = createSignerPool([broken], { clock: manualClock(), failureThreshold: 1 });
    await expect(pool.sign(A, message)).rejects.toThrow("malformed");
    expect(pool.health()[0]?.healthy).toBe(false);
  });

  test("duplicate addresses are refused; an empty pool picks nothing and is down; close closes all", async () => {
    expect(() => createSignerPool([fakeSigner(A), fakeSigner(A)], { clock: manualClock() })).toThrow("configured twice");
    const empty = createSignerPool([], { clock: manualClock() });
    expect(empty.pickHealthy()).toBeNull();
    expect(summarizeSignerHealth(empty.health())).toBe("down");
    const a = fakeSigner(A);
    const b = fakeSigner(B);
    await createSignerPool([a, b], { clock: manualClock() }).close();
    expect([a.closed, b.closed]).toEqual([true, true]);
  });
});
