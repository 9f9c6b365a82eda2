import { describe, expect, test } from "bun:test";
import { withUserCache } from "../../../src/application/auth/cached-users.ts";
import type { SignInStore, UserRecord } from "../../../src/application/ports/sign-in-store.ts";
import { createManualClock } from "../../registry/support/manual-clock.ts";

/** A hand-written in-memory sign-in store (mock) that counts user reads. */
function fakeStore() {
  const users = new Map<string, UserRecord>();
  const reads: string[] = [];
  const store: SignInStore = {
    saveChallenge: async () => {},
    completeSignIn: async (attempt) => {
      const user = { address: attempt.address, createdAt: users.get(attempt.address)?.createdAt ?? new Date(attempt.atMs).toISOString(), lastSignInAt: new Date(attempt.atMs).toISOString() };
      users.set(attempt.address, user);
      return user;
    },
    findUser: async (address) => {
      reads.push(address);
      await Promise.resolve();
      return users.get(address) ?? null;
    },
    deleteExpiredChallenges: async () => 0,
  };
  return { store, users, reads };
}

const attempt = (address: string, atMs: number) => ({ nonce: "n", address, message: "m", atMs });

describe("user lookups kept in memory for a few seconds (GET /users/me)", () => {
  test("a user found is served from memory until the TTL, then read again", async () => {
    const clock = createManualClock();
    const { store, users, reads } = fakeStore();
    users.set("a", { address: "a", createdAt: "2025-01-01T00:00:00.000Z", lastSignInAt: "2025-01-01T00:00:00.000Z" });
    const cached = withUserCache(store, { clock, ttlMs: 5_000 });
    await cached.findUser("a");
    await cached.findUser("a");
    clock.advance(4_999);
    expect((await cached.findUser("a"))?.address).toBe("a");
    expect(reads).toEqual(["a"]);
    clock.advance(1);
    await cached.findUser("a");
    expect(reads).toEqual(["a", "a"]);
  });

  test("a sign-in through this process shows at once; an unknown user is never cached; concurrent lookups share one read", async () => {
    const clock = createManualClock();
    const { store, reads } = fakeStore();
    const cached = withUserCache(store, { clock });
    expect(await cached.findUser("b")).toBeNull();
    await cached.completeSignIn(attempt("b", clock.now()));
    expect((await cached.findUser("b"))?.lastSignInAt).toBe(new Date(clock.now()).toISOString());
    expect(reads).toEqual(["b"]);
    clock.advance(60_000);
    const all = await Promise.all(Array.from({ length: 20 }, () => cached.findUser("b")));
    expect(all.every((u) => u?.address === "b")).toBe(true);
    expect(reads).toEqual(["b", "b"]);
    clock.advance(1_000);
    await cached.completeSignIn(attempt("b", clock.now()));
    expect((await cached.findUser("b"))?.lastSignInAt).toBe(new Date(clock.now()).toISOString());
  });

  test("at most maxUsers are kept: the oldest entry goes first", async () => {
    const clock = createManualClock();
    const { store, users, reads } = fakeStore();
    for (const a of ["x", "y", "z"]) users.set(a, { address: a, createdAt: "c", lastSignInAt: "l" });
    const cached = withUserCache(store, { clock, maxUsers: 2 });
    for (const a of ["x", "y", "z", "y", "x"]) await cached.findUser(a);
    expect(reads).toEqual(["x", "y", "z", "x"]);
  });
});
