import { validateDiscoveryExtension, validateDiscoveryExtensionSpec } from "@x402/extensions/bazaar";
import { screenBazaarExtension, shortProblem } from "./bazaar-declaration-screen.ts";

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === "object" && value !== null && !Array.isArray(value);

/**
 * @x402/extensions' two validators on one bazaar extension: the protocol rules
 * (validateDiscoveryExtensionSpec) and `info` against its `schema` (validateDiscoveryExtension).
 * Null when valid, else why. The package builds a new Ajv and compiles the schema on every call
 * (tens of ms of CPU): it runs in the validation Worker (bazaar-validation-worker.ts), never on
 * the service's event loop.
 */
export function validateBazaarExtension(extension: Record<string, unknown>): string | null {
  // SECURITY: the validator screens before posting here; screened again so no caller of this
  // function can hand Ajv a schema with references (exponential) or an unbounded declaration.
  const screening = screenBazaarExtension(extension);
  if (screening.kind === "refused") return screening.problem;
  const spec = validateDiscoveryExtensionSpec(extension as never);
  if (!spec.valid) return problemOf(spec.errors);
  // SECURITY: `schema` is the payer's JSON and Ajv turns each `pattern` into a RegExp run on the
  // payer's `info`: one catastrophic pattern would hold the thread. Patterns are left out of the
  // check (they only constrain example values); every other keyword is checked.
  const checked = validateDiscoveryExtension({ ...extension, schema: withoutPatterns(extension["schema"]) } as never);
  return checked.valid ? null : problemOf(checked.errors);
}

/** Errors named in a verdict, at most (shortProblem caps its characters). */
const MAX_ERRORS_NAMED = 10;

// SECURITY: with allErrors a hostile declaration yields thousands of errors; the verdict keeps a
// few, so a cached or logged verdict stays small whatever the declaration was.
function problemOf(errors: readonly string[] | undefined): string {
  const all = errors ?? [];
  const more = all.length > MAX_ERRORS_NAMED ? ` (and ${all.length - MAX_ERRORS_NAMED} more)` : "";
  return shortProblem(`bazaar: ${all.slice(0, MAX_ERRORS_NAMED).join("; ")}${more}`);
}

/** A copy of a JSON Schema without `pattern` and `patternProperties` keywords, at any depth. */
function withoutPatterns(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(withoutPatterns);
  if (!isObject(schema)) return schema;
  const copy: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(schema)) {
    if (key === "pattern" || key === "patternProperties") continue;
    copy[key] = withoutPatterns(value);
  }
  return copy;
}
