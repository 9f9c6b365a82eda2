/**
 * GET /openapi on both interfaces of the real service (buildService, app.handle): every route the
 * app registers is in its document, every documented operation answers, and the document says
 * what design.md requires (OpenAPI 3.1, versions, every reason code, JSON bodies, examples).
 */
import { describe, expect, test } from "bun:test";
import pkg from "../../package.json" with { type: "json" };
import { REASON_CODES } from "../../src/domain/reason-codes.ts";
import {
  type Json,
  documentedBody,
  examplesOf,
  exampleParameters,
  fillPath,
  jsonRequest,
  operationsOf,
  parametersOf,
  toDocumentPath,
} from "./support/contract.ts";
import { INTERFACES, useServedDocuments } from "./support/served-documents.ts";

const served = useServedDocuments();

for (const name of INTERFACES) {
  describe(`the ${name} interface's OpenAPI document`, () => {
    const document = () => served.document(name);
    const app = () => served.app(name);

    test("is OpenAPI 3.1 with the interface's version", () => {
      expect(String(document()["openapi"])).toMatch(/^3\.1\.\d+$/);
      const info = document()["info"] as Json;
      // service-spec.md: "The facilitator interface description carries the version 0.2.0"; the registry's is the package's.
      expect(info["version"]).toBe(name === "facilitator" ? "0.2.0" : pkg.version);
      expect(typeof info["title"]).toBe("string");
    });

    test("lists every route the app registers", () => {
      const documented = new Set(operationsOf(document()).map((op) => `${op.method} ${op.path}`));
      const registered = app().routes.map((route) => `${route.method} ${toDocumentPath(route.path)}`);
      expect(registered.length).toBeGreaterThan(8);
      expect(registered.filter((route) => !documented.has(route))).toEqual([]);
      // And nothing is documented that the app does not serve.
      expect([...documented].filter((op) => !registered.includes(op))).toEqual([]);
    });

    test("every documented operation answers through app.handle (no 404)", async () => {
      const answers: string[] = [];
      for (const { method, path, operation } of operationsOf(document())) {
        const { path: pathValues, query } = exampleParameters(operation);
        const search = new URLSearchParams(query).toString();
        const [body] = examplesOf(documentedBody(operation));
        const response = await app().handle(jsonRequest(method, `${fillPath(path, pathValues)}${search ? `?${search}` : ""}`, body));
        await response.arrayBuffer();
        answers.push(`${method} ${path} -> ${response.status === 404 ? 404 : "answered"}`);
      }
      expect(answers.filter((answer) => answer.endsWith("404"))).toEqual([]);
    });

    test("every operation has an operationId, a summary, a tag and its responses", () => {
      const ids = new Set<string>();
      for (const { method, path, operation } of operationsOf(document())) {
        const where = `${method} ${path}`;
        expect({ where, id: typeof operation["operationId"] }).toEqual({ where, id: "string" });
        expect({ where, summary: typeof operation["summary"] }).toEqual({ where, summary: "string" });
        expect({ where, tagged: Array.isArray(operation["tags"]) && (operation["tags"] as unknown[]).length > 0 }).toEqual({ where, tagged: true });
        expect({ where, responses: Object.keys((operation["responses"] ?? {}) as Json).length > 0 }).toEqual({ where, responses: true });
        ids.add(String(operation["operationId"]));
      }
      expect(ids.size).toBe(operationsOf(document()).length);
    });

    test("request bodies are JSON only (the service refuses other content types)", () => {
      for (const { method, path, operation } of operationsOf(document())) {
        const body = operation["requestBody"] as Json | undefined;
        if (!body) continue;
        expect({ op: `${method} ${path}`, types: Object.keys(body["content"] as Json) }).toEqual({ op: `${method} ${path}`, types: ["application/json"] });
      }
    });

    test("every request body, parameter and JSON response has an example", () => {
      const missing: string[] = [];
      for (const { method, path, operation } of operationsOf(document())) {
        const where = `${method} ${path}`;
        const body = documentedBody(operation);
        if (body && examplesOf(body).length === 0) missing.push(`${where} request body`);
        for (const parameter of parametersOf(operation)) {
          if (examplesOf(parameter.schema).length === 0 && !Array.isArray(parameter.schema?.["enum"])) missing.push(`${where} ${parameter.in} ${parameter.name}`);
        }
        for (const [status, response] of Object.entries((operation["responses"] ?? {}) as Record<string, Json>)) {
          for (const [type, media] of Object.entries((response["content"] ?? {}) as Record<string, Json>)) {
            if (!type.includes("json") || path === "/openapi") continue;
            if (examplesOf(media["schema"]).length === 0 && media["example"] === undefined) missing.push(`${where} ${status} ${type}`);
          }
        }
      }
      expect(missing).toEqual([]);
    });

    test("every error answer is documented in the one error shape", () => {
      for (const { method, path, operation } of operationsOf(document())) {
        for (const [status, response] of Object.entries((operation["responses"] ?? {}) as Record<string, Json>)) {
          if (Number(status) < 400 || (path.startsWith("/health") && status === "503")) continue;
          const schema = ((response["content"] as Json)["application/json"] as Json)["schema"] as Json;
          expect({ op: `${method} ${path} ${status}`, required: schema["required"] }).toEqual({ op: `${method} ${path} ${status}`, required: ["statusCode", "message", "error"] });
        }
      }
    });
  });
}

describe("the facilitator's reason codes", () => {
  const enumAt = (path: string, field: string) => {
    const paths = served.document("facilitator")["paths"] as Record<string, Json>;
    const schema = ((((paths[path]?.["post"] as Json)["responses"] as Json)["200"] as Json)["content"] as Json)["application/json"] as Json;
    return (((schema["schema"] as Json)["properties"] as Json)[field] as Json)["enum"];
  };

  test("invalidReason (/verify) and errorReason (/settle) enumerate the closed union, every code", () => {
    expect(enumAt("/verify", "invalidReason")).toEqual([...REASON_CODES]);
    expect(enumAt("/settle", "errorReason")).toEqual([...REASON_CODES]);
  });

  test("the /verify body documents both wire forms of paymentPayload, base64 v1 with its decoded schema", () => {
    const paths = served.document("facilitator")["paths"] as Record<string, Json>;
    const body = documentedBody(paths["/verify"]?.["post"] as Json) as Json;
    const payload = (body["properties"] as Json)["paymentPayload"] as Json;
    const variants = payload["anyOf"] as Json[];
    expect(variants.map((variant) => variant["title"])).toEqual([
      "PaymentPayload",
      "PaymentPayload (settlement mode)",
      "PaymentPayload (x402 v1, base64 JSON)",
      "PaymentPayload (x402 v1)",
      "PaymentPayload (x402 v1) (settlement mode)",
    ]);
    const base64 = variants[2] as Json;
    expect(base64).toMatchObject({ type: "string", contentEncoding: "base64", contentMediaType: "application/json" });
    expect(((base64["contentSchema"] as Json)["anyOf"] as unknown[]).length).toBe(2);
    // Unknown top-level fields are accepted (design.md §3).
    expect(body["additionalProperties"]).toBe(true);
  });
});
