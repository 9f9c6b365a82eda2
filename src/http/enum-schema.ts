import { t } from "elysia";
import { ERROR_PHRASE } from "./validation-messages.ts";

type EnumValues = readonly [string, ...string[]];

/**
 * A closed list of strings as a JSON Schema `enum` (what OpenAPI tools render as a list of
 * values). Elysia's UnionEnum also sets `default` to the first value, which would claim a
 * default no endpoint has; it is removed here.
 */
export function enumSchema<const T extends EnumValues>(values: T, options: Readonly<Record<string, unknown>> = {}) {
  const phrase = values.length <= 8 ? `must be one of ${values.join(", ")}` : "must be one of the documented values";
  return t.UnionEnum(values, { default: undefined, [ERROR_PHRASE]: phrase, ...options });
}
