// config:check as operators run it: a real child process of `bun src/tools/config-check.ts` with
// only the environment given, one line per check and the exit code as the verdict. Real PGlite,
// and real PostgreSQL and Redis when they are there (skipped with the reason otherwise).
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { getBase58Decoder } from "@solana/kit";
import { loadOrCreateDevKeypair } from "../../src/infrastructure/signers/dev-keypair.ts";
import { LATEST_SCHEMA_VERSION, openStore } from "../../src/infrastructure/store/index.ts";
import { redisGate, TEST_REDIS_URL } from "../support/redis.ts";
import { createTestDatabase, postgresGate } from "../support/postgres.ts";
import { DEVNET_GENESIS_HASH, SOLANA_DEVNET, SOLANA_MAINNET } from "../../src/domain/networks.ts";
import { createLocalLedger } from "../../src/infrastructure/ledger/local-ledger.ts";
import { startLedgerProxy } from "../../fixtures/ledger-proxy.ts";

const ROOT = resolve(import.meta.dir, "../..");
const TOOL = resolve(ROOT, "src/tools/config-check.ts");
const dirs: string[] = [];
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

function dataDir(): string {
  const dir = mkdtempSync(join(tmpdir(), "config-check-"));
  dirs.push(dir);
  return dir;
}

async function configCheck(env: Record<string, string>): Promise<{ code: number | null; lines: string[]; output: string }> {
  const child = Bun.spawn([process.execPath, TOOL], { cwd: ROOT, env: { PATH: process.env["PATH"] ?? "", ...env }, stdout: "pipe", stderr: "pipe" });
  const timer = setTimeout(() => child.kill("SIGKILL"), 25_000);
  const [stdout, stderr, code] = await Promise.all([new Response(child.stdout).text(), new Response(child.stderr).text(), child.exited]);
  clearTimeout(timer);
  const output = stdout + stderr;
  return { code, lines: stdout.trim().split("\n"), output };
}

