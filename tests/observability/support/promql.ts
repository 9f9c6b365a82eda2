/** Words of PromQL that are not metric names: label-list keywords, set operators, modifiers. */
const KEYWORDS = new Set(["by", "without", "on", "ignoring", "group_left", "group_right", "bool", "and", "or", "unless", "offset", "inf", "nan"]);

/**
 * The metric names a PromQL expression selects. Strings, label matchers, range and label lists
 * are removed first; what is left that is not a function call or a keyword is a metric name.
 */
export function metricNamesIn(expr: string): string[] {
  const stripped = expr
    .replace(/"(?:[^"\\]|\\.)*"/g, '""')
    .replace(/\{[^}]*\}/g, " ")
    .replace(/\[[^\]]*\]/g, " ")
    .replace(/\b(?:by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)/g, " ");
  const names = [...stripped.matchAll(/\b[a-zA-Z_:][a-zA-Z0-9_:]*\b(?!\s*\()/g)].map((m) => m[0]);
  return [...new Set(names.filter((name) => !KEYWORDS.has(name.toLowerCase())))];
}
