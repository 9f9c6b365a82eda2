import { signerSettingNames } from "../signers/index.ts";
import { AppConfigSchema } from "./app-config.ts";

/**
 * Every environment variable the service reads: the app settings, the signer settings of both
 * roles, and SOFTHSM2_CONF (read by the PKCS#11 module the HSM signer loads).
 */
export const KNOWN_SETTINGS: ReadonlySet<string> = new Set([...Object.keys(AppConfigSchema.properties), ...signerSettingNames(), "SOFTHSM2_CONF"]);

/** A variable that is not a setting but is spelled almost like one. */
export type MisspelledSetting = Readonly<{ name: string; meant: string }>;

/** Our names: uppercase words joined by underscores (`FACILITATOR_API_KEYS_FILE`). */
const SETTING_SHAPE = /^[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+$/;
/**
 * Variables other programs own, which are never ours whatever they look like: the runtimes',
 * npm's, the node image's, the CI's. (Most are excluded by the shape or the prefix anyway.)
 */
const OTHER_PROGRAMS = /^(?:npm_|BUN_|DENO_|NODE_(?:OPTIONS|PATH|VERSION|EXTRA_CA_CERTS|TLS_REJECT_UNAUTHORIZED|DEBUG|NO_WARNINGS|COMPILE_CACHE)$|YARN_|GITHUB_|RUNNER_|KUBERNETES_|XDG_|LC_|SSH_)/i;
/** How far a variable may be from a setting to count as its misspelling. */
const MAX_DISTANCE = 2;

/**
 * SECURITY: a misspelled setting is not an error to the schema (it is simply absent), so the
 * protection it meant to turn on stays off: `FACILITATOR_API_KEY_FILE` left the facilitator open
 * to anyone. This finds each variable that is not a setting but is within two edits
 * (Damerau-Levenshtein: insert, delete, substitute, swap) of one whose first word is the same
 * or one edit away. Variables that do not look like ours (lowercase, no underscore, another
 * program's prefix) are never reported, so PATH, HOME, CI, TERM, npm_* or BUN_* cannot trigger it.
 */
export function misspelledSettings(env: Readonly<Record<string, string | undefined>>, known: ReadonlySet<string> = KNOWN_SETTINGS): MisspelledSetting[] {
  const found: MisspelledSetting[] = [];
  for (const name of Object.keys(env).sort()) {
    if (env[name] === undefined || known.has(name) || !SETTING_SHAPE.test(name) || OTHER_PROGRAMS.test(name)) continue;
    const meant = closestSetting(name, known);
    if (meant !== null) found.push(Object.freeze({ name, meant }));
  }
  return found;
}

/** One line per misspelling, naming both variables (never a value). */
export function describeMisspelling({ name, meant }: MisspelledSetting): string {
  return `${name}: not a setting; did you mean ${meant}? (the service ignores ${name})`;
}

function closestSetting(name: string, known: ReadonlySet<string>): string | null {
  let best: { setting: string; distance: number } | null = null;
  const family = firstWord(name);
  for (const setting of known) {
    if (Math.abs(setting.length - name.length) > MAX_DISTANCE) continue;
    if (editDistance(family, firstWord(setting)) > 1) continue;
    const distance = editDistance(name, setting);
    if (distance <= MAX_DISTANCE && (best === null || distance < best.distance)) best = { setting, distance };
  }
  return best?.setting ?? null;
}

function firstWord(name: string): string {
  const end = name.indexOf("_");
  return end === -1 ? name : name.slice(0, end);
}

/** Damerau-Levenshtein distance, optimal string alignment variant (a swap of neighbours is one edit). */
export function editDistance(a: string, b: string): number {
  const rows = a.length + 1;
  const cols = b.length + 1;
  const d: number[] = new Array(rows * cols).fill(0);
  for (let i = 0; i < rows; i += 1) d[i * cols] = i;
  for (let j = 0; j < cols; j += 1) d[j] = j;
  for (let i = 1; i < rows; i += 1) {
    for (let j = 1; j < cols; j += 1) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let value = Math.min((d[(i - 1) * cols + j] ?? 0) + 1, (d[i * cols + j - 1] ?? 0) + 1, (d[(i - 1) * cols + j - 1] ?? 0) + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) value = Math.min(value, (d[(i - 2) * cols + j - 2] ?? 0) + 1);
      d[i * cols + j] = value;
    }
  }
  return d[rows * cols - 1] ?? 0;
}