describe("config:check (real child process)", () => {
  test("good embedded configuration on a fresh machine: exit 0, one ok line per check", async () => {
    const { code, lines } = await configCheck({ DATA_DIR: dataDir() });
    expect(code).toBe(0);
    for (const line of lines.slice(0, -1)) expect(line).toMatch(/^(ok  |note) [A-Za-z_ -]+: /);
    for (const subject of ["settings", "SOLANA_RPC_URL", "DATABASE_URL", "REDIS_URL"]) expect(lines.some((l) => l.startsWith(`ok   ${subject}: `))).toBe(true);
    expect(lines.at(-1)).toBe("config:check: everything checked is OK");
  });

  test("good embedded configuration after a start: the development keys sign, the embedded database is on the current schema", async () => {
    const dir = dataDir();
    const feePayer = (await loadOrCreateDevKeypair(join(dir, "fee-payer.json"))).signer.address;
    const store = await openStore({ dataDir: dir });
    await store.close();
    const { code, lines } = await configCheck({ DATA_DIR: dir });
    expect(code).toBe(0);
    expect(lines).toContain(`ok   signer: fee-payer local (development key DATA_DIR/fee-payer.json) ${feePayer} OK: test signature verifies`);
    expect(lines).toContain(`ok   DATABASE_URL: unset: embedded PGlite in DATA_DIR/pglite; schema v${LATEST_SCHEMA_VERSION} (current)`);
  }, 30_000);

  test("a bad setting: exit 1, the line names the variable and never its value", async () => {
    const { code, lines, output } = await configCheck({ DATA_DIR: dataDir(), REGISTRY_PORT: "abc", SOLANA_RPC_URL: "ftp://user:pw-in-url@rpc.example" });
    expect(code).toBe(1);
    expect(lines).toContain("FAIL settings: REGISTRY_PORT: expected integer");
    expect(lines.some((l) => l.startsWith("FAIL settings: SOLANA_RPC_URL: "))).toBe(true);
    expect(output).not.toContain("pw-in-url");
    expect(output).not.toContain("abc");
  });

  test("settings that only fail together or in production: each named", async () => {
    const allowlist = await configCheck({ DATA_DIR: dataDir(), PAYTO_POLICY: "allowlist" });
    expect(allowlist.code).toBe(1);
    expect(allowlist.lines).toContain("FAIL PAYTO_ALLOWLIST_FILE: required by PAYTO_POLICY=allowlist");
    const production = await configCheck({ DATA_DIR: dataDir(), NODE_ENV: "production" });
    expect(production.code).toBe(1);
    for (const name of ["SOLANA_RPC_URL", "DATABASE_URL", "FEE_PAYER_SIGNER", "AUTH_JWT_PRIVATE_KEY_FILE"]) {
      expect(production.lines.some((l) => l.startsWith(`FAIL production guard: ${name}`))).toBe(true);
    }
  });

  test("a variable spelled almost like a setting: a warning outside production (exit 0), a failure in production", async () => {
    const development = await configCheck({ DATA_DIR: dataDir(), FACILITATOR_API_KEY_FILE: "/etc/never-printed.json" });
    expect(development.code).toBe(0);
    expect(development.lines).toContain("warn settings: FACILITATOR_API_KEY_FILE: not a setting; did you mean FACILITATOR_API_KEYS_FILE? (the service ignores FACILITATOR_API_KEY_FILE)");
    const production = await configCheck({ DATA_DIR: dataDir(), NODE_ENV: "production", FACILITATOR_API_KEY_FILE: "/etc/never-printed.json" });
    expect(production.code).toBe(1);
    expect(production.lines).toContain("FAIL production guard: FACILITATOR_API_KEY_FILE: not a setting; did you mean FACILITATOR_API_KEYS_FILE? (the service ignores FACILITATOR_API_KEY_FILE)");
    for (const run of [development, production]) expect(run.output).not.toContain("never-printed");
  });

  test("WEBHOOKS_FILE is read by the service's own loader: every problem named by entry and field, never the secret", async () => {
    const dir = dataDir();
    const secret = `whsec_${Buffer.alloc(32, 9).toString("base64")}`;
    writeFileSync(join(dir, "good.json"), JSON.stringify([{ url: "https://shop.example.com/hooks", secret, events: ["settlement.confirmed"] }]));
    writeFileSync(join(dir, "bad.json"), JSON.stringify([{ url: "https://10.1.2.3/hooks", secret, events: ["settlement.done"] }]));
    const good = await configCheck({ DATA_DIR: dir, WEBHOOKS_FILE: join(dir, "good.json") });
    expect(good.lines).toContain("ok   WEBHOOKS_FILE: 1 webhook(s)");
    const bad = await configCheck({ DATA_DIR: dir, WEBHOOKS_FILE: join(dir, "bad.json") });
    expect(bad.code).toBe(1);
    const line = bad.lines.find((l) => l.startsWith("FAIL WEBHOOKS_FILE"));
    expect(line).toContain("entry 1: url is not a public internet address");
    expect(line).toContain("entry 1: events must be a non-empty array of");
    expect(bad.output).not.toContain(secret.slice(6));
  });

  test("NODE_ENV=Production is a failed setting naming the three values", async () => {
    const { code, lines } = await configCheck({ DATA_DIR: dataDir(), NODE_ENV: "Production" });
    expect(code).toBe(1);
    expect(lines).toContain("FAIL settings: NODE_ENV: expected one of development, test, production");
  });

  test("production: a facilitator open to anonymous callers for any payTo and any amount is warned about, until one of the three is set", async () => {
    const warning = (lines: string[]) => lines.find((line) => line.startsWith("warn facilitator: open to anonymous callers"));
    const base = { DATA_DIR: dataDir(), NODE_ENV: "production" };
    expect(warning((await configCheck(base)).lines)).toBeDefined();
    expect(warning((await configCheck({ ...base, MIN_PAYMENT_AMOUNT: "0" })).lines)).toBeDefined();
    expect(warning((await configCheck({ ...base, MIN_PAYMENT_AMOUNT: "1000" })).lines)).toBeUndefined();
    expect(warning((await configCheck({ ...base, PAYTO_POLICY: "registered-agents" })).lines)).toBeUndefined();
    expect(warning((await configCheck({ ...base, FACILITATOR_API_KEYS_FILE: "/nonexistent/keys.json" })).lines)).toBeUndefined();
    expect(warning((await configCheck({ ...base, ROLE: "registry" })).lines)).toBeUndefined();
    // Outside production a laptop's open facilitator is the point.
    expect(warning((await configCheck({ DATA_DIR: dataDir() })).lines)).toBeUndefined();
  }, 60_000);

  test("an unreachable DATABASE_URL: exit 1, names DATABASE_URL, and no credential of any URL or key is printed", async () => {
    const privateKey = getBase58Decoder().decode(Uint8Array.from({ length: 32 }, (_, i) => i + 40));
    const { code, lines, output } = await configCheck({
      DATA_DIR: dataDir(),
      DATABASE_URL: "postgres://settler:Sup3rSecretPw@127.0.0.1:1/settle?password=AlsoSecret9",
      REDIS_URL: "redis://:RedisSecret77@127.0.0.1:2",
      SOLANA_RPC_URL: "http://rpcuser:RpcSecret55@127.0.0.1:3/ApiKeyInPath123?api-key=QueryKey44",
      FEE_PAYER_PRIVATE_KEY: privateKey,
    });
    expect(code).toBe(1);
    const database = lines.find((l) => l.startsWith("FAIL DATABASE_URL: "));
    expect(database).toContain("postgres://127.0.0.1:1/settle");
    expect(database).toContain("ECONNREFUSED");
    expect(lines.some((l) => l.startsWith("FAIL REDIS_URL: "))).toBe(true);
    expect(lines.some((l) => l.startsWith("FAIL SOLANA_RPC_URL: "))).toBe(true);
    expect(lines.some((l) => l.startsWith("ok   signer: fee-payer local (FEE_PAYER_) "))).toBe(true);
    for (const secret of ["Sup3rSecretPw", "AlsoSecret9", "RedisSecret77", "RpcSecret55", "ApiKeyInPath123", "QueryKey44", "settler", "rpcuser", privateKey]) {
      expect(output).not.toContain(secret);
    }
  });

  test("SOLANA_RPC_URL: the ledger's genesis hash must name NETWORK (embedded ledger over JSON-RPC, presenting devnet)", async () => {
    const proxy = startLedgerProxy(createLocalLedger());
    try {
      const devnet = await configCheck({ DATA_DIR: dataDir(), SOLANA_RPC_URL: proxy.url, SEED_SAMPLE_AGENTS: "false" });
      expect(devnet.lines.find((l) => l.startsWith("ok   SOLANA_RPC_URL: "))).toEndWith(`its genesis hash names NETWORK ${SOLANA_DEVNET}`);
      const mainnet = await configCheck({ DATA_DIR: dataDir(), SOLANA_RPC_URL: proxy.url, SEED_SAMPLE_AGENTS: "false", NETWORK: SOLANA_MAINNET });
      expect(mainnet.code).toBe(1);
      expect(mainnet.lines.find((l) => l.startsWith("FAIL SOLANA_RPC_URL: "))).toContain(`NETWORK is ${SOLANA_MAINNET}, but the ledger's genesis hash ${DEVNET_GENESIS_HASH} names ${SOLANA_DEVNET}`);
    } finally {
      await proxy.stop();
    }
  }, 30_000);

  test("npm run config:check runs this file", () => {
    const scripts = (JSON.parse(readFileSync(resolve(ROOT, "package.json"), "utf8")) as { scripts: Record<string, string> }).scripts;
    expect(scripts["config:check"]).toBe("bun run src/tools/config-check.ts");
  });
});

