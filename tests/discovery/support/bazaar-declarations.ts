/**
 * Bazaar declarations for the validator's tests, Bun and Deno alike: stock ones from
 * declareDiscoveryExtension, and the hostile one a review measured (a recursive `$ref` with two
 * `anyOf` branches over an `info` nested `depth` arrays: exponential in Ajv, 610 bytes at 30).
 */
import { declareDiscoveryExtension } from "@x402/extensions/bazaar";

type Extension = Record<string, unknown>;

/** An HTTP GET declaration as a stock seller sends it (the method added, as the resource server does). */
export function stockGet(city: string, method = "GET"): Extension {
  const declared = declareDiscoveryExtension({ input: { city }, inputSchema: { properties: { city: { type: "string" } }, required: ["city"] } })["bazaar"] as unknown as { info: { input: Record<string, unknown> } };
  return { ...declared, info: { ...declared.info, input: { ...declared.info.input, method } } };
}

/** A POST declaration with a nested JSON body and output, and a property named `definitions`. */
export function stockNestedPost(): Extension {
  const declared = declareDiscoveryExtension({
    bodyType: "json",
    input: { a: { b: { c: 1 } }, definitions: { word: "x" } },
    inputSchema: { properties: { a: { type: "object", properties: { b: { type: "object", properties: { c: { type: "number" } } } } }, definitions: { type: "object", properties: { word: { type: "string" } } } } },
    output: { example: { r: { s: [1] } }, schema: { properties: { r: { type: "object", properties: { s: { type: "array", items: { type: "number" } } } } } } },
  } as never)["bazaar"] as unknown as { info: { input: Record<string, unknown> } };
  return { ...declared, info: { ...declared.info, input: { ...declared.info.input, method: "POST" } } };
}

/** An MCP tool declaration. */
export function stockMcp(): Extension {
  return declareDiscoveryExtension({ toolName: "search", description: "search the index", inputSchema: { type: "object", properties: { q: { type: "string" } } }, example: { q: "x" } } as never)["bazaar"] as unknown as Extension;
}

/** The hostile declaration: a stock one whose `city` must match a recursive schema, `depth` arrays deep. */
export function recursiveRef(depth: number): Extension {
  const base = structuredClone(stockGet("x")) as { info: { input: Record<string, unknown> }; schema: Record<string, any> };
  let data: unknown = 1;
  for (let i = 0; i < depth; i++) data = [data];
  base.info.input["queryParams"] = { city: data };
  base.schema["$defs"] = { r: { type: "array", items: { anyOf: [{ $ref: "#/$defs/r" }, { $ref: "#/$defs/r" }] } } };
  base.schema["properties"].input.properties.queryParams = { type: "object", properties: { city: { $ref: "#/$defs/r" } } };
  return base;
}

/**
 * The all-errors one a second review measured: no reference, within the depth and size limits, but an
 * `anyOf` of `branches` failing branches under `items`, over `values` items of `info`. The package's
 * Ajv (allErrors) makes branches x values errors and one string of them all.
 */
export function manyErrors(branches: number, values: number): Extension {
  const base = structuredClone(stockGet("x")) as { info: Record<string, unknown>; schema: Record<string, any> };
  base.info["x"] = new Array<number>(values).fill(0);
  base.schema["properties"]["x"] = { items: { anyOf: new Array(branches).fill(null).map(() => ({ type: "null" })) } };
  return base;
}
