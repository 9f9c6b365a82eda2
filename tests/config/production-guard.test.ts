import { describe, expect, test } from "bun:test";
import { resolve } from "node:path";
import { parseAppConfig } from "../../src/infrastructure/config/app-config.ts";
import { productionProblems } from "../../src/infrastructure/config/production-guard.ts";

type Env = Record<string, string | undefined>;

/** The guard as main.ts applies it: to the parsed config and the raw environment. */
function problemsFor(env: Env): string[] {
  const parsed = parseAppConfig(env);
  if (!parsed.ok) throw new Error(parsed.errors.join("; "));
  return productionProblems(parsed.config, env);
}

const COMPLETE: Env = {
  NODE_ENV: "production",
  SOLANA_RPC_URL: "https://rpc.example/secret-token",
  DATABASE_URL: "postgres://app:hunter2@db:5432/facilitator",
  FEE_PAYER_SIGNER: "aws-kms",
  AUTH_JWT_PRIVATE_KEY_FILE: "/etc/registry/jwt-signing-key.json",
  AUTH_DOMAIN: "registry.example.com",
  AUTH_URI: "https://registry.example.com",
};

describe("productionProblems: NODE_ENV=production refuses the embedded defaults", () => {
  test("outside production nothing is required (the embedded defaults serve a laptop)", () => {
    expect(problemsFor({})).toEqual([]);
    expect(problemsFor({ NODE_ENV: "development" })).toEqual([]);
    expect(problemsFor({ NODE_ENV: "test" })).toEqual([]);
  });

  test("production with nothing set names all five settings, one problem each", () => {
    const problems = problemsFor({ NODE_ENV: "production" });
    expect(problems.length).toBe(5);
    expect(problems[0]).toStartWith("SOLANA_RPC_URL:");
    expect(problems[1]).toStartWith("DATABASE_URL:");
    expect(problems[2]).toStartWith("FEE_PAYER_SIGNER or FEE_PAYER_SIGNERS_FILE:");
    expect(problems[3]).toStartWith("AUTH_JWT_PRIVATE_KEY_FILE:");
    expect(problems[4]).toStartWith("AUTH_DOMAIN and AUTH_URI:");
  });

  test("SECURITY: a registry may not issue sign-in messages for localhost in production", () => {
    expect(problemsFor({ ...COMPLETE, AUTH_DOMAIN: undefined }).map(name)).toEqual(["AUTH_DOMAIN and AUTH_URI"]);
    expect(problemsFor({ ...COMPLETE, AUTH_URI: "http://127.0.0.1:3000" }).map(name)).toEqual(["AUTH_DOMAIN and AUTH_URI"]);
    expect(problemsFor({ ...COMPLETE, AUTH_DOMAIN: "localhost.example.com" })).toEqual([]);
    expect(problemsFor({ ...COMPLETE, AUTH_DOMAIN: undefined, AUTH_URI: undefined, ROLE: "facilitator" })).toEqual([]);
  });

  test("a complete production configuration passes", () => {
    expect(problemsFor(COMPLETE)).toEqual([]);
  });

  test("FEE_PAYER_SIGNERS_FILE satisfies the signer requirement as well as FEE_PAYER_SIGNER", () => {
    const { FEE_PAYER_SIGNER: _, ...rest } = COMPLETE;
    expect(problemsFor({ ...rest, FEE_PAYER_SIGNERS_FILE: "/etc/facilitator/signers.json" })).toEqual([]);
  });

  test("each missing setting is reported alone; empty values count as missing", () => {
    expect(problemsFor({ ...COMPLETE, SOLANA_RPC_URL: undefined }).map(name)).toEqual(["SOLANA_RPC_URL"]);
    expect(problemsFor({ ...COMPLETE, DATABASE_URL: "" }).map(name)).toEqual(["DATABASE_URL"]);
    expect(problemsFor({ ...COMPLETE, FEE_PAYER_SIGNER: " " }).map(name)).toEqual(["FEE_PAYER_SIGNER or FEE_PAYER_SIGNERS_FILE"]);
  });

  test("another role's signer (CONFIG_AUTHORITY_) does not stand in for the fee payer", () => {
    const { FEE_PAYER_SIGNER: _, ...rest } = COMPLETE;
    expect(problemsFor({ ...rest, CONFIG_AUTHORITY_SIGNER: "local" }).map(name)).toEqual(["FEE_PAYER_SIGNER or FEE_PAYER_SIGNERS_FILE"]);
  });

  test("a registry-only process needs no fee-payer signer (it settles nothing), but still the RPC and database", () => {
    const { FEE_PAYER_SIGNER: _, ...rest } = COMPLETE;
    expect(problemsFor({ ...rest, ROLE: "registry" })).toEqual([]);
    expect(problemsFor({ ...rest, ROLE: "facilitator" }).map(name)).toEqual(["FEE_PAYER_SIGNER or FEE_PAYER_SIGNERS_FILE"]);
    expect(problemsFor({ NODE_ENV: "production", ROLE: "registry" }).map(name)).toEqual(["SOLANA_RPC_URL", "DATABASE_URL", "AUTH_JWT_PRIVATE_KEY_FILE", "AUTH_DOMAIN and AUTH_URI"]);
  });

  test("a process serving the registry needs the token-signing key; a facilitator-only one does not", () => {
    const { AUTH_JWT_PRIVATE_KEY_FILE: _, ...rest } = COMPLETE;
    expect(problemsFor(rest).map(name)).toEqual(["AUTH_JWT_PRIVATE_KEY_FILE"]);
    expect(problemsFor({ ...rest, ROLE: "registry" }).map(name)).toEqual(["AUTH_JWT_PRIVATE_KEY_FILE"]);
    expect(problemsFor({ ...rest, ROLE: "facilitator" })).toEqual([]);
  });

  test("problems never carry a value", () => {
    const problems = problemsFor({ NODE_ENV: "production", FEE_PAYER_PRIVATE_KEY: "do-not-print-me" }).join("\n");
    expect(problems).not.toContain("do-not-print-me");
  });
});

describe("bun src/main.ts with NODE_ENV=production and nothing else (real child process)", () => {
  test("exits 1 before serving, naming every missing setting in one JSON line", () => {
    const result = Bun.spawnSync([process.execPath, "src/main.ts"], {
      cwd: resolve(import.meta.dir, "../.."),
      env: { PATH: process.env["PATH"] ?? "", NODE_ENV: "production", DATA_DIR: "/tmp/never-used-production-guard-test" },
    });
    expect(result.exitCode).toBe(1);
    const output = result.stdout.toString() + result.stderr.toString();
    for (const setting of ["SOLANA_RPC_URL", "DATABASE_URL", "FEE_PAYER_SIGNER", "AUTH_JWT_PRIVATE_KEY_FILE", "AUTH_DOMAIN"]) expect(output).toContain(setting);
    const lines = output.trim().split("\n");
    expect(lines.length).toBe(1);
    const line = JSON.parse(lines[0] ?? "") as { level: string; msg: string; errors: string[] };
    expect(line.level).toBe("error");
    expect(line.errors.length).toBe(5);
    expect(output).not.toContain("ready");
  });
});

const name = (problem: string) => problem.slice(0, problem.indexOf(":"));
