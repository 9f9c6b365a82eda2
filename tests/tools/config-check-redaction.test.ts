/**
 * What `config:check` prints, against docs/observability.md's sample: the redaction used to mask
 * the value of every secret-named setting, so a token label "facilitator"
 * (FEE_PAYER_PKCS11_TOKEN_LABEL) printed `ROLE=***`, and it replaced a URL with nothing to hide
 * inside its own redacted form, printing `https://rpc.example//`. Real sockets: the ledger, the
 * database and Redis are addresses where nothing listens (refused at once).
 */
import { expect, test } from "bun:test";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { runConfigCheck } from "../../src/tools/config-check.ts";
import { unusedPort } from "../support/ports.ts";

const ROOT = resolve(import.meta.dir, "../..");
const SAMPLE = readFileSync(join(ROOT, "docs/observability.md"), "utf8");

test("labels and paths named like secrets are printed as they are, real secrets are not, and URLs keep one slash", async () => {
  const dataDir = mkdtempSync(join(tmpdir(), "config-check-redaction-"));
  const closed = await unusedPort();
  try {
    const lines: string[] = [];
    const pin = "86421357";
    await runConfigCheck(
      {
        NODE_ENV: "production",
        ROLE: "facilitator",
        DATA_DIR: dataDir,
        SOLANA_RPC_URL: `http://127.0.0.1:${closed}`,
        DATABASE_URL: `postgres://app:db-password@127.0.0.1:${closed}/settle`,
        REDIS_URL: `redis://:redis-password@127.0.0.1:${closed}`,
        SEED_SAMPLE_AGENTS: "false",
        FEE_PAYER_SIGNER: "pkcs11",
        FEE_PAYER_PKCS11_MODULE: join(dataDir, "missing.so"),
        FEE_PAYER_PKCS11_TOKEN_LABEL: "facilitator",
        FEE_PAYER_PKCS11_KEY_LABEL: "fee-payer-2025",
        FEE_PAYER_PKCS11_PIN: pin,
        AUTH_TOKEN_TTL_SECONDS: "3600",
      },
      (line) => lines.push(line),
    );
    const output = lines.join("\n");
    const settings = "ok   settings: every variable parses (ROLE=facilitator, NODE_ENV=production)";
    expect(lines[0]).toBe(settings);
    // The documented sample shows the line the tool prints.
    expect(SAMPLE).toContain(settings);
    expect(output).toContain(`FAIL SOLANA_RPC_URL: http://127.0.0.1:${closed}/ does not answer getHealth`);
    expect(output).not.toContain(`${closed}//`);
    for (const secret of [pin, "db-password", "redis-password"]) expect(output).not.toContain(secret);
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
}, 30_000);