const postgresOk = await postgresGate("config-check");
const redisOk = await redisGate("config-check");

describe("config:check against real PostgreSQL and Redis", () => {
  let database: Awaited<ReturnType<typeof createTestDatabase>> | null = null;
  beforeAll(async () => {
    if (postgresOk.run) database = await createTestDatabase();
  });
  afterAll(async () => {
    await database?.drop();
  });

  test.skipIf(!postgresOk.run && !postgresOk.failInCi)("a reachable database: its schema version, migrated or not", async () => {
    if (postgresOk.failInCi) throw new Error(postgresOk.failInCi);
    if (!database) throw new Error("no test database");
    const empty = await configCheck({ DATA_DIR: dataDir(), DATABASE_URL: database.url });
    expect(empty.code).toBe(0);
    expect(empty.lines.find((l) => l.startsWith("ok   DATABASE_URL: "))).toContain(`empty database: the service creates schema v${LATEST_SCHEMA_VERSION} at start`);
    const store = await openStore({ databaseUrl: database.url, maxConnections: 1 });
    await store.close();
    const migrated = await configCheck({ DATA_DIR: dataDir(), DATABASE_URL: database.url });
    expect(migrated.lines.find((l) => l.startsWith("ok   DATABASE_URL: "))).toContain(`schema v${LATEST_SCHEMA_VERSION} (current)`);
  }, 30_000);

  test.skipIf(!redisOk.run && !redisOk.failInCi)("a reachable Redis answers PING", async () => {
    if (redisOk.failInCi) throw new Error(redisOk.failInCi);
    const { code, lines } = await configCheck({ DATA_DIR: dataDir(), REDIS_URL: TEST_REDIS_URL });
    expect(code).toBe(0);
    expect(lines.find((l) => l.startsWith("ok   REDIS_URL: "))).toContain("answers PING");
  });
});
