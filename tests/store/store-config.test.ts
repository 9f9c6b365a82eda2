import { describe, expect, test } from "bun:test";
import { describeDatabaseUrl, storeOptionsFromEnv } from "../../src/infrastructure/store/index.ts";
import { isConnectionError } from "../../src/infrastructure/store/store-errors.ts";

// Pure functions; no database.
describe("storeOptionsFromEnv (pure, no database)", () => {
  test("no configuration selects PGlite under ./.data", () => {
    expect(storeOptionsFromEnv({})).toEqual({ dataDir: "./.data" });
  });

  test("DATABASE_URL selects PostgreSQL; blank values count as unset", () => {
    expect(storeOptionsFromEnv({ DATABASE_URL: "postgres://u:p@db/x", DATA_DIR: "/var/lib/app" })).toEqual({
      dataDir: "/var/lib/app",
      databaseUrl: "postgres://u:p@db/x",
    });
    expect(storeOptionsFromEnv({ DATABASE_URL: "  ", DATA_DIR: "" })).toEqual({ dataDir: "./.data" });
  });

  test("DATABASE_POOL_MAX is a bounded integer", () => {
    expect(storeOptionsFromEnv({ DATABASE_POOL_MAX: "25" }).maxConnections).toBe(25);
    expect(() => storeOptionsFromEnv({ DATABASE_POOL_MAX: "0" })).toThrow(/DATABASE_POOL_MAX/);
    expect(() => storeOptionsFromEnv({ DATABASE_POOL_MAX: "ten" })).toThrow(/DATABASE_POOL_MAX/);
  });
});

describe("describeDatabaseUrl (pure): the password never leaves", () => {
  test("keeps host, port and database; drops user, password and query", () => {
    const described = describeDatabaseUrl("postgres://admin:hunter2@db.internal:6432/settle?password=hunter3&sslmode=require");
    expect(described).toBe("postgres://db.internal:6432/settle");
    expect(described).not.toContain("hunter");
    expect(described).not.toContain("admin");
  });

  test("an unparsable URL is described without echoing it", () => {
    expect(describeDatabaseUrl("postgres://user:p@ss word@host")).not.toContain("p@ss");
  });
});

describe("isConnectionError (pure)", () => {
  test("socket, client and SQLSTATE connection codes count; statement errors do not", () => {
    for (const code of ["ECONNREFUSED", "CONNECT_TIMEOUT", "08006", "57P01", "53300"]) {
      expect(isConnectionError({ code })).toBe(true);
    }
    for (const value of [{ code: "23505" }, { code: "42P01" }, new Error("x"), null, "ECONNREFUSED"]) {
      expect(isConnectionError(value)).toBe(false);
    }
  });
});
