/**
 * The README walk-through's last step (sign in, then GET /users/me) as a user runs it: a real child
 * process (npm start's entry: embedded ledger, PGlite, dev keys in a temp DATA_DIR) and the example
 * script with all three URLs. tests/walkthrough runs the same script without the registry URL.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { BUN, ROOT, type RunningService, spawnService } from "../walkthrough/support/spawn-service.ts";

const dataDir = mkdtempSync(join(tmpdir(), "walkthrough-sign-in-"));
let running: RunningService | null = null;

afterAll(async () => {
  await running?.stop("SIGKILL");
  rmSync(dataDir, { recursive: true, force: true });
});

describe("README walk-through, sign-in step (real child process and example script)", () => {
  test("after the payment the merchant signs in and GET /users/me answers its profile", async () => {
    running = await spawnService({ DATA_DIR: dataDir, REGISTRY_PORT: "0", FACILITATOR_PORT: "0", LOCAL_LEDGER_PORT: "0" });
    const urls = running.urls;
    const example = Bun.spawnSync([BUN, "examples/pay-on-embedded-ledger.ts", urls["facilitator"] ?? "", urls["ledgerRpc"] ?? "", urls["registry"] ?? ""], { cwd: ROOT });
    const out = example.stdout.toString();
    expect(example.exitCode).toBe(0);
    expect(out).toContain('settle: {"success":true');
    expect(out).toMatch(/signed in; \/users\/me: 200 \{"address":"[1-9A-HJ-NP-Za-km-z]{32,44}","createdAt":"[^"]+","lastSignInAt":"[^"]+","agents":\[\]\}/);
    // The development token-signing key is private to the user, like the fee payer's.
    expect(statSync(join(dataDir, "auth-jwt-key.json")).mode & 0o777).toBe(0o600);
    expect(running.logs()).toContain("generated development token-signing key");
  }, 90_000);
});
