/**
 * Checks a bazaar extension on the service's thread before it is sent to the validation Worker:
 * what the package's Ajv could spend unbounded time or memory on is refused here, cheaply, so it
 * never reaches the Worker (on Deno a Worker busy in JavaScript cannot be stopped).
 */

/** Levels of objects and arrays in the whole extension (info and schema), at most. */
export const MAX_DECLARATION_DEPTH = 20;
/** Characters of the extension's JSON, at most. */
export const MAX_DECLARATION_JSON = 32 * 1024;
/** Schema nodes times info nodes, at most: a bound on the checks (and errors) one validation makes. */
export const MAX_VALIDATION_WORK = 50_000;

// SECURITY: references make a schema a graph: a recursive `$ref` with `anyOf` branches, applied to
// an `info` nested a few dozen arrays deep, makes Ajv's validation exponential (measured: 3 s at
// depth 20, unending at 30, GBs of memory) from a 610-byte declaration. Stock sellers never emit
// references (declareDiscoveryExtension writes plain inline schemas), so any is refused.
const REFERENCE_KEYWORDS: ReadonlySet<string> = new Set(["$ref", "$dynamicRef", "$recursiveRef", "$defs", "definitions", "$anchor", "$dynamicAnchor", "$recursiveAnchor", "$id"]);
// Keywords whose value maps names to schemas: their keys are property names, not keywords.
const NAME_MAPS: ReadonlySet<string> = new Set(["properties", "patternProperties", "dependentSchemas"]);

/** Characters of a verdict, at most: it is cached and logged. */
const MAX_PROBLEM_CHARS = 1_024;

/** A verdict cut to MAX_PROBLEM_CHARS: every verdict the Worker posts (and so every one cached) passes here. */
export function shortProblem(problem: string): string {
  return problem.length <= MAX_PROBLEM_CHARS ? problem : `${problem.slice(0, MAX_PROBLEM_CHARS - 1)}…`;
}

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === "object" && value !== null && !Array.isArray(value);

/** The extension's JSON when it may be sent to the validator, else why it is refused (counted invalid). */
export type Screening = Readonly<{ kind: "accepted"; json: string }> | Readonly<{ kind: "refused"; problem: string }>;

const refused = (problem: string): Screening => ({ kind: "refused", problem });

export function screenBazaarExtension(extension: Record<string, unknown>): Screening {
  // SECURITY: the depth is checked first and the walk stops past the limit, so a declaration nested
  // thousands deep neither overflows the stack here nor in JSON.stringify below.
  if (deeperThan(extension, MAX_DECLARATION_DEPTH)) return refused(`bazaar: the declaration is nested deeper than ${MAX_DECLARATION_DEPTH} levels`);
  // SECURITY: Ajv's compile and validation grow with the schema's and info's size.
  const json = JSON.stringify(extension);
  if (json.length > MAX_DECLARATION_JSON) return refused(`bazaar: the declaration is larger than ${MAX_DECLARATION_JSON} characters`);
  const reference = referenceIn(extension["schema"], false);
  if (reference !== null) return refused(`bazaar: the schema uses ${reference}, which this facilitator does not accept (schema references)`);
  // SECURITY: without references each schema node checks each value of `info` at most once, so
  // their product bounds a validation's work. The package's Ajv runs with allErrors: an `anyOf` of k
  // failing branches under `items`, applied to an array of n values, makes k x n error objects and
  // one string joining them (a 7 KB declaration measured 0.5 s, 100 MB and a 9 MB message; an 18 KB
  // one 2.2 s and 444 MB), all under the depth and size limits above. Stock declarations from
  // declareDiscoveryExtension measure 174-1,054.
  const work = nodesIn(extension["schema"]) * nodesIn(extension["info"]);
  if (work > MAX_VALIDATION_WORK) return refused(`bazaar: the declaration's schema and info are too large to validate together (${work} > ${MAX_VALIDATION_WORK} schema x info nodes)`);
  return { kind: "accepted", json };
}

/** Values in a JSON tree, itself included (the depth was checked first: the recursion is bounded). */
function nodesIn(value: unknown): number {
  if (typeof value !== "object" || value === null) return 1;
  let count = 1;
  for (const child of Object.values(value)) count += nodesIn(child);
  return count;
}

function deeperThan(value: unknown, levels: number): boolean {
  if (typeof value !== "object" || value === null) return false;
  if (levels === 0) return true;
  for (const child of Object.values(value)) if (deeperThan(child, levels - 1)) return true;
  return false;
}

/** The first reference keyword in a schema (names under `properties` and the like are not keywords). */
function referenceIn(schema: unknown, namesHere: boolean): string | null {
  if (Array.isArray(schema)) {
    for (const item of schema) {
      const found = referenceIn(item, false);
      if (found !== null) return found;
    }
    return null;
  }
  if (!isObject(schema)) return null;
  for (const [key, value] of Object.entries(schema)) {
    if (!namesHere && REFERENCE_KEYWORDS.has(key)) return key;
    const found = referenceIn(value, !namesHere && NAME_MAPS.has(key));
    if (found !== null) return found;
  }
  return null;
}
