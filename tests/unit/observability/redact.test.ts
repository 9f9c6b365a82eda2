// The one redaction module, rule by rule (pure functions). The RPC ledger's own test checks rule 4
// and 5 end to end (tests/ledger/rpc-ledger.test.ts), the store's rule 6 (tests/unit/store/database-url.test.ts).
import { describe, expect, test } from "bun:test";
import { describeDatabaseUrl, redactFields, redactText, redactUrl, scrubSecrets, scrubUrlSecrets } from "../../../src/infrastructure/logging/redact.ts";

describe("redaction rules (src/infrastructure/logging/redact.ts)", () => {
  test("rule 1: secret-named fields are masked at any depth; bigints and errors become text", () => {
    const out = redactFields({
      privateKey: "abc",
      nested: { pin: "1234", DATABASE_PASSWORD: "pw", authorization: "Bearer x", list: [{ mnemonic: "words" }] },
      amount: 10n,
      error: new Error("connect to https://u:p@host failed"),
      fine: "hello",
    });
    expect(out).toEqual({
      privateKey: "***",
      nested: { pin: "***", DATABASE_PASSWORD: "***", authorization: "***", list: [{ mnemonic: "***" }] },
      amount: "10",
      error: "Error: connect to https://***@host failed",
      fine: "hello",
    });
  });

  test("rule 1: nesting deeper than six levels is cut rather than walked", () => {
    let deep: Record<string, unknown> = { leaf: "x" };
    for (let i = 0; i < 10; i++) deep = { deeper: deep };
    expect(JSON.stringify(redactFields(deep))).toContain("[depth]");
  });

  test("rules 2 and 3: URL userinfo and key-like query parameters are masked in free text", () => {
    const text = "rpc https://user:hunter2@rpc.example/v2?api-key=sk_live_1&cluster=devnet and redis://:pw@cache:6379 token=abc&key=zzz";
    const out = redactText(text);
    expect(out).toBe("rpc https://***@rpc.example/v2?api-key=***&cluster=devnet and redis://***@cache:6379 token=abc&key=***");
    for (const secret of ["hunter2", "sk_live_1", ":pw@", "zzz"]) expect(out).not.toContain(secret);
  });

  test("rule 4: a known URL keeps scheme, host, short path parts and query keys only", () => {
    expect(redactUrl("https://user:pw@mainnet.helius-rpc.com/?api-key=KEY123456")).toBe("https://***@mainnet.helius-rpc.com/?api-key=***");
    expect(redactUrl("https://solana-mainnet.g.alchemy.com/v2/abcdefgh12345678")).toBe("https://solana-mainnet.g.alchemy.com/v2/***");
    expect(redactUrl("not a url")).toBe("<invalid url>");
  });

  test("rule 5: every secret part of a known URL is removed from free text, even when it appears alone", () => {
    const url = "https://u:p%40ssword@rpc.example/SECRETPATH123?api-key=q1w2e3r4";
    const message = `fetch ${url} failed; retry with key q1w2e3r4 at /SECRETPATH123 as p@ssword`;
    const out = scrubUrlSecrets(message, url);
    for (const secret of ["q1w2e3r4", "SECRETPATH123", "p@ssword", "p%40ssword"]) expect(out).not.toContain(secret);
    expect(out).toContain("https://***@rpc.example/***?api-key=***");
  });

  test("rule 5: a user or path named like the scheme or host is not masked, since both are shown anyway", () => {
    const out = scrubUrlSecrets("DATABASE_URL: postgres://db.internal:5432/postgres unreachable; password s3cretPW", "postgres://postgres:s3cretPW@db.internal:5432/postgres");
    expect(out).toBe("DATABASE_URL: postgres://db.internal:5432/postgres unreachable; password ***");
  });

  test("rule 5: a malformed percent-escape in a password does not make redaction throw", () => {
    expect(() => scrubUrlSecrets("x", "postgres://u:pw%zz123@db/x")).not.toThrow();
    expect(scrubUrlSecrets("login pw%zz123 failed", "postgres://u:pw%zz123@db/x")).not.toContain("pw%zz123");
  });

  test("scrubSecrets applies rules 2, 3 and 5 for every known URL at once, skipping unset ones", () => {
    const db = "postgres://admin:dbsecret99@db:5432/x";
    const rpc = "https://rpc.example/KEYKEYKEY1";
    const out = scrubSecrets(`password authentication failed for dbsecret99; rpc KEYKEYKEY1; other https://a:b@c`, [db, undefined, rpc]);
    for (const secret of ["dbsecret99", "KEYKEYKEY1", "a:b@"]) expect(out).not.toContain(secret);
  });

  test("rule 6: a database URL is described by scheme, host, port and database only", () => {
    expect(describeDatabaseUrl("postgresql://admin:hunter2@db.internal/settle?password=hunter3")).toBe("postgresql://db.internal/settle");
    expect(describeDatabaseUrl("::")).toBe("postgres://<unparsable url>");
  });
});
