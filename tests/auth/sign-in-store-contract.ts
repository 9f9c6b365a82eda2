import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { SignInStore } from "../../src/application/ports/sign-in-store.ts";
import type { OpenedStore } from "../../src/infrastructure/store/index.ts";
import { createSqlSignInStore } from "../../src/infrastructure/store/sql-auth-store.ts";

export type SignInStoreHarness = Readonly<{
  open(): Promise<OpenedStore>;
  /** Open a second, independent client (another replica) on the same database. */
  replicas: boolean;
}>;

const T0 = Date.parse("2026-03-01T12:00:00.000Z");
let counter = 0;

function challengeFor(address = `Addr${++counter}`, expiresAtMs = T0 + 300_000) {
  const nonce = `${crypto.randomUUID().replaceAll("-", "")}`;
  return { nonce, address, message: `registry.test wants you to sign in\n${address}\nNonce: ${nonce}`, expiresAtMs };
}

/** The SignInStore contract, run against each backend (PGlite, PostgreSQL). */
export function describeSignInStoreContract(name: string, harness: SignInStoreHarness): void {
  describe(`SignInStore contract: ${name}`, () => {
    let a: OpenedStore;
    let b: OpenedStore;
    let store: SignInStore;
    let other: SignInStore;
    beforeAll(async () => {
      a = await harness.open();
      b = harness.replicas ? await harness.open() : a;
      store = createSqlSignInStore(a.executor);
      other = createSqlSignInStore(b.executor);
    });
    afterAll(async () => {
      if (b !== a) await b?.close();
      await a?.close();
    });

    test("a challenge completes once; the user is created with both times equal to the sign-in time", async () => {
      const c = challengeFor();
      await store.saveChallenge(c);
      const user = await store.completeSignIn({ ...c, atMs: T0 + 1_234 });
      expect(user).toEqual({ address: c.address, createdAt: "2026-03-01T12:00:01.234Z", lastSignInAt: "2026-03-01T12:00:01.234Z" });
      expect(await store.completeSignIn({ ...c, atMs: T0 + 2_000 })).toBeNull();
      expect(await other.findUser(c.address)).toEqual(user);
    });

    test("a later sign-in keeps createdAt and moves lastSignInAt", async () => {
      const first = challengeFor();
      const second = challengeFor(first.address);
      await store.saveChallenge(first);
      await store.saveChallenge(second);
      await store.completeSignIn({ ...first, atMs: T0 });
      const again = await store.completeSignIn({ ...second, atMs: T0 + 60_000 });
      expect(again).toEqual({ address: first.address, createdAt: "2026-03-01T12:00:00.000Z", lastSignInAt: "2026-03-01T12:01:00.000Z" });
    });

    test("another message, another address, an unknown nonce or an expired challenge complete nothing and leave the challenge usable", async () => {
      const c = challengeFor();
      await store.saveChallenge(c);
      expect(await store.completeSignIn({ ...c, message: `${c.message} `, atMs: T0 })).toBeNull();
      expect(await store.completeSignIn({ ...c, message: c.message.replace("Nonce", "nonce"), atMs: T0 })).toBeNull();
      expect(await store.completeSignIn({ ...c, address: "Someone", atMs: T0 })).toBeNull();
      expect(await store.completeSignIn({ ...c, nonce: "f".repeat(32), atMs: T0 })).toBeNull();
      expect(await store.completeSignIn({ ...c, atMs: c.expiresAtMs })).toBeNull();
      expect(await store.findUser(c.address)).toBeNull();
      expect(await store.completeSignIn({ ...c, atMs: c.expiresAtMs - 1 })).not.toBeNull();
    });

    test(`20 concurrent completions of one challenge${harness.replicas ? " over two client pools (replicas)" : ""}: exactly one user`, async () => {
      const c = challengeFor();
      await store.saveChallenge(c);
      const results = await Promise.all(Array.from({ length: 20 }, (_, i) => (i % 2 === 0 ? store : other).completeSignIn({ ...c, atMs: T0 })));
      expect(results.filter((r) => r !== null).length).toBe(1);
    });

    test("deleteExpiredChallenges removes what expired before the time, used or not", async () => {
      const base = T0 + 10 * 86_400_000;
      const [old, used, fresh] = [challengeFor(undefined, base - 1), challengeFor(undefined, base - 1), challengeFor(undefined, base + 1)];
      for (const c of [old, used, fresh]) await store.saveChallenge(c);
      await store.completeSignIn({ ...used, atMs: base - 2 });
      const before = (await a.executor.query("SELECT count(*)::int AS n FROM auth_nonces WHERE expires_at < $1::timestamptz", [new Date(base).toISOString()]))[0]?.["n"];
      expect(await store.deleteExpiredChallenges(base)).toBe(Number(before));
      const left = (await a.executor.query("SELECT nonce FROM auth_nonces WHERE nonce = ANY($1::text[])", [`{${old.nonce},${used.nonce},${fresh.nonce}}`])).map((r) => r["nonce"]);
      expect(left).toEqual([fresh.nonce]);
    });

    test("a user nobody signed in as is not found", async () => {
      expect(await store.findUser("NeverSignedIn")).toBeNull();
    });
  });
}
