/**
 * Responses are checked against their schemas by Elysia on every request (the routes declare
 * `response`; the apps run with `normalize: false`, so nothing is trimmed to fit). A violation is
 * our bug: a 500 in the error shape, logged with the route and the problems, never the values.
 * Because the check is always on, every HTTP suite (verification, settlement, registry, auth,
 * registration, ...) runs with its responses checked; this file proves the check bites, that
 * every JSON route has it, and that error answers fit their documented schema too.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { LogFields, Logger } from "../../../src/application/ports/logger.ts";
import type { SettlementService } from "../../../src/application/settlement/settle-payment.ts";
import { createFacilitatorApp } from "../../../src/http/facilitator-app.ts";
import { EXAMPLE_V2_REQUEST } from "../../../src/http/facilitator/examples.ts";
import type { TestService } from "../../settlement/support/service-harness.ts";
import { createActors } from "../../../fixtures/payment-builder.ts";
import { verifyDeps, withVerify } from "../../../fixtures/verify-deps.ts";
import { type App, jsonOf, jsonRequest, problems, responseSchema, toDocumentPath } from "../../contracts/support/contract.ts";
import { startContractService } from "../../contracts/support/contract-service.ts";

type Logged = { message: string; fields?: LogFields };

function recordingLogger(errors: Logged[]): Logger {
  const logger: Logger = {
    debug() {},
    info() {},
    warn() {},
    error: (message, fields) => void errors.push({ message, ...(fields ? { fields } : {}) }),
    child: () => logger,
  };
  return logger;
}

const ok = async () => ({ status: "ok" as const });
const health = { ledger: ok, store: ok, signer: ok };

async function facilitatorWith(overrides: Readonly<{ verify?: unknown; settlement?: unknown }>, errors: Logged[]) {
  const actors = await createActors();
  return createFacilitatorApp({
    ...withVerify(verifyDeps(actors)),
    ...(overrides.verify ? { verify: overrides.verify as never } : {}),
    settlement: (overrides.settlement ?? null) as SettlementService | null,
    logger: recordingLogger(errors),
    health,
    version: "test",
  });
}

describe("a response outside its schema", () => {
  test("is a 500 in the error shape, logged with the route and the problem", async () => {
    const errors: Logged[] = [];
    // A verification that answers a reason code outside the closed union (a bug the types would
    // normally stop; cast here on purpose).
    const app = await facilitatorWith({ verify: async () => ({ ok: false, reason: "NOT_A_REASON_CODE", message: "made up" }) }, errors);
    const response = await app.handle(jsonRequest("POST", "/verify", EXAMPLE_V2_REQUEST));
    expect(response.status).toBe(500);
    expect(await response.json()).toEqual({ statusCode: 500, message: "internal error", error: "Internal Server Error" });
    expect(errors).toHaveLength(1);
    expect(errors[0]?.message).toBe("response does not match its schema");
    expect(errors[0]?.fields).toEqual({ route: "/verify", problems: "invalidReason must be one of the documented values" });
  });

  test("a field the schema does not name is a violation, not trimmed; its value never reaches the log", async () => {
    const errors: Logged[] = [];
    const settlement = {
      settle: async () => ({ success: true, transaction: "sig", network: "solana:test", accessToken: "secret-value-123" }),
      drain: async () => {},
    };
    const app = await facilitatorWith({ settlement }, errors);
    const response = await app.handle(jsonRequest("POST", "/settle", EXAMPLE_V2_REQUEST));
    expect(response.status).toBe(500);
    expect(JSON.stringify(await response.json())).not.toContain("secret-value-123");
    expect(errors).toHaveLength(1);
    expect(JSON.stringify(errors)).not.toContain("secret-value-123");
    expect(errors[0]?.fields).toMatchObject({ route: "/settle" });
  });

  test("a well-formed answer passes (the check is not a blanket 500)", async () => {
    const errors: Logged[] = [];
    const app = await facilitatorWith({ verify: async () => ({ ok: true, payer: "GmaDrppBC7P5ARKV8g3djiwP89vz1jLK23V2GBjuAEGB" }) }, errors);
    const response = await app.handle(jsonRequest("POST", "/verify", EXAMPLE_V2_REQUEST));
    expect(response.status).toBe(200);
    expect(errors).toEqual([]);
  });
});

describe("the real service's routes", () => {
  let service: TestService;
  beforeAll(async () => {
    service = await startContractService({ REGISTER_RATE_LIMIT_PER_MINUTE: "1", AUTH_CHALLENGE_RATE_LIMIT_PER_MINUTE: "1" });
  }, 30_000);
  afterAll(() => service.dispose());

  /** Routes that answer something other than JSON, documented by hand. */
  const NOT_JSON = new Set(["GET /metrics", "GET /docs", "GET /docs/assets/{file}", "GET /openapi"]);

  test("every JSON route declares the schema of its success answer, so Elysia checks it", () => {
    for (const app of [service.facilitatorApp, service.registryApp] as App[]) {
      for (const route of app.routes) {
        const name = `${route.method} ${toDocumentPath(route.path)}`;
        if (NOT_JSON.has(name)) continue;
        const success = ["200", "201"].some((status) => responseSchema(route, status) !== undefined);
        expect({ name, success }).toEqual({ name, success: true });
      }
    }
  });

  test("error answers pass the schema documented for their route and status", async () => {
    const { facilitatorApp, registryApp } = service;
    const unknownAgent = "9xQeWvG816bUx9EPjHmaT23yvVM2ZWbrrpZb9PusVFin";
    const register = { name: "A", ownerAddress: "5hisDHGD1hLzUduMsYXV2FsmFrw9KarebiwmjPm6cs53", metadataUri: "https://agents.example.com/a.json" };
    const cases: [App, string, Request, number][] = [
      [facilitatorApp, "/verify", jsonRequest("POST", "/verify", {}), 400],
      [facilitatorApp, "/settle", jsonRequest("POST", "/settle", { paymentPayload: 42, paymentRequirements: {} }), 400],
      [facilitatorApp, "/verify", new Request("http://contract.test/verify", { method: "POST", headers: { "content-type": "application/json" }, body: `{"pad":"${"x".repeat(70_000)}"}` }), 413],
      [registryApp, "/agents", jsonRequest("GET", "/agents?limit=0&active=maybe"), 400],
      [registryApp, "/agents/:id", jsonRequest("GET", `/agents/${unknownAgent}`), 404],
      [registryApp, "/agents/:id/feedback", jsonRequest("GET", `/agents/${unknownAgent}/feedback`), 404],
      [registryApp, "/agents/:id/services", jsonRequest("GET", "/agents/x/services?serviceType=grpc"), 400],
      [registryApp, "/users/me", jsonRequest("GET", "/users/me"), 401],
      [registryApp, "/auth/token", jsonRequest("POST", "/auth/token", { address: "nope" }), 400],
      [registryApp, "/agents/register", jsonRequest("POST", "/agents/register", register), 201],
      [registryApp, "/agents/register", jsonRequest("POST", "/agents/register", register), 429],
      [registryApp, "/auth/challenge", jsonRequest("POST", "/auth/challenge", { address: register.ownerAddress }), 200],
      [registryApp, "/auth/challenge", jsonRequest("POST", "/auth/challenge", { address: register.ownerAddress }), 429],
    ];
    for (const [app, path, request, status] of cases) {
      const response = await app.handle(request);
      const body = await jsonOf(response);
      const route = app.routes.find((r) => r.path === path && r.method === request.method);
      const schema = responseSchema(route, response.status);
      expect({ path, status: response.status }).toEqual({ path, status });
      expect({ path, documented: schema !== undefined }).toEqual({ path, documented: true });
      if (schema) expect({ path, problems: problems(schema, body) }).toEqual({ path, problems: [] });
    }
  });

  test("/settle without a fee-payer key: the specified 500 fits its documented schema", async () => {
    const errors: Logged[] = [];
    const app = (await facilitatorWith({}, errors)) as unknown as App;
    const response = await app.handle(jsonRequest("POST", "/settle", EXAMPLE_V2_REQUEST));
    const body = await jsonOf(response);
    expect(response.status).toBe(500);
    expect(body).toEqual({ statusCode: 500, message: "facilitator keypair is not configured for settlement", error: "Internal Server Error" });
    const schema = responseSchema(app.routes.find((r) => r.path === "/settle"), 500);
    expect(schema).toBeDefined();
    if (schema) expect(problems(schema, body)).toEqual([]);
  });
});
