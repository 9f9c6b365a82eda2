/**
 * Expiry with an injected clock: the real auth composition (createAuth: jose, the dev key in a temp
 * DATA_DIR, the SQL sign-in store and shared window counters on in-memory PGlite, the ledger agent
 * index over the embedded litesvm ledger) mounted in createRegistryApp, driven through app.handle.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Address } from "@solana/kit";
import { silentLogger } from "../../src/application/ports/logger.ts";
import { createAuth } from "../../src/composition/auth-composition.ts";
import { createCategoryCatalog, DEFAULT_CATEGORY_NAMES } from "../../src/domain/registry/categories.ts";
import { createRegistryApp } from "../../src/http/registry-app.ts";
import { parseAppConfig } from "../../src/infrastructure/config/app-config.ts";
import { createLocalLedger } from "../../src/infrastructure/ledger/local-ledger.ts";
import { createAgentIndex } from "../../src/infrastructure/registry/ledger-agent-index.ts";
import { type OpenedStore, openStore } from "../../src/infrastructure/store/index.ts";
import { createSqlWindowCounters } from "../../src/infrastructure/store/sql-window-counters.ts";
import { createManualClock } from "../registry/support/manual-clock.ts";
import { PROGRAM_ID } from "../registry/support/registry-fixtures.ts";
import { base58, challenge, generateKeyPairSigner, getMe, post, signText } from "./support/sign-in-client.ts";

const clock = createManualClock(Date.parse("2026-03-01T12:00:00.000Z"));
const dataDir = mkdtempSync(join(tmpdir(), "auth-clock-"));
let store: OpenedStore;
let app: ReturnType<typeof createRegistryApp>;

beforeAll(async () => {
  const parsed = parseAppConfig({ DATA_DIR: dataDir, AUTH_CHALLENGE_TTL_SECONDS: "300", AUTH_TOKEN_TTL_SECONDS: "600", AUTH_CHALLENGE_RATE_LIMIT_PER_MINUTE: "1000" });
  if (!parsed.ok) throw new Error(parsed.errors.join("; "));
  store = await openStore({ inMemory: true });
  const ledger = createLocalLedger();
  const index = createAgentIndex({ ledger, clock, programId: PROGRAM_ID as Address, ttlMs: 30_000, logger: silentLogger });
  const auth = await createAuth(parsed.config, { executor: store.executor, index, counters: createSqlWindowCounters(store.executor, "auth-test"), clock, logger: silentLogger });
  const ok = async () => ({ status: "ok" as const });
  app = createRegistryApp({
    index,
    categories: createCategoryCatalog(DEFAULT_CATEGORY_NAMES),
    logger: silentLogger,
    version: "test",
    health: { ledger: ok, store: ok, signer: ok },
    ...(auth ? { auth } : {}),
  });
}, 30_000);
afterAll(async () => {
  await store?.close();
  rmSync(dataDir, { recursive: true, force: true });
});

async function signedBody(wallet: Awaited<ReturnType<typeof generateKeyPairSigner>>) {
  const { message } = await challenge(app, wallet.address);
  return { address: wallet.address, message, signature: base58(await signText(wallet, message)) };
}

describe("challenge and token lifetimes (manual clock, real composition on PGlite)", () => {
  test("the message carries the clock's time and a 5-minute expiry", async () => {
    const wallet = await generateKeyPairSigner();
    const issued = await challenge(app, wallet.address);
    expect(issued.message).toContain(`Issued At: ${new Date(clock.now()).toISOString()}`);
    expect(issued.expiresAt).toBe(new Date(clock.now() + 300_000).toISOString());
  });

  test("a challenge used just before its expiry works; one used at or after it is refused", async () => {
    const wallet = await generateKeyPairSigner();
    const early = await signedBody(wallet);
    const late = await signedBody(wallet);
    clock.advance(299_999);
    expect((await post(app, "/auth/token", early)).status).toBe(200);
    clock.advance(1);
    const refused = await post(app, "/auth/token", late);
    expect(refused.status).toBe(401);
    expect(String(refused.body["message"])).toContain("expired");
  });

  test("an access token works until exp and is refused from exp on", async () => {
    const wallet = await generateKeyPairSigner();
    const reply = await post(app, "/auth/token", await signedBody(wallet));
    expect(reply.body["expiresIn"]).toBe(600);
    const bearer = `Bearer ${reply.body["accessToken"]}`;
    clock.advance(599_000);
    expect((await getMe(app, bearer)).status).toBe(200);
    clock.advance(1_000);
    expect((await getMe(app, bearer)).status).toBe(401);
  });

  test("expired challenges are deleted by a later challenge (at most once a minute), unexpired ones kept", async () => {
    const wallet = await generateKeyPairSigner();
    await signedBody(wallet);
    clock.advance(301_000);
    const kept = await challenge(app, wallet.address);
    const nonces = (await store.executor.query("SELECT nonce FROM auth_nonces")).map((row) => row["nonce"]);
    expect(nonces).toEqual([kept.nonce]);
  });
});
