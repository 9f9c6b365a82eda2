/**
 * The Bazaar validator on the real deno binary: a hostile declaration (recursive schema reference,
 * exponential in Ajv) is refused before any Worker sees it, and a validation timeout stops
 * validation instead of starting another Worker (Deno's terminate() cannot stop a busy one).
 */
import { beforeAll, describe, expect, test } from "bun:test";
import { spawnSync } from "node:child_process";
import { DENO, ROOT, denoEnv, denoGate } from "./support/deno-gate.ts";

const gate = denoGate("deno bazaar validator");
let seen: Record<string, unknown> = {};

if (gate.failInCi) test("the deno binary must be installed in CI", () => expect(gate.failInCi).toBeNull());

describe.if(gate.run)("Bazaar validator on Deno (real deno binary, real Worker)", () => {
  beforeAll(() => {
    // 60 s: without the screen the hostile declaration spins a Worker Deno cannot stop.
    const run = spawnSync(DENO, ["run", "-A", "tests/deno/support/bazaar-validator-probe.ts"], { cwd: ROOT, env: denoEnv({}), encoding: "utf8", timeout: 60_000 });
    if (run.status !== 0) throw new Error(`bazaar validator probe failed (${run.status}, ${run.signal}):\n${run.stdout}\n${run.stderr}`);
    seen = JSON.parse(run.stdout.trim().split("\n").at(-1) ?? "{}") as Record<string, unknown>;
  }, 90_000);

  test("a stock declaration is valid; the hostile one, at any depth, is invalid for its schema references", () => {
    expect(seen["stock"]).toEqual({ kind: "checked", problem: null });
    expect(seen["hostile"]).toEqual({ kind: "checked", problem: "bazaar: the declaration is nested deeper than 20 levels" });
    expect(seen["shallowHostile"]).toEqual({ kind: "checked", problem: "bazaar: the schema uses $ref, which this facilitator does not accept (schema references)" });
  });

  test("on Deno a timeout stops validation: the next declaration is busy (dropped), no second Worker", () => {
    expect(seen["timedOut"]).toEqual({ kind: "checked", problem: "bazaar: validation did not end within 1 ms" });
    expect(seen["afterTimeout"]).toEqual({ kind: "busy" });
  });
});
