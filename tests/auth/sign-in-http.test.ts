/**
 * Sign-In With Solana and GET /users/me through the whole service (buildService: embedded litesvm
 * ledger, PGlite, the jose token service, the dev signing key in DATA_DIR), called with
 * `registryApp.handle`. Wallet keys and signatures are real ed25519 from @solana/kit.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { type TestService, startService } from "../settlement/support/service-harness.ts";
import { parseSignInMessage } from "../../src/domain/auth/sign-in-message.ts";
import {
  accessTokenFor,
  base58,
  base64,
  challenge,
  generateKeyPairSigner,
  getMe,
  post,
  seedAgent,
  signText,
} from "./support/sign-in-client.ts";

let service: TestService;
beforeAll(async () => {
  // app.handle has no socket, so every request shares one client address; the limit is tested below.
  service = await startService({ AUTH_CHALLENGE_RATE_LIMIT_PER_MINUTE: "100000", AUTH_DOMAIN: "registry.example:8443", AUTH_URI: "https://registry.example:8443" });
}, 30_000);
afterAll(async () => {
  await service?.dispose();
});

const app = () => service.registryApp;

describe("sign-in happy path (real service: embedded ledger, PGlite, jose EdDSA)", () => {
  test("challenge -> ed25519 signature -> token -> /users/me lists the agents the address owns", async () => {
    const wallet = await generateKeyPairSigner();
    const ledger = service.embeddedLedger;
    if (!ledger) throw new Error("embedded ledger expected");
    const mints = [await seedAgent(ledger, 901, wallet.address), await seedAgent(ledger, 902, wallet.address)];
    await seedAgent(ledger, 903, (await generateKeyPairSigner()).address);

    const issued = await challenge(app(), wallet.address);
    const fields = parseSignInMessage(issued.message);
    expect(fields).toMatchObject({
      domain: "registry.example:8443",
      address: wallet.address,
      uri: "https://registry.example:8443",
      version: "1",
      chainId: "devnet",
      nonce: issued.nonce,
      expirationTime: issued.expiresAt,
    });
    expect(issued.nonce).toMatch(/^[0-9a-f]{32}$/);
    expect(Date.parse(issued.expiresAt) - Date.parse(fields?.issuedAt ?? "")).toBe(300_000);

    const token = await post(app(), "/auth/token", { address: wallet.address, message: issued.message, signature: base58(await signText(wallet, issued.message)) });
    expect(token.status).toBe(200);
    expect(token.body).toMatchObject({ tokenType: "Bearer", expiresIn: 3600 });
    expect(token.headers.get("cache-control")).toBe("no-store");
    const [header, payload] = String(token.body["accessToken"]).split(".").slice(0, 2).map((part) => JSON.parse(Buffer.from(part, "base64url").toString()) as Record<string, unknown>);
    expect(header).toMatchObject({ alg: "EdDSA", typ: "JWT" });
    expect(typeof header?.["kid"]).toBe("string");
    expect(payload).toMatchObject({ sub: wallet.address, iss: "https://registry.example:8443", aud: "https://registry.example:8443" });
    expect(Number(payload?.["exp"]) - Number(payload?.["iat"])).toBe(3600);

    // The index applies the ledger's writes in batches of 100 ms: the seeded agents may be that far behind.
    let me = await getMe(app(), `Bearer ${token.body["accessToken"]}`);
    for (let i = 0; i < 100 && (me.body["agents"] as string[]).length < mints.length; i++) {
      await new Promise((resolve) => setTimeout(resolve, 10));
      me = await getMe(app(), `Bearer ${token.body["accessToken"]}`);
    }
    expect(me.status).toBe(200);
    expect(me.body["address"]).toBe(wallet.address);
    expect([...(me.body["agents"] as string[])].sort()).toEqual([...mints].sort());
    expect(me.body["createdAt"]).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
    expect(me.body["lastSignInAt"]).toBe(me.body["createdAt"]);
  });

  test("an agent registered after sign-in shows within a second (the index follows the ledger's writes, not the 30 s cache)", async () => {
    const wallet = await generateKeyPairSigner();
    const token = await accessTokenFor(app(), wallet);
    expect((await getMe(app(), `Bearer ${token}`)).body["agents"]).toEqual([]);
    const mint = await seedAgent(service.embeddedLedger!, 904, wallet.address);
    const started = performance.now();
    let agents: unknown = [];
    while (performance.now() - started < 2_000 && JSON.stringify(agents) !== JSON.stringify([mint])) {
      agents = (await getMe(app(), `Bearer ${token}`)).body["agents"];
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    expect(agents).toEqual([mint]);
    expect(performance.now() - started).toBeLessThan(1_000);
  });

  test("a second sign-in keeps createdAt and moves lastSignInAt", async () => {
    const wallet = await generateKeyPairSigner();
    const first = (await getMe(app(), `Bearer ${await accessTokenFor(app(), wallet)}`)).body;
    await Bun.sleep(5);
    const second = (await getMe(app(), `Bearer ${await accessTokenFor(app(), wallet)}`)).body;
    expect(second["createdAt"]).toBe(first["createdAt"]);
    expect(Date.parse(String(second["lastSignInAt"]))).toBeGreaterThan(Date.parse(String(first["lastSignInAt"])));
  });

  test("the signature may be base58, base64 or base64url", async () => {
    const wallet = await generateKeyPairSigner();
    for (const encode of [base58, base64, (b: Uint8Array) => Buffer.from(b).toString("base64url"), (b: Uint8Array) => base64(b).replace(/=+$/, "")]) {
      const { message } = await challenge(app(), wallet.address);
      const reply = await post(app(), "/auth/token", { address: wallet.address, message, signature: encode(await signText(wallet, message)) });
      expect(reply.status).toBe(200);
    }
  });

  test("a hostile Host header does not change the domain or URI in the message", async () => {
    const wallet = await generateKeyPairSigner();
    const reply = await service.registryApp.handle(
      new Request("http://evil.example/auth/challenge", {
        method: "POST",
        headers: { "content-type": "application/json", host: "evil.example", "x-forwarded-host": "evil.example" },
        body: JSON.stringify({ address: wallet.address }),
      }),
    );
    const { message } = (await reply.json()) as { message: string };
    expect(message).toStartWith("registry.example:8443 wants you to sign in with your Solana account:\n");
    expect(message).not.toContain("evil");
  });
});

describe("browsers on another origin (bearer header, no cookies)", () => {
  test("preflights for POST /auth/* and GET /users/me with Authorization are allowed for AUTH_URI's origin, which the responses echo", async () => {
    for (const [path, method, headers] of [["/auth/challenge", "POST", "content-type"], ["/auth/token", "POST", "content-type"], ["/users/me", "GET", "authorization"]] as const) {
      const preflight = await app().handle(
        new Request(`http://registry.test${path}`, {
          method: "OPTIONS",
          headers: { origin: "https://registry.example:8443", "access-control-request-method": method, "access-control-request-headers": headers },
        }),
      );
      expect(preflight.status).toBe(204);
      expect(preflight.headers.get("access-control-allow-methods")).toContain(method);
      expect(preflight.headers.get("access-control-allow-headers")).toBe(headers);
      expect(preflight.headers.get("access-control-allow-origin")).toBe("https://registry.example:8443");
    }
    const wallet = await generateKeyPairSigner();
    const reply = await post(app(), "/auth/challenge", { address: wallet.address }, { origin: "https://registry.example:8443" });
    expect(reply.headers.get("access-control-allow-origin")).toBe("https://registry.example:8443");
    expect(reply.headers.get("vary")).toContain("Origin");
  });

  test("SECURITY: another origin's preflight and request get a 403 and no allow-origin (it would spend its visitors' quota)", async () => {
    const preflight = await app().handle(
      new Request("http://registry.test/auth/challenge", { method: "OPTIONS", headers: { origin: "https://dapp.example", "access-control-request-method": "POST" } }),
    );
    expect(preflight.status).toBe(403);
    expect(preflight.headers.get("access-control-allow-origin")).toBeNull();
    const wallet = await generateKeyPairSigner();
    const reply = await post(app(), "/auth/challenge", { address: wallet.address }, { origin: "https://dapp.example" });
    expect(reply.status).toBe(403);
    expect(reply.headers.get("access-control-allow-origin")).toBeNull();
  });
});

describe("malformed requests are 400 in the error shape, never 422", () => {
  test("/auth/challenge: a missing, non-base58 or too long address", async () => {
    for (const body of [{}, { address: "not-an-address" }, { address: "0".repeat(44) }, { address: "1".repeat(100) }, { address: 42 }, []]) {
      const reply = await post(app(), "/auth/challenge", body);
      expect(reply.status).toBe(400);
      expect(reply.body).toMatchObject({ statusCode: 400, error: "Bad Request" });
    }
  });

  test("/auth/token: missing fields, a bad address, a signature that is not 64 bytes", async () => {
    const wallet = await generateKeyPairSigner();
    const { message } = await challenge(app(), wallet.address);
    const bodies = [
      {},
      { address: wallet.address, message },
      { address: "nope", message, signature: base58(new Uint8Array(64)) },
      { address: wallet.address, message, signature: "not a signature" },
      { address: wallet.address, message, signature: base58(new Uint8Array(63).fill(1)) },
      { address: wallet.address, message: "x".repeat(3000), signature: base58(new Uint8Array(64).fill(1)) },
    ];
    for (const body of bodies) {
      const reply = await post(app(), "/auth/token", body);
      expect(reply.status).toBe(400);
      expect(reply.body).toMatchObject({ statusCode: 400, error: "Bad Request" });
    }
    // None of them used the challenge.
    expect((await post(app(), "/auth/token", { address: wallet.address, message, signature: base58(await signText(wallet, message)) })).status).toBe(200);
  });
});

describe("adversarial sign-in attempts (real service) are 401", () => {
  test("a nonce is used once: the same signed challenge a second time is refused", async () => {
    const wallet = await generateKeyPairSigner();
    const { message } = await challenge(app(), wallet.address);
    const body = { address: wallet.address, message, signature: base58(await signText(wallet, message)) };
    expect((await post(app(), "/auth/token", body)).status).toBe(200);
    const replay = await post(app(), "/auth/token", body);
    expect(replay.status).toBe(401);
    expect(replay.body).toMatchObject({ statusCode: 401, error: "Unauthorized" });
    expect(String(replay.body["message"])).toContain("already used");
  });

  test("20 concurrent token requests with one signed challenge give exactly one token", async () => {
    const wallet = await generateKeyPairSigner();
    const { message } = await challenge(app(), wallet.address);
    const body = { address: wallet.address, message, signature: base58(await signText(wallet, message)) };
    const replies = await Promise.all(Array.from({ length: 20 }, () => post(app(), "/auth/token", body)));
    expect(replies.filter((r) => r.status === 200).length).toBe(1);
    expect(replies.filter((r) => r.status === 401).length).toBe(19);
  });

  test("a message altered by one byte: its original signature does not verify", async () => {
    const wallet = await generateKeyPairSigner();
    const { message } = await challenge(app(), wallet.address);
    const signature = base58(await signText(wallet, message));
    const altered = message.replace("Version: 1", "Version: 2");
    const lastDigit = message.replace(/(\d)Z$/, (_, d: string) => `${(Number(d) + 1) % 10}Z`);
    for (const text of [altered, lastDigit, `${message}\n`, message.replace("agent registry", "agent registrY")]) {
      expect(text).not.toBe(message);
      expect((await post(app(), "/auth/token", { address: wallet.address, message: text, signature })).status).toBe(401);
    }
    // The challenge is still usable by its owner afterwards.
    expect((await post(app(), "/auth/token", { address: wallet.address, message, signature })).status).toBe(200);
  });

  test("a message altered by one byte and signed by the right key is still not a message we issued", async () => {
    const wallet = await generateKeyPairSigner();
    const { message } = await challenge(app(), wallet.address);
    const later = message.replace(/Expiration Time: (\d{4})/, (_, year: string) => `Expiration Time: ${Number(year) + 1}`);
    const reply = await post(app(), "/auth/token", { address: wallet.address, message: later, signature: base58(await signText(wallet, later)) });
    expect(reply.status).toBe(401);
    expect(String(reply.body["message"])).toContain("challenge is unknown");
  });

  test("a message of our layout with a nonce we never issued is refused", async () => {
    const wallet = await generateKeyPairSigner();
    const { message } = await challenge(app(), wallet.address);
    const invented = message.replace(/Nonce: [0-9a-f]+/, `Nonce: ${"ab".repeat(16)}`);
    const reply = await post(app(), "/auth/token", { address: wallet.address, message: invented, signature: base58(await signText(wallet, invented)) });
    expect(reply.status).toBe(401);
  });

  test("a signature by another key, for the address in the challenge, is refused", async () => {
    const [wallet, mallory] = await Promise.all([generateKeyPairSigner(), generateKeyPairSigner()]);
    const { message } = await challenge(app(), wallet.address);
    const reply = await post(app(), "/auth/token", { address: wallet.address, message, signature: base58(await signText(mallory, message)) });
    expect(reply.status).toBe(401);
    expect(String(reply.body["message"])).toContain("does not verify");
  });

  test("another key cannot use someone else's challenge under its own address", async () => {
    const [wallet, mallory] = await Promise.all([generateKeyPairSigner(), generateKeyPairSigner()]);
    const { message } = await challenge(app(), wallet.address);
    const reply = await post(app(), "/auth/token", { address: mallory.address, message, signature: base58(await signText(mallory, message)) });
    expect(reply.status).toBe(401);
    // Nor by rewriting the address line: that is no longer the stored message.
    const rewritten = message.replace(wallet.address, mallory.address);
    expect((await post(app(), "/auth/token", { address: mallory.address, message: rewritten, signature: base58(await signText(mallory, rewritten)) })).status).toBe(401);
  });

  test("a text that is not a sign-in message (a bare nonce, CRLF line ends, a NUL) is refused without a store error", async () => {
    const wallet = await generateKeyPairSigner();
    const { message, nonce } = await challenge(app(), wallet.address);
    for (const text of [nonce, message.replaceAll("\n", "\r\n"), `${message}\u0000`]) {
      const reply = await post(app(), "/auth/token", { address: wallet.address, message: text, signature: base58(await signText(wallet, text)) });
      expect(reply.status).toBe(401);
    }
  });
});

describe("/users/me without a usable token (real service)", () => {
  test("missing, non-Bearer and malformed Authorization headers are 401 with WWW-Authenticate", async () => {
    for (const header of [undefined, "", "Basic abc", "Bearer", "Bearer not.a.jwt", "Bearer a.b.c", `Bearer ${"x".repeat(9000)}`]) {
      const reply = await getMe(app(), header);
      expect(reply.status).toBe(401);
      expect(reply.body).toMatchObject({ statusCode: 401, error: "Unauthorized" });
      expect(reply.headers.get("www-authenticate")).toStartWith("Bearer");
    }
  });
});

describe("POST /auth/challenge is rate limited per client address (shared window counters in PGlite)", () => {
  test("past the limit a client gets 429 with Retry-After; another client is unaffected", async () => {
    const limited = await startService({ AUTH_CHALLENGE_RATE_LIMIT_PER_MINUTE: "3", RATE_LIMIT_TRUST_FORWARDED_FOR: "true" });
    try {
      const wallet = await generateKeyPairSigner();
      const from = (ip: string) => ({ "x-forwarded-for": `203.0.113.9, ${ip}` });
      const first = await challenge(limited.registryApp, wallet.address, from("198.51.100.1"));
      const statuses: number[] = [];
      for (let i = 0; i < 4; i++) statuses.push((await post(limited.registryApp, "/auth/challenge", { address: wallet.address }, from("198.51.100.1"))).status);
      expect(statuses).toEqual([200, 200, 429, 429]);
      const refused = await post(limited.registryApp, "/auth/challenge", { address: wallet.address }, from("198.51.100.1"));
      expect(refused.body).toMatchObject({ statusCode: 429, error: "Too Many Requests" });
      expect(refused.headers.get("retry-after")).toBe("60");
      expect((await post(limited.registryApp, "/auth/challenge", { address: wallet.address }, from("198.51.100.2"))).status).toBe(200);
      // Only challenges are limited: the limited client still trades the challenge it holds.
      const signature = base58(await signText(wallet, first.message));
      expect((await post(limited.registryApp, "/auth/token", { address: wallet.address, message: first.message, signature }, from("198.51.100.1"))).status).toBe(200);
      const rows = await limited.store.executor.query("SELECT count(*)::int AS n FROM auth_nonces");
      expect(rows[0]?.["n"]).toBe(4);
      // Token attempts (each a strict ed25519 check) have their own count under the same limit.
      const attempts: number[] = [];
      for (let i = 0; i < 3; i++) attempts.push((await post(limited.registryApp, "/auth/token", { address: wallet.address, message: first.message, signature }, from("198.51.100.1"))).status);
      expect(attempts).toEqual([401, 401, 429]);
    } finally {
      await limited.dispose();
    }
  }, 30_000);
});
