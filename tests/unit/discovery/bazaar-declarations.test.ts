import { describe, expect, test } from "bun:test";
import { declareDiscoveryExtension } from "@x402/extensions/bazaar";
import { createBazaarDeclarationReader } from "../../../src/infrastructure/discovery/bazaar-declarations.ts";

const reader = createBazaarDeclarationReader();
const readBazaarDeclaration = (body: unknown) => reader.read(body);

const PAY_TO = "5uX8qJt8bX3zq2m9m5fZ4Bq9oWj3xZc8tLkQ1yN2pVxA";
const requirements = { scheme: "exact", network: "solana:EtWTRABZaYq6iMfeYKouRu166VU2xqa1", asset: "4zMMC9srt5Ri5X14GAgXhaHii3GnPAEERYPJgZJDncDU", amount: "10000", payTo: PAY_TO, maxTimeoutSeconds: 60, extra: { feePayer: "x" } };

/** What the stock server and client put in a payment: the declaration (enriched with the method, as bazaarResourceServerExtension does). */
function bazaarOf(method = "GET"): Record<string, unknown> {
  const declared = declareDiscoveryExtension({ input: { city: "Lisbon" }, inputSchema: { properties: { city: { type: "string" } }, required: ["city"] } })["bazaar"] as unknown as { info: { input: Record<string, unknown> } };
  return { ...declared, info: { ...declared.info, input: { ...declared.info.input, method } } };
}

function body(extensions: Record<string, unknown> | undefined, resource: unknown = { url: "https://api.example.com/weather?city=Lisbon", description: "Weather", mimeType: "application/json", serviceName: "Example Weather", tags: ["weather", "WEATHER", "forecast"] }) {
  return { paymentPayload: { x402Version: 2, accepted: requirements, resource, payload: { transaction: "AA==" }, ...(extensions ? { extensions } : {}) }, paymentRequirements: requirements };
}

describe("readBazaarDeclaration (the @x402/extensions 2.27.0 validators)", () => {
  test("a stock declaration is valid: canonical URL without the query, method, sanitised service metadata, the paid requirement", async () => {
    const reading = await readBazaarDeclaration(body({ bazaar: bazaarOf() }));
    expect(reading.kind).toBe("valid");
    if (reading.kind !== "valid") return;
    expect(reading.declaration).toMatchObject({
      resource: "https://api.example.com/weather",
      type: "http",
      operation: "GET",
      x402Version: 2,
      description: "Weather",
      mimeType: "application/json",
      serviceName: "Example Weather",
      // deduplicated case-insensitively by the package's sanitizeTags
      tags: ["weather", "forecast"],
      accept: requirements,
    });
  });

  test("no bazaar extension, no extensions, a v1 payload or a body that is not a payment: absent, nothing counted", async () => {
    expect((await readBazaarDeclaration(body(undefined))).kind).toBe("absent");
    expect((await readBazaarDeclaration(body({ paymentId: "abc" }))).kind).toBe("absent");
    expect((await readBazaarDeclaration({ paymentPayload: "eyJ4NDAyVmVyc2lvbiI6MX0=", paymentRequirements: requirements })).kind).toBe("absent");
    expect((await readBazaarDeclaration(null)).kind).toBe("absent");
  });

  test("info that fails its own schema is invalid (validateDiscoveryExtension)", async () => {
    const bad = bazaarOf();
    const broken = { ...bad, schema: { ...(bad["schema"] as object), required: ["input", "nonexistent"] } };
    const reading = await readBazaarDeclaration(body({ bazaar: broken }));
    expect(reading.kind).toBe("invalid");
  });

  test("a declaration breaking the protocol rules is invalid (validateDiscoveryExtensionSpec): unknown input type, bad method", async () => {
    const declared = bazaarOf("TRACE");
    expect((await readBazaarDeclaration(body({ bazaar: declared }))).kind).toBe("invalid");
    expect((await readBazaarDeclaration(body({ bazaar: { info: { input: { type: "smtp" } }, schema: {} } }))).kind).toBe("invalid");
    expect((await readBazaarDeclaration(body({ bazaar: "yes" }))).kind).toBe("invalid");
  });

  test("a declaration without a method (a server without bazaarResourceServerExtension) is invalid: it names no operation", async () => {
    const declared = declareDiscoveryExtension({ input: { city: "Lisbon" } })["bazaar"];
    expect((await readBazaarDeclaration(body({ bazaar: declared as unknown as Record<string, unknown> }))).kind).toBe("invalid");
  });

  test("a resource that is not an absolute http(s) URL is invalid", async () => {
    expect((await readBazaarDeclaration(body({ bazaar: bazaarOf() }, { url: "ftp://files.example.com/x" }))).kind).toBe("invalid");
    expect((await readBazaarDeclaration(body({ bazaar: bazaarOf() }, { url: "not a url" }))).kind).toBe("invalid");
    expect((await readBazaarDeclaration(body({ bazaar: bazaarOf() }, null))).kind).toBe("invalid");
  });

  test("SECURITY: only the bazaar extension is echoed, never the payload's others (signatures, payment ids)", async () => {
    const reading = await readBazaarDeclaration(body({ bazaar: bazaarOf(), signature: "c2VjcmV0", paymentId: "pay_123" }));
    expect(reading.kind === "valid" && Object.keys(reading.declaration.extensions)).toEqual(["bazaar"]);
  });

  test("SECURITY: a catastrophic `pattern` in the payer's schema is not run (it would hold the event loop)", async () => {
    const declared = bazaarOf();
    const schema = declared["schema"] as { properties: { input: { properties: Record<string, unknown> } } };
    const evil = {
      ...declared,
      info: { ...(declared["info"] as object), input: { ...(declared["info"] as { input: object }).input, queryParams: { city: `${"a".repeat(40)}!` } } },
      schema: { ...schema, properties: { ...schema.properties, input: { ...schema.properties.input, properties: { ...schema.properties.input.properties, queryParams: { type: "object", properties: { city: { type: "string", pattern: "^(a+)+$" } } } } } } },
    };
    // With the pattern run, (a+)+ against 40 a's and a "!" backtracks for minutes; without, this returns at once.
    expect((await readBazaarDeclaration(body({ bazaar: evil }))).kind).toBe("valid");
  });

  test("locate names the entry without any validator (what a /verify refresh uses); nothing for an absent declaration", async () => {
    const bad = bazaarOf();
    const failingSchema = { ...bad, schema: { ...(bad["schema"] as object), required: ["input", "nonexistent"] } };
    expect(reader.locate(body({ bazaar: failingSchema }))).toEqual({ type: "http", operation: "GET", resource: "https://api.example.com/weather", payTo: PAY_TO });
    expect(reader.locate(body(undefined))).toBeNull();
    // Not even the spec check (it builds an Ajv per call, and a /verify is free): a method the spec
    // refuses is named too, and refreshes nothing, since no settlement could have created its entry.
    expect(reader.locate(body({ bazaar: bazaarOf("TRACE") }))).toEqual({ type: "http", operation: "TRACE", resource: "https://api.example.com/weather", payTo: PAY_TO });
  });

  test("an external $ref in the schema is refused by the package's validator", async () => {
    const declared = bazaarOf();
    expect((await readBazaarDeclaration(body({ bazaar: { ...declared, schema: { $ref: "https://evil.example.com/schema.json" } } }))).kind).toBe("invalid");
  });
});
