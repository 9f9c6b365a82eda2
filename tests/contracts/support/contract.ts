/**
 * Reading an interface's OpenAPI document (GET /openapi) beside the app that serves it: the
 * documented operations, their examples, and the TypeBox schemas the app's routes validate with
 * (the same objects the document was generated from).
 */
import type { TSchema } from "@sinclair/typebox";
import { Value } from "@sinclair/typebox/value";

export type Json = Record<string, unknown>;

type Route = Readonly<{ method: string; path: string; hooks?: Readonly<Record<string, unknown>> }>;
export type App = Readonly<{ routes: readonly Route[]; handle(request: Request): Promise<Response> }>;

export type Operation = Readonly<{ method: string; path: string; operation: Json }>;

export const HTTP_METHODS = ["get", "post", "put", "patch", "delete", "head", "options"] as const;

export async function documentOf(app: App): Promise<Json> {
  const response = await app.handle(new Request("http://contract.test/openapi"));
  if (response.status !== 200) throw new Error(`GET /openapi answered ${response.status}`);
  return (await response.json()) as Json;
}

export function operationsOf(document: Json): Operation[] {
  const paths = (document["paths"] ?? {}) as Record<string, Json>;
  return Object.entries(paths).flatMap(([path, item]) =>
    HTTP_METHODS.filter((method) => item[method] !== undefined).map((method) => ({ method: method.toUpperCase(), path, operation: item[method] as Json })),
  );
}

/** "/agents/:id" (Elysia) -> "/agents/{id}" (OpenAPI). */
export const toDocumentPath = (routePath: string): string => routePath.replace(/:([^/]+)/g, "{$1}");

export function routeOf(app: App, method: string, documentPath: string): Route | undefined {
  return app.routes.find((route) => route.method === method && toDocumentPath(route.path) === documentPath);
}

export function hookSchema(route: Route | undefined, part: "body" | "query" | "params"): TSchema | undefined {
  const schema = route?.hooks?.[part];
  return isSchema(schema) ? schema : undefined;
}

/** The TypeBox schema a route's answers with `status` are checked against, if it declares one. */
export function responseSchema(route: Route | undefined, status: number | string): TSchema | undefined {
  const byStatus = route?.hooks?.["response"];
  if (!byStatus || typeof byStatus !== "object") return undefined;
  const schema = (byStatus as Record<string, unknown>)[String(status)];
  return isSchema(schema) ? schema : undefined;
}

function isSchema(value: unknown): value is TSchema {
  return typeof value === "object" && value !== null;
}

/** Every problem TypeBox finds with `value` (empty when it passes). */
export function problems(schema: TSchema, value: unknown): string[] {
  return [...Value.Errors(schema, value)].map((error) => `${error.path || "/"}: ${error.message}`);
}

export function examplesOf(schema: unknown): unknown[] {
  if (!schema || typeof schema !== "object") return [];
  const record = schema as Json;
  if (Array.isArray(record["examples"])) return record["examples"];
  return record["example"] === undefined ? [] : [record["example"]];
}

/** The operation's request body schema in the document (JSON only), or undefined. */
export function documentedBody(operation: Json): Json | undefined {
  const content = ((operation["requestBody"] as Json | undefined)?.["content"] ?? {}) as Record<string, Json>;
  return content["application/json"]?.["schema"] as Json | undefined;
}

export type Parameter = Readonly<{ name: string; in: string; required?: boolean; schema?: Json }>;

export function parametersOf(operation: Json): Parameter[] {
  return (operation["parameters"] ?? []) as Parameter[];
}

/** The first example (or enum value) of each path parameter and of each query parameter that has one. */
export function exampleParameters(operation: Json): Readonly<{ path: Record<string, string>; query: Record<string, string> }> {
  const path: Record<string, string> = {};
  const query: Record<string, string> = {};
  for (const parameter of parametersOf(operation)) {
    const [value] = [...examplesOf(parameter.schema), ...((parameter.schema?.["enum"] as unknown[] | undefined) ?? [])];
    if (value === undefined) continue;
    (parameter.in === "path" ? path : query)[parameter.name] = String(value);
  }
  return { path, query };
}

export function fillPath(documentPath: string, values: Readonly<Record<string, string>>): string {
  return documentPath.replace(/\{([^}]+)\}/g, (_, name: string) => encodeURIComponent(values[name] ?? "x"));
}

export function jsonRequest(method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Request {
  return new Request(`http://contract.test${path}`, {
    method,
    headers: body === undefined ? headers : { "content-type": "application/json", ...headers },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
}

/** The body of a JSON answer, or null for any other content type. */
export async function jsonOf(response: Response): Promise<unknown> {
  return (response.headers.get("content-type") ?? "").includes("json") ? await response.json() : null;
}
