import { describe, expect, test } from "bun:test";
import { resolve } from "node:path";
import { acceptedAssetsOf, parseAppConfig } from "../../src/infrastructure/config/app-config.ts";

describe("parseAppConfig (pure)", () => {
  test("no environment gives the documented embedded defaults, frozen", () => {
    const parsed = parseAppConfig({});
    if (!parsed.ok) throw new Error(parsed.errors.join());
    expect(parsed.config).toMatchObject({
      ROLE: "all",
      HOST: "127.0.0.1",
      REGISTRY_PORT: 3000,
      FACILITATOR_PORT: 4020,
      LOCAL_LEDGER_PORT: 8899,
      DATA_DIR: "./.data",
      NETWORK: "solana:EtWTRABZaYq6iMfeYKouRu166VU2xqa1",
      VERIFY_SIMULATE: true,
      REGISTRY_CACHE_TTL_SECONDS: 30,
      LOG_LEVEL: "info",
    });
    expect(parsed.config.SOLANA_RPC_URL).toBeUndefined();
    expect(parsed.config.DATABASE_URL).toBeUndefined();
    expect(Object.isFrozen(parsed.config)).toBe(true);
    // Unset USDC_MINT on devnet: both devnet USDCs, the x402 packages' first (the one a dev ledger funds), then x84's.
    expect(parsed.config.USDC_MINT).toBeUndefined();
    expect(acceptedAssetsOf(parsed.config)).toEqual(["4zMMC9srt5Ri5X14GAgXhaHii3GnPAEERYPJgZJDncDU", "Gh9ZwEmdLJ8DscKNTkTqPbNwLNNBjuSzaG9Vp2KGtKJr"]);
  });

  test("acceptedAssetsOf: USDC_MINT replaces the defaults (repeats dropped); off devnet the default is the single historical mint", () => {
    const listed = parseAppConfig({ USDC_MINT: "4zMMC9srt5Ri5X14GAgXhaHii3GnPAEERYPJgZJDncDU, 4zMMC9srt5Ri5X14GAgXhaHii3GnPAEERYPJgZJDncDU" });
    if (!listed.ok) throw new Error(listed.errors.join());
    expect(acceptedAssetsOf(listed.config)).toEqual(["4zMMC9srt5Ri5X14GAgXhaHii3GnPAEERYPJgZJDncDU"]);
    const mainnet = parseAppConfig({ NETWORK: "solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp" });
    if (!mainnet.ok) throw new Error(mainnet.errors.join());
    expect(acceptedAssetsOf(mainnet.config)).toEqual(["4zMMC9srt5Ri5X14GAgXhaHii3GnPAEERYPJgZJDncDU"]);
  });

  test("values are coerced: integers, booleans in their common spellings", () => {
    const parsed = parseAppConfig({ FACILITATOR_PORT: "5000", VERIFY_SIMULATE: "off", ROLE: "facilitator" });
    expect(parsed.ok && parsed.config).toMatchObject({ FACILITATOR_PORT: 5000, VERIFY_SIMULATE: false, ROLE: "facilitator" });
  });

  test("every bad value is reported by variable name, and no value is echoed", () => {
    const secretish = "postgres-password-hunter2";
    const parsed = parseAppConfig({
      REGISTRY_PORT: "eighty",
      ROLE: "both",
      SOLANA_RPC_URL: secretish,
      DATABASE_URL: `mysql://user:${secretish}@db`,
      VERIFY_SIMULATE: "maybe",
      FACILITATOR_PORT: "70000",
    });
    expect(parsed.ok).toBe(false);
    const errors = parsed.ok ? [] : parsed.errors;
    for (const name of ["REGISTRY_PORT", "ROLE", "SOLANA_RPC_URL", "DATABASE_URL", "VERIFY_SIMULATE", "FACILITATOR_PORT"]) {
      expect(errors.some((e) => e.startsWith(`${name}:`))).toBe(true);
    }
    expect(errors.join("\n")).not.toContain(secretish);
  });
});

describe("bun src/main.ts with a bad configuration (real child process)", () => {
  test("exits 1 before serving anything, naming the variable", () => {
    const result = Bun.spawnSync([process.execPath, "src/main.ts"], {
      cwd: resolve(import.meta.dir, "../.."),
      env: { PATH: process.env["PATH"] ?? "", FACILITATOR_PORT: "not-a-port", FEE_PAYER_PRIVATE_KEY: "do-not-print-me" },
    });
    expect(result.exitCode).toBe(1);
    const output = result.stdout.toString() + result.stderr.toString();
    expect(output).toContain("FACILITATOR_PORT");
    expect(output).not.toContain("not-a-port");
    expect(output).not.toContain("do-not-print-me");
  });

  test("exits 1 on an unusable signer key, naming the variable and never printing the key", () => {
    const result = Bun.spawnSync([process.execPath, "src/main.ts"], {
      cwd: resolve(import.meta.dir, "../.."),
      env: { PATH: process.env["PATH"] ?? "", DATA_DIR: "/tmp/never-used-config-test", FEE_PAYER_SIGNER: "local", FEE_PAYER_PRIVATE_KEY: "do-not-print-me" },
    });
    expect(result.exitCode).toBe(1);
    const output = result.stdout.toString() + result.stderr.toString();
    expect(output).toContain("FEE_PAYER_PRIVATE_KEY");
    expect(output).not.toContain("do-not-print-me");
  });
});

describe("dependency bounds (issue 20: Redis and the ledger fail without taking the service down)", () => {
  test("defaults: Redis calls bounded at 500 ms, ledger calls at 3 s (below Bun's 10 s idle timeout), readiness down after 3 failed probes", () => {
    const parsed = parseAppConfig({});
    expect(parsed.ok && parsed.config).toMatchObject({ REDIS_CONNECT_TIMEOUT_MS: 500, REDIS_COMMAND_TIMEOUT_MS: 500, LEDGER_RPC_TIMEOUT_MS: 3000, READINESS_FAILURE_THRESHOLD: 3 });
  });

  test("a ledger timeout at or past the HTTP idle timeout, an unbounded Redis call and a zero threshold are refused", () => {
    const parsed = parseAppConfig({ LEDGER_RPC_TIMEOUT_MS: "10000", REDIS_COMMAND_TIMEOUT_MS: "0", READINESS_FAILURE_THRESHOLD: "0" });
    expect(parsed.ok).toBe(false);
    const errors = parsed.ok ? [] : parsed.errors.join("\n");
    for (const name of ["LEDGER_RPC_TIMEOUT_MS", "REDIS_COMMAND_TIMEOUT_MS", "READINESS_FAILURE_THRESHOLD"]) expect(errors).toContain(name);
  });
});
