import { ValueErrorType } from "@sinclair/typebox/errors";

/**
 * One schema violation as TypeBox reports it (Elysia's `ValidationError.all` items carry the same
 * fields). A union's violation holds one iterator of errors per variant.
 */
export type SchemaViolation = Readonly<{
  type: number;
  path: string;
  message: string;
  value: unknown;
  schema: Readonly<Record<string, unknown>>;
  errors?: readonly Iterable<SchemaViolation>[];
}>;

/**
 * The schema option that words a violation for clients: a phrase that follows the field's path
 * ("must be a non-empty string"). It is an OpenAPI extension keyword, so the document shows
 * what the 400 will say.
 */
export const ERROR_PHRASE = "x-error";
/** A stable code put in front of the message (e.g. PAYMENT_ID_INVALID), for rules clients match on. */
export const ERROR_CODE = "x-error-code";

/** Errors that mean "this is not even the right JSON type", as opposed to a constraint. */
const TYPE_MISMATCH: ReadonlySet<number> = new Set([
  ValueErrorType.Array,
  ValueErrorType.Boolean,
  ValueErrorType.Integer,
  ValueErrorType.Literal,
  ValueErrorType.Null,
  ValueErrorType.Number,
  ValueErrorType.Object,
  ValueErrorType.String,
  ValueErrorType.Never,
]);

/**
 * The 400 message lines for a request that failed its schema: one line per field, the first
 * problem found for it, named by its dotted path (after `prefix`); `root` names the value itself
 * ("request body", "query", ...).
 * A union is explained by the variant the value was evidently meant to be (the right JSON type,
 * fewest problems), so a v2 payload with a bad amount says so instead of "no variant matched".
 */
export function violationMessages(violations: Iterable<SchemaViolation>, root: string, prefix = ""): string[] {
  const byPath = new Map<string, Line>();
  for (const violation of violations) {
    for (const line of explain(materialise(violation))) if (!byPath.has(line.path)) byPath.set(line.path, line);
  }
  return [...byPath.values()].map(({ path, text, code }) => `${code ? `${code}: ` : ""}${name(path, root, prefix)} ${text}`);
}

type Line = Readonly<{ path: string; text: string; code?: string }>;

/** A violation whose union variants are read into arrays (TypeBox hands out one-shot iterators). */
type Violation = SchemaViolation & Readonly<{ variants: readonly (readonly Violation[])[] }>;

function materialise(violation: SchemaViolation): Violation {
  return { ...violation, variants: (violation.errors ?? []).map((iterator) => [...iterator].map(materialise)) };
}

function explain(violation: Violation): Line[] {
  if (violation.type === ValueErrorType.Intersect) return []; // the next violation says which part failed
  if (violation.type === ValueErrorType.Union) {
    const variant = intendedVariant(violation);
    if (variant) return variant.flatMap(explain);
  }
  const code = violation.schema[ERROR_CODE];
  return [{ path: violation.path, text: phrase(violation), ...(typeof code === "string" ? { code } : {}) }];
}

/** The variant of the right JSON type with the fewest problems; null when the value fits none. */
function intendedVariant(union: Violation): readonly Violation[] | null {
  let best: readonly Violation[] | null = null;
  for (const errors of union.variants) {
    if (!isWrongType(errors, union.path) && (best === null || errors.length < best.length)) best = errors;
  }
  return best;
}

function isWrongType(errors: readonly Violation[], path: string): boolean {
  const first = errors.find((error) => error.type !== ValueErrorType.Intersect);
  if (!first || first.path !== path) return false;
  if (first.type === ValueErrorType.Union) return intendedVariant(first) === null;
  return TYPE_MISMATCH.has(first.type);
}

function phrase(violation: SchemaViolation): string {
  if (violation.type === ValueErrorType.ObjectRequiredProperty) return "is required";
  const worded = violation.schema[ERROR_PHRASE];
  if (typeof worded === "string") return worded;
  return violation.message.charAt(0).toLowerCase() + violation.message.slice(1);
}

/** "/paymentPayload/accepted/amount" -> "paymentPayload.accepted.amount"; the value itself is `root`. */
function name(path: string, root: string, prefix: string): string {
  return path === "" ? root : `${prefix}${path.slice(1).replaceAll("/", ".")}`;
}
