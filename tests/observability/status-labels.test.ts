// Request metrics and request log lines carry the status the client actually received, for
// answers made by every path of the stack: schema validation, a route's own 404, no route at all,
// authentication, the body-size cap and a rate limit. Real service (buildService), real logger.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { generateKeyPairSigner } from "@solana/kit";
import { type ObservedService, json, startObservedService } from "./support/observed-service.ts";

let service: ObservedService;
beforeAll(async () => {
  service = await startObservedService({ AUTH_CHALLENGE_RATE_LIMIT_PER_MINUTE: "1" });
}, 30_000);
afterAll(async () => {
  await service?.dispose();
});

type Case = Readonly<{ name: string; app: "facilitator" | "registry"; method: string; route: string; status: number; send(): Promise<Response> }>;

const address = (await generateKeyPairSigner()).address;
const CASES: readonly Case[] = [
  {
    name: "400 from schema validation (POST /auth/challenge without address)",
    app: "registry",
    method: "POST",
    route: "/auth/challenge",
    status: 400,
    send: () => service.send("registry", "/auth/challenge", { ...json({}), headers: { "content-type": "application/json", "x-request-id": "case-400" } }),
  },
  {
    name: "404 from GET /agents/:id for an unknown agent",
    app: "registry",
    method: "GET",
    route: "/agents/:id",
    status: 404,
    send: () => service.send("registry", `/agents/${address}`, { headers: { "x-request-id": "case-404-agent" } }),
  },
  {
    name: "404 for a route that does not exist, labelled unmatched",
    app: "registry",
    method: "GET",
    route: "unmatched",
    status: 404,
    send: () => service.send("registry", "/no/such/route", { headers: { "x-request-id": "case-404-unmatched" } }),
  },
  {
    name: "401 from GET /users/me without a token",
    app: "registry",
    method: "GET",
    route: "/users/me",
    status: 401,
    send: () => service.send("registry", "/users/me", { headers: { "x-request-id": "case-401" } }),
  },
  {
    name: "413 from the body-size cap (POST /verify with 100 KiB)",
    app: "facilitator",
    method: "POST",
    route: "/verify",
    status: 413,
    send: () =>
      service.send("facilitator", "/verify", { method: "POST", headers: { "content-type": "application/json", "x-request-id": "case-413" }, body: `{"pad":"${"x".repeat(100 * 1024)}"}` }),
  },
  {
    name: "429 from the sign-in challenge rate limit (second challenge in the minute)",
    app: "registry",
    method: "POST",
    route: "/auth/challenge",
    status: 429,
    send: async () => {
      await service.send("registry", "/auth/challenge", json({ address }));
      return service.send("registry", "/auth/challenge", { ...json({ address }), headers: { "content-type": "application/json", "x-request-id": "case-429" } });
    },
  },
];

describe("status labels: metrics and logs record the status actually sent (real service, real logger)", () => {
  for (const c of CASES) {
    test(c.name, async () => {
      const response = await c.send();
      expect(response.status).toBe(c.status);
      const requestId = response.headers.get("x-request-id");
      expect(requestId).toStartWith("case-");

      const counted = (await service.scrape()).split("\n");
      const service_ = c.app === "facilitator" ? "facilitator" : "registry";
      expect(counted).toContainEqual(expect.stringMatching(new RegExp(`^http_requests_total\\{service="${service_}",method="${c.method}",route="${escape(c.route)}",status="${c.status}"\\} [1-9]`)));

      const line = service.logs().find((l) => l["msg"] === "request" && l["requestId"] === requestId);
      expect(line).toMatchObject({ level: "info", service: service_, method: c.method, route: c.route, status: String(c.status) });
    });
  }

  test("no answer above was counted under a status it did not send (no 500, no 422, no 200 for an error)", async () => {
    const counted = (await service.scrape()).split("\n").filter((l) => l.startsWith("http_requests_total{"));
    expect(counted.filter((l) => /status="(500|422)"/.test(l))).toEqual([]);
    expect(counted.filter((l) => /route="(unmatched|\/users\/me)",status="200"/.test(l))).toEqual([]);
  });
});

function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&");
}
