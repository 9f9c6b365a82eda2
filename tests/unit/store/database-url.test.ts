import { describe, expect, test } from "bun:test";
import { describeDatabaseUrl } from "../../../src/infrastructure/logging/redact.ts";
import { isConnectionError } from "../../../src/infrastructure/store/store-errors.ts";

// Pure functions; no database.
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
