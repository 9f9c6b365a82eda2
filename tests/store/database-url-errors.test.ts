import { afterAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { createServer, type Server } from "node:net";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { openStore, StoreUnavailableError } from "../../src/infrastructure/store/index.ts";
import { failWhenRequired } from "../../fixtures/gate.ts";
import { ADMIN_URL, postgresGate } from "../support/postgres.ts";
import { unusedPort } from "../support/ports.ts";

/**
 * A database the service cannot use is reported naming DATABASE_URL, the setting to fix, with the
 * reason in words, and never the user or password in it: a closed port, a server that refuses
 * the login (a wire-level fake answering the startup message as PostgreSQL does), a database
 * that does not exist on the real server, and the whole process booting against a closed port.
 */
const USER = "settler-user";
const PASSWORD = "s3cret-pw-7731";
const ROOT = resolve(import.meta.dir, "../..");

async function openFailure(databaseUrl: string): Promise<StoreUnavailableError> {
  const failure = await openStore({ databaseUrl }).then(
    () => null,
    (error: unknown) => error,
  );
  if (!(failure instanceof StoreUnavailableError)) throw new Error(`expected StoreUnavailableError, got ${String(failure)}`);
  return failure;
}

function expectNoCredentials(text: string): void {
  expect(text).not.toContain(PASSWORD);
  expect(text).not.toContain(USER);
}

describe("DATABASE_URL errors (closed local port, wire-level fake server)", () => {
  const servers: Server[] = [];
  afterAll(() => {
    for (const server of servers) server.close();
  });

  test("nothing listening: names DATABASE_URL and says the connection was refused", async () => {
    const port = await unusedPort();
    const failure = await openFailure(`postgres://${USER}:${PASSWORD}@127.0.0.1:${port}/settlements`);
    expect(failure.message).toBe(
      `settlement store unavailable: DATABASE_URL (postgres://127.0.0.1:${port}/settlements): connection refused: nothing listens at that host and port (ECONNREFUSED)`,
    );
    expectNoCredentials(`${failure.message} ${JSON.stringify(failure)}`);
  });

  for (const [sqlstate, reason] of [
    ["28P01", "the server rejected the password"],
    ["28000", "the server refused this user (role or pg_hba.conf)"],
  ] as const) {
    test(`a server refusing the login with ${sqlstate}: names DATABASE_URL and the reason, not the driver's text`, async () => {
      const { server, port } = await refusingServer(sqlstate, `password authentication failed for user "${USER}"`);
      servers.push(server);
      const failure = await openFailure(`postgres://${USER}:${PASSWORD}@127.0.0.1:${port}/settlements`);
      expect(failure.message).toBe(`settlement store unavailable: DATABASE_URL (postgres://127.0.0.1:${port}/settlements): ${reason} (${sqlstate})`);
      expectNoCredentials(failure.message);
    });
  }

  test("the process itself: `bun src/main.ts` against a closed port exits 1 with one log line naming DATABASE_URL, never the URL", async () => {
    const port = await unusedPort();
    const dataDir = mkdtempSync(join(tmpdir(), "database-url-errors-"));
    const child = Bun.spawn([process.execPath, "src/main.ts"], {
      cwd: ROOT,
      env: {
        PATH: process.env.PATH ?? "/usr/bin:/bin",
        ROLE: "facilitator",
        FACILITATOR_PORT: "0",
        LOCAL_LEDGER_PORT: "0",
        DATA_DIR: dataDir,
        DATABASE_URL: `postgres://${USER}:${PASSWORD}@127.0.0.1:${port}/settlements`,
      },
      stdout: "pipe",
      stderr: "pipe",
    });
    const [stdout, stderr, code] = await Promise.all([new Response(child.stdout).text(), new Response(child.stderr).text(), child.exited]);
    rmSync(dataDir, { recursive: true, force: true });
    const output = `${stdout}${stderr}`;
    expect(code).toBe(1);
    const failureLine = output.split("\n").find((line) => line.includes("start-up failed")) ?? "";
    expect(failureLine).toContain("DATABASE_URL");
    expect(failureLine).toContain("ECONNREFUSED");
    expectNoCredentials(output);
  }, 30_000);
});

const gate = await postgresGate("tests/store database-url-errors");
failWhenRequired(gate, "PostgreSQL is reachable (required under CI)");

describe.skipIf(!gate.run)("DATABASE_URL errors (real PostgreSQL)", () => {
  test("a database that does not exist on the server: names DATABASE_URL and says so (3D000)", async () => {
    const url = new URL(ADMIN_URL);
    url.pathname = `/no_such_db_${crypto.randomUUID().replaceAll("-", "").slice(0, 12)}`;
    const failure = await openFailure(url.toString());
    expect(failure.message).toContain("settlement store unavailable: DATABASE_URL (");
    expect(failure.message).toContain("the server has no database with that name (3D000)");
    expect(failure.message).not.toContain("does not exist");
    if (url.password !== "") expect(failure.message).not.toContain(url.password);
  });
});

/** A TCP server that answers any client as PostgreSQL refusing the login: one FATAL ErrorResponse, then close. */
async function refusingServer(sqlstate: string, text: string): Promise<{ server: Server; port: number }> {
  const server = createServer((socket) => {
    socket.once("data", () => {
      const fields = Buffer.concat([field("S", "FATAL"), field("V", "FATAL"), field("C", sqlstate), field("M", text), Buffer.from([0])]);
      const header = Buffer.alloc(5);
      header.write("E", 0, "latin1");
      header.writeInt32BE(fields.length + 4, 1);
      socket.end(Buffer.concat([header, fields]));
    });
    socket.on("error", () => undefined);
  });
  await new Promise<void>((done) => server.listen(0, "127.0.0.1", done));
  const address = server.address();
  if (address === null || typeof address === "string") throw new Error("no port");
  return { server, port: address.port };
}

function field(type: string, value: string): Buffer {
  return Buffer.concat([Buffer.from(type, "latin1"), Buffer.from(value, "utf8"), Buffer.from([0])]);
}
