/**
 * The Bazaar validator's Worker (bazaar-validator.ts): the package's own validators run off the
 * event loop, the queue is bounded (a declaration past it is `busy`, which the recorder counts as
 * dropped), and a validation that does not end in time costs a Worker, never the caller.
 */
import { describe, expect, test } from "bun:test";
import { declareDiscoveryExtension } from "@x402/extensions/bazaar";
import { createBazaarValidator } from "../../../src/infrastructure/discovery/bazaar-validator.ts";
import { validateBazaarExtension } from "../../../src/infrastructure/discovery/bazaar-validation.ts";

function extension(city: string, method = "GET"): Record<string, unknown> {
  const declared = declareDiscoveryExtension({ input: { city }, inputSchema: { properties: { city: { type: "string" } }, required: ["city"] } })["bazaar"] as unknown as { info: { input: Record<string, unknown> } };
  return { ...declared, info: { ...declared.info, input: { ...declared.info.input, method } } };
}

describe("Bazaar validation in a Worker", () => {
  test("the Worker's verdicts are the package validators' own, valid and invalid alike", async () => {
    const validate = createBazaarValidator();
    const bad = extension("Porto", "TRACE");
    expect(await validate(extension("Lisbon"))).toEqual({ kind: "checked", problem: null });
    const refused = await validate(bad);
    expect(refused).toEqual({ kind: "checked", problem: validateBazaarExtension(bad) });
    expect(refused.kind === "checked" && refused.problem).toContain("info.input.method");
    // Answered again from the cache, the same.
    expect(await validate(bad)).toEqual(refused);
  });

  test("the caller's event loop is not held: a timer due at once runs before the verdict (a check on this thread would answer first)", async () => {
    const validate = createBazaarValidator();
    const order: string[] = [];
    setTimeout(() => order.push("timer"), 0);
    await validate(extension("Faro")).then(() => order.push("verdict"));
    expect(order).toEqual(["timer", "verdict"]);
  });

  test("bounded: past maxPending a declaration is busy (not checked, never recorded), then checks go on", async () => {
    const validate = createBazaarValidator({ maxPending: 2 });
    const [a, b, c] = await Promise.all([validate(extension("Braga")), validate(extension("Evora")), validate(extension("Viseu"))]);
    expect([a, b]).toEqual([
      { kind: "checked", problem: null },
      { kind: "checked", problem: null },
    ]);
    expect(c).toEqual({ kind: "busy" });
    expect(await validate(extension("Viseu"))).toEqual({ kind: "checked", problem: null });
  });

  test("a validation that does not end in time is invalid (and cached), the Worker is replaced, and the next check works", async () => {
    // 1 ms: far less than a Worker takes to start and compile one schema.
    const slow = createBazaarValidator({ timeoutMs: 1 });
    const stuck = extension("Coimbra");
    expect(await slow(stuck)).toEqual({ kind: "checked", problem: "bazaar: validation did not end within 1 ms" });
    expect(await slow(stuck)).toEqual({ kind: "checked", problem: "bazaar: validation did not end within 1 ms" });
    const patient = createBazaarValidator({ timeoutMs: 30_000 });
    expect(await patient(stuck)).toEqual({ kind: "checked", problem: null });
  }, 60_000);
});
