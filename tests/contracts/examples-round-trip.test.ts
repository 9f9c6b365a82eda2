/**
 * Every example in both OpenAPI documents round-trips: request examples pass the schema the route
 * validates with, response examples pass the schema of their status, and each request example
 * sent to the real service (buildService: embedded ledger with the sample agents, PGlite,
 * app.handle) is answered with a documented status whose schema its body passes.
 */
import { describe, expect, test } from "bun:test";
import {
  type Json,
  documentedBody,
  examplesOf,
  fillPath,
  hookSchema,
  jsonOf,
  jsonRequest,
  operationsOf,
  parametersOf,
  problems,
  responseSchema,
  routeOf,
} from "./support/contract.ts";
import { INTERFACES, useServedDocuments } from "./support/served-documents.ts";

const served = useServedDocuments();

/** A request built from one example: the body example, or one parameter example with the others' first. */
type ExampleRequest = Readonly<{ label: string; method: string; path: string; body?: unknown }>;

function exampleRequests(method: string, documentPath: string, operation: Json): ExampleRequest[] {
  const parameters = parametersOf(operation);
  const first = (values: unknown[]) => values[0];
  const pathValues: Record<string, string> = {};
  for (const parameter of parameters.filter((p) => p.in === "path")) {
    pathValues[parameter.name] = String(first([...examplesOf(parameter.schema), ...((parameter.schema?.["enum"] as unknown[]) ?? [])]));
  }
  const path = fillPath(documentPath, pathValues);
  const bodies = examplesOf(documentedBody(operation));
  if (bodies.length > 0) return bodies.map((body, i) => ({ label: `${method} ${documentPath} body example ${i}`, method, path, body }));
  const requests: ExampleRequest[] = [{ label: `${method} ${documentPath}`, method, path }];
  for (const parameter of parameters.filter((p) => p.in === "query")) {
    for (const value of [...examplesOf(parameter.schema), ...((parameter.schema?.["enum"] as unknown[]) ?? [])]) {
      const search = new URLSearchParams({ [parameter.name]: String(value) });
      requests.push({ label: `${method} ${documentPath}?${search}`, method, path: `${path}?${search}` });
    }
  }
  return requests;
}

for (const name of INTERFACES) {
  describe(`the ${name} document's examples`, () => {
    const app = () => served.app(name);
    const operations = () => operationsOf(served.document(name));

    test("request examples (bodies, path and query parameters) pass the schemas the routes validate with", () => {
      const failures: unknown[] = [];
      let checked = 0;
      for (const { method, path, operation } of operations()) {
        const route = routeOf(app(), method, path);
        const body = hookSchema(route, "body");
        for (const example of examplesOf(documentedBody(operation))) {
          checked++;
          if (!body) failures.push({ op: `${method} ${path}`, problem: "an example but no body schema" });
          else if (problems(body, example).length > 0) failures.push({ op: `${method} ${path}`, problems: problems(body, example) });
        }
        for (const parameter of parametersOf(operation)) {
          const schema = hookSchema(route, parameter.in === "path" ? "params" : "query");
          for (const example of examplesOf(parameter.schema)) {
            checked++;
            const value = { [parameter.name]: String(example) };
            if (schema && problems(schema, value).length > 0) failures.push({ op: `${method} ${path}`, parameter: parameter.name, problems: problems(schema, value) });
          }
        }
      }
      expect(checked).toBeGreaterThan(3);
      expect(failures).toEqual([]);
    });

    test("response examples pass the schema of their status", () => {
      const failures: unknown[] = [];
      let checked = 0;
      for (const { method, path, operation } of operations()) {
        const route = routeOf(app(), method, path);
        for (const [status, response] of Object.entries((operation["responses"] ?? {}) as Record<string, Json>)) {
          const media = ((response["content"] ?? {}) as Record<string, Json>)["application/json"];
          if (!media || path === "/openapi") continue;
          const schema = responseSchema(route, status);
          for (const example of examplesOf(media["schema"])) {
            checked++;
            if (!schema) failures.push({ op: `${method} ${path} ${status}`, problem: "no response schema on the route" });
            else if (problems(schema, example).length > 0) failures.push({ op: `${method} ${path} ${status}`, problems: problems(schema, example) });
          }
        }
      }
      expect(checked).toBeGreaterThan(5);
      expect(failures).toEqual([]);
    });

    test("each request example sent to the service gets a documented status and a body that passes its schema", async () => {
      const answers: unknown[] = [];
      const failures: unknown[] = [];
      for (const { method, path, operation } of operations()) {
        const route = routeOf(app(), method, path);
        for (const example of exampleRequests(method, path, operation)) {
          const response = await app().handle(jsonRequest(example.method, example.path, example.body));
          const documented = Object.keys((operation["responses"] ?? {}) as Json);
          const body = await jsonOf(response);
          answers.push(`${example.label}: ${response.status}`);
          if (!documented.includes(String(response.status))) {
            failures.push({ example: example.label, status: response.status, documented, body });
            continue;
          }
          const schema = responseSchema(route, response.status);
          if (schema && problems(schema, body).length > 0) failures.push({ example: example.label, problems: problems(schema, body) });
        }
      }
      console.log(`[contracts] ${name} examples sent: ${answers.join("; ")}`);
      expect(failures).toEqual([]);
    });
  });
}
