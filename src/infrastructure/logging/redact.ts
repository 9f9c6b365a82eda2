/** Field names whose values are never written anywhere. */
const SECRET_FIELD = /(secret|private|password|passwd|pin|token|authorization|seed|mnemonic|keypair)/i;

// SECURITY: RPC and database URLs often embed API keys or passwords (user:pass@, ?api-key=).
const URL_CREDENTIALS = /\b([a-z][a-z0-9+.-]*:\/\/)([^/\s:@]+(:[^/\s@]*)?@)/gi;
const URL_KEY_PARAM = /([?&](?:api[-_]?key|apikey|key|token|access[-_]?token|auth)=)[^&\s"']+/gi;

/** Removes credentials from free text: URL userinfo and key-like query parameters. */
export function redactText(text: string): string {
  return text.replace(URL_CREDENTIALS, "$1***@").replace(URL_KEY_PARAM, "$1***");
}

/** Deep copy of log fields with secret-named fields masked and credentials stripped from strings. */
export function redactFields(value: unknown, depth = 0): unknown {
  if (depth > 6) return "[depth]";
  if (typeof value === "string") return redactText(value);
  if (typeof value === "bigint") return value.toString();
  if (value instanceof Error) return redactText(`${value.name}: ${value.message}`);
  if (Array.isArray(value)) return value.map((v) => redactFields(v, depth + 1));
  if (value && typeof value === "object") {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) out[k] = SECRET_FIELD.test(k) ? "***" : redactFields(v, depth + 1);
    return out;
  }
  return value;
}
