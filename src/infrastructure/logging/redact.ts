/**
 * The one list of redaction rules. Log lines, /health details, error messages and the
 * command-line tools' output pass through these functions before anything leaves the process;
 * there is no second copy elsewhere.
 *
 * 1. Fields whose name says secret (`SECRET_FIELD`) are masked whole, at any depth.
 * 2. In free text, URL userinfo (`user:pass@`) is masked.
 * 3. In free text, key-like query parameters (`?api-key=`, `&token=`) are masked.
 * 4. A known URL (an RPC endpoint) is reduced to scheme, host, short path parts and query keys:
 *    path segments of 8+ characters are API keys in QuickNode/Alchemy-style URLs.
 * 5. Every secret part of a known URL, and the URL itself, is removed from free text.
 * 6. A database URL is described by scheme, host, port and database name only.
 */

const MASK = "***";

/** Rule 1: field names whose values are never written anywhere. */
const SECRET_FIELD = /(secret|private|password|passwd|pin|token|authorization|seed|mnemonic|keypair)/i;

// SECURITY: RPC and database URLs often embed API keys or passwords (user:pass@, ?api-key=).
/** Rule 2; the user name may be empty (`redis://:password@host`, the usual Redis form). */
const URL_CREDENTIALS = /\b([a-z][a-z0-9+.-]*:\/\/)([^/\s:@]*(:[^/\s@]*)?@)/gi;
/** Rule 3. */
const URL_KEY_PARAM = /([?&](?:api[-_]?key|apikey|key|token|access[-_]?token|auth)=)[^&\s"']+/gi;
/** Rule 4: path segments this long are treated as secrets. */
const SECRET_SEGMENT_LENGTH = 8;

/** Rule 1 as a question: is a field (or a setting) of this name a secret? */
export function isSecretName(name: string): boolean {
  return SECRET_FIELD.test(name);
}

/**
 * Settings named after a secret whose values are not one: where the secret is (a file, a path, a
 * directory, a module, a token or key label or id) or how long something lasts. Masking their
 * values everywhere garbled unrelated text: a token label "facilitator" turned `ROLE=facilitator`
 * into `ROLE=***`.
 */
const SECRET_REFERENCE = /_(FILE|PATH|DIR|MODULE|LABEL|ID|SECONDS|MS)$/i;
const BOOLEAN_WORD = /^(true|false|yes|no|on|off)$/i;

/**
 * Rule 1 for values: whether the value of this environment setting is a secret to remove from free
 * text (a private key, a PIN, a password). A boolean says nothing secret (SEED_SAMPLE_AGENTS=true).
 */
export function isSecretValue(name: string, value: string | undefined): value is string {
  if (value === undefined || !isSecretName(name) || SECRET_REFERENCE.test(name)) return false;
  const trimmed = value.trim();
  return trimmed.length >= 4 && !BOOLEAN_WORD.test(trimmed);
}

/** Removes credentials from free text: URL userinfo and key-like query parameters (rules 2 and 3). */
export function redactText(text: string): string {
  return text.replace(URL_CREDENTIALS, `$1${MASK}@`).replace(URL_KEY_PARAM, `$1${MASK}`);
}

/** Deep copy of log fields with secret-named fields masked and credentials stripped from strings (rules 1-3). */
export function redactFields(value: unknown, depth = 0): unknown {
  if (depth > 6) return "[depth]";
  if (typeof value === "string") return redactText(value);
  if (typeof value === "bigint") return value.toString();
  if (value instanceof Error) return redactText(`${value.name}: ${value.message}`);
  if (Array.isArray(value)) return value.map((v) => redactFields(v, depth + 1));
  if (value && typeof value === "object") {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) out[k] = isSecretName(k) ? MASK : redactFields(v, depth + 1);
    return out;
  }
  return value;
}

/**
 * SECURITY (rule 4): RPC provider URLs carry API keys in the userinfo, path or query. This form
 * keeps only what an operator needs to tell endpoints apart (scheme, host, short path parts,
 * query keys) and is the only form of the URL that may reach a log or an error.
 */
export function redactUrl(raw: string): string {
  const url = parse(raw);
  if (url === null) return "<invalid url>";
  const userinfo = url.username || url.password ? `${MASK}@` : "";
  const path = url.pathname
    .split("/")
    .map((segment) => (segment.length >= SECRET_SEGMENT_LENGTH ? MASK : segment))
    .join("/");
  const keys = [...url.searchParams.keys()];
  const query = keys.length > 0 ? `?${keys.map((k) => `${k}=${MASK}`).join("&")}` : "";
  return `${url.protocol}//${userinfo}${url.host}${path}${query}`;
}

/** SECURITY (rule 5): removes every secret part of `raw` (and `raw` itself) from free text such as error messages. */
export function scrubUrlSecrets(text: string, raw: string): string {
  const url = parse(raw);
  const redacted = redactUrl(raw);
  // A URL with nothing to hide is its own redacted form, less the slash the parser adds
  // (`https://rpc.example` becomes `https://rpc.example/`): replacing it inside its redacted form
  // would double that slash.
  let out = url !== null && redacted === url.href ? text : text.split(raw).join(redacted);
  if (url === null) return out;
  for (const secret of secretsOf(url)) out = out.split(secret).join(MASK);
  return out;
}

/** Rules 2, 3 and 5 for every URL the caller knows (the settings that hold URLs), in one call. */
export function scrubSecrets(text: string, knownUrls: readonly (string | undefined)[]): string {
  let out = text;
  for (const raw of knownUrls) if (raw) out = scrubUrlSecrets(out, raw);
  return redactText(out);
}

/**
 * What may be said about a DATABASE_URL in logs, health output or error messages (rule 6).
 *
 * SECURITY: a DATABASE_URL usually carries the password (`postgres://user:pw@host/db`, or
 * `?password=` in the query). Logging it leaks the credential to anyone who reads logs, so
 * only host, port and database name ever leave this function.
 */
export function describeDatabaseUrl(databaseUrl: string): string {
  const url = parse(databaseUrl);
  // SECURITY: an unparsable URL may still embed a password; say nothing about it.
  if (url === null) return "postgres://<unparsable url>";
  const port = url.port === "" ? "" : `:${url.port}`;
  return `${url.protocol}//${url.hostname}${port}${url.pathname}`;
}

function parse(raw: string): URL | null {
  try {
    return new URL(raw);
  } catch {
    return null;
  }
}

function secretsOf(url: URL): string[] {
  const secrets = [url.username, url.password, safeDecode(url.username), safeDecode(url.password)];
  for (const value of url.searchParams.values()) secrets.push(value);
  for (const segment of url.pathname.split("/")) if (segment.length >= SECRET_SEGMENT_LENGTH) secrets.push(segment);
  // The scheme and host appear in every redacted form, so a "secret" equal to one of them (user
  // `postgres` on postgres://) hides nothing and would only garble the text around it.
  const shown = new Set([url.protocol.replace(/:$/, ""), url.hostname]);
  // Longest first so a secret containing another is masked whole.
  return [...new Set(secrets.filter((s) => s.length >= 4 && !shown.has(s)))].sort((a, b) => b.length - a.length);
}

/** A malformed percent-escape in a password must not turn redaction into a throw. */
function safeDecode(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}
