/**
 * The Bazaar validator's Worker (bazaar-validator.ts): the package's own validators run off the
 * event loop, the queue is bounded (a declaration past it is `busy`, which the recorder counts as
 * dropped), and a validation that does not end in time costs a Worker, never the caller.
 */
import { describe, expect, test } from "bun:test";
import { MAX_DECLARATION_DEPTH, MAX_DECLARATION_JSON, MAX_VALIDATION_WORK, screenBazaarExtension } from "../../../src/infrastructure/discovery/bazaar-declaration-screen.ts";
import { createBazaarValidator } from "../../../src/infrastructure/discovery/bazaar-validator.ts";
import { validateBazaarExtension } from "../../../src/infrastructure/discovery/bazaar-validation.ts";
import { manyErrors, recursiveRef, stockGet as extension, stockMcp, stockNestedPost } from "../../discovery/support/bazaar-declarations.ts";

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
    const slow = createBazaarValidator({ timeoutMs: 1, onTimeout: "replace" });
    const stuck = extension("Coimbra");
    expect(await slow(stuck)).toEqual({ kind: "checked", problem: "bazaar: validation did not end within 1 ms" });
    expect(await slow(stuck)).toEqual({ kind: "checked", problem: "bazaar: validation did not end within 1 ms" });
    const patient = createBazaarValidator({ timeoutMs: 30_000 });
    expect(await patient(stuck)).toEqual({ kind: "checked", problem: null });
  }, 60_000);

  test("stock declarations (query, nested JSON body with a `definitions` property, MCP tool) pass the screen and the package's validators", async () => {
    const validate = createBazaarValidator();
    for (const stock of [extension("Leiria"), stockNestedPost(), stockMcp()]) expect(await validate(stock)).toEqual({ kind: "checked", problem: null });
  });

  test("SECURITY: a recursive $ref declaration (exponential in Ajv) is refused on this thread, never sent to the Worker", async () => {
    // maxPending 0: anything sent towards the Worker would come back `busy`.
    const validate = createBazaarValidator({ maxPending: 0 });
    // 14 arrays deep: within the depth limit, so only the reference rule stops it (2^14 branches in Ajv).
    const verdict = await validate(recursiveRef(14));
    expect(verdict.kind).toBe("checked");
    expect(verdict.kind === "checked" && verdict.problem).toContain("schema references");
    // The validation function itself (what the Worker runs) refuses it too, before Ajv.
    expect(validateBazaarExtension(recursiveRef(14))).toBe("bazaar: the schema uses $ref, which this facilitator does not accept (schema references)");
    for (const keyword of ["$ref", "$dynamicRef", "$recursiveRef", "definitions", "$id"]) {
      const declaration = structuredClone(extension("Tomar")) as { schema: Record<string, unknown> };
      declaration.schema["properties"] = { input: { [keyword]: keyword === "definitions" ? {} : "#/x" } };
      expect(await validate(declaration)).toEqual({ kind: "checked", problem: `bazaar: the schema uses ${keyword}, which this facilitator does not accept (schema references)` });
    }
  });

  test("SECURITY: a declaration whose schema x info work passes the budget (allErrors: k x n errors) is refused on this thread; stock ones are far below it", async () => {
    const hostile = manyErrors(200, 2_000);
    expect(JSON.stringify(hostile).length).toBeLessThan(MAX_DECLARATION_JSON);
    const screened = screenBazaarExtension(hostile);
    expect(screened).toEqual({ kind: "refused", problem: expect.stringContaining("too large to validate together") });
    const validate = createBazaarValidator({ timeoutMs: 60_000 });
    expect(await validate(hostile)).toEqual({ kind: "checked", problem: expect.stringContaining("too large to validate together") });
    for (const stock of [extension("x"), stockNestedPost(), stockMcp()]) expect(screenBazaarExtension(stock).kind).toBe("accepted");
    expect(MAX_VALIDATION_WORK).toBeGreaterThan(10_000);
  });

  test("SECURITY: a verdict with many errors is cut (ten errors named, at most 1,024 characters), so cached and logged verdicts stay small", async () => {
    const declaration = manyErrors(20, 100);
    expect(screenBazaarExtension(declaration).kind).toBe("accepted");
    const direct = validateBazaarExtension(declaration);
    expect(direct).toContain("more)");
    expect(direct!.length).toBeLessThanOrEqual(1_024);
    const verdict = await createBazaarValidator({ timeoutMs: 30_000 })(declaration);
    expect(verdict).toEqual({ kind: "checked", problem: expect.stringContaining("bazaar:") });
    expect((verdict as { problem: string }).problem.length).toBeLessThanOrEqual(1_024);
  });

  test("SECURITY: declarations nested too deep or too large are refused on this thread", async () => {
    const validate = createBazaarValidator({ maxPending: 0 });
    let nested: unknown = "x";
    for (let i = 0; i < 10_000; i++) nested = [nested];
    const deep = structuredClone(extension("Beja")) as { info: { input: Record<string, unknown> } };
    deep.info.input["queryParams"] = { city: nested };
    expect(await validate(deep)).toEqual({ kind: "checked", problem: `bazaar: the declaration is nested deeper than ${MAX_DECLARATION_DEPTH} levels` });
    const large = structuredClone(extension("Beja")) as { info: { input: Record<string, unknown> } };
    large.info.input["queryParams"] = { city: "x".repeat(MAX_DECLARATION_JSON) };
    expect(await validate(large)).toEqual({ kind: "checked", problem: `bazaar: the declaration is larger than ${MAX_DECLARATION_JSON} characters` });
  });

  test("where a Worker cannot be stopped (Deno), a timeout ends validation: later declarations are busy, no Worker is started", async () => {
    const validate = createBazaarValidator({ timeoutMs: 1, onTimeout: "stop" });
    const stuck = extension("Sines");
    expect(await validate(stuck)).toEqual({ kind: "checked", problem: "bazaar: validation did not end within 1 ms" });
    expect(await validate(extension("Lagos"))).toEqual({ kind: "busy" });
    // The timed-out one is answered from the cache while its verdict lasts.
    expect(await validate(stuck)).toEqual({ kind: "checked", problem: "bazaar: validation did not end within 1 ms" });
  }, 60_000);

  test("a timeout's verdict expires: the declaration is tried again, not invalid forever", async () => {
    const validate = createBazaarValidator({ timeoutMs: 1, onTimeout: "stop", timeoutVerdictMs: 0 });
    const stuck = extension("Ourique");
    expect(await validate(stuck)).toEqual({ kind: "checked", problem: "bazaar: validation did not end within 1 ms" });
    // Not from the cache: a new try, which (validation stopped) is busy.
    expect(await validate(stuck)).toEqual({ kind: "busy" });
  }, 60_000);

  test("a Worker not ready in time is given up: its validation is busy (dropped), never left waiting", async () => {
    // 1 ms: less than any Worker takes to load the validators.
    const validate = createBazaarValidator({ startTimeoutMs: 1 });
    expect(await validate(extension("Elvas"))).toEqual({ kind: "busy" });
    const patient = createBazaarValidator();
    expect(await patient(extension("Elvas"))).toEqual({ kind: "checked", problem: null });
  }, 60_000);
});
