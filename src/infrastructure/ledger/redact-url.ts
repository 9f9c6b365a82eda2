/** Path segments this long are treated as secrets (API keys in QuickNode/Alchemy-style URLs). */
const SECRET_SEGMENT_LENGTH = 8;
const MASK = "***";

function secretsOf(url: URL): string[] {
  const secrets = [url.username, url.password, decodeURIComponent(url.username), decodeURIComponent(url.password)];
  for (const value of url.searchParams.values()) secrets.push(value);
  for (const segment of url.pathname.split("/")) if (segment.length >= SECRET_SEGMENT_LENGTH) secrets.push(segment);
  // Longest first so a secret containing another is masked whole.
  return [...new Set(secrets.filter((s) => s.length >= 4))].sort((a, b) => b.length - a.length);
}

/**
 * SECURITY: RPC provider URLs carry API keys in the userinfo, path or query. This form
 * keeps only what an operator needs to tell endpoints apart (scheme, host, short path
 * parts, query keys) and is the only form of the URL that may reach a log or an error.
 */
export function redactUrl(raw: string): string {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return "<invalid url>";
  }
  const userinfo = url.username || url.password ? `${MASK}@` : "";
  const path = url.pathname
    .split("/")
    .map((segment) => (segment.length >= SECRET_SEGMENT_LENGTH ? MASK : segment))
    .join("/");
  const keys = [...url.searchParams.keys()];
  const query = keys.length > 0 ? `?${keys.map((k) => `${k}=${MASK}`).join("&")}` : "";
  return `${url.protocol}//${userinfo}${url.host}${path}${query}`;
}

/** SECURITY: removes every secret part of `raw` (and `raw` itself) from free text such as error messages. */
export function scrubUrlSecrets(text: string, raw: string): string {
  let out = text.split(raw).join(redactUrl(raw));
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return out;
  }
  for (const secret of secretsOf(url)) out = out.split(secret).join(MASK);
  return out;
}
