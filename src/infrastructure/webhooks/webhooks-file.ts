import { createHash } from "node:crypto";
import { readFile } from "node:fs/promises";
import { Webhook } from "standardwebhooks";
import { SETTLEMENT_EVENT_TYPES, type SettlementEventType, type WebhookSubscription } from "../../application/ports/webhook-outbox.ts";
import type { AppConfig } from "../config/app-config.ts";
import type { ApiKeyEntry } from "../config/policy-files.ts";
import { forbiddenAddressReason } from "../metadata/ip-address-rules.ts";

/** One configured webhook: where, how it is signed, what it takes. The secret never leaves this object but to sign. */
export type WebhookEndpoint = WebhookSubscription &
  Readonly<{
    url: URL;
    /** The Standard Webhooks signer of this webhook's secret. */
    signer: Webhook;
  }>;

export type WebhookUrlRules = Readonly<{
  /** NODE_ENV=production: no loopback receiver at all. */
  production: boolean;
}>;

const IPV4_LITERAL = /^\d+\.\d+\.\d+\.\d+$/;
/** Standard Webhooks secrets are 24 to 64 random bytes; fewer is guessable. */
const MIN_SECRET_BYTES = 24;
const MAX_SECRET_BYTES = 64;
const FIELDS = new Set(["url", "secret", "events", "apiKey"]);

/**
 * WEBHOOKS_FILE: `[{"url", "secret": "whsec_<base64>", "events": [...], "apiKey"?}]`. Every problem
 * is listed, each naming the entry and the field, never the secret. `apiKeyNames` are the names in
 * FACILITATOR_API_KEYS_FILE (an `apiKey` must name one of them).
 */
export async function loadWebhooks(path: string, rules: WebhookUrlRules, apiKeyNames: readonly string[] | null): Promise<readonly WebhookEndpoint[]> {
  let text: string;
  try {
    text = await readFile(path, "utf8");
  } catch (error) {
    const code = error && typeof error === "object" && "code" in error ? String(error.code) : "read error";
    throw new Error(`WEBHOOKS_FILE cannot be read (${code})`);
  }
  const parsed = parseWebhooks(text, rules, apiKeyNames);
  if (!parsed.ok) throw new Error(parsed.errors.join("; "));
  return parsed.webhooks;
}

/** The service's webhooks from its settings (none without WEBHOOKS_FILE); the config check runs the same. */
export async function loadConfiguredWebhooks(
  config: Pick<AppConfig, "WEBHOOKS_FILE" | "NODE_ENV">,
  /** The configured API keys (loadConfiguredApiKeys), null without them. */
  apiKeys: readonly ApiKeyEntry[] | null,
): Promise<readonly WebhookEndpoint[]> {
  if (!config.WEBHOOKS_FILE) return [];
  return loadWebhooks(config.WEBHOOKS_FILE, { production: config.NODE_ENV === "production" }, apiKeys?.map((key) => key.name) ?? null);
}

export type ParsedWebhooks = Readonly<{ ok: true; webhooks: readonly WebhookEndpoint[] } | { ok: false; errors: readonly string[] }>;

export function parseWebhooks(text: string, rules: WebhookUrlRules, apiKeyNames: readonly string[] | null): ParsedWebhooks {
  let entries: unknown;
  try {
    entries = JSON.parse(text);
  } catch {
    return { ok: false, errors: ["WEBHOOKS_FILE is not valid JSON"] };
  }
  if (!Array.isArray(entries)) return { ok: false, errors: ["WEBHOOKS_FILE must be a JSON array of webhooks"] };
  const errors: string[] = [];
  const webhooks: WebhookEndpoint[] = [];
  const ids = new Set<string>();
  entries.forEach((entry: unknown, index) => {
    const at = `WEBHOOKS_FILE: entry ${index + 1}`;
    if (typeof entry !== "object" || entry === null || Array.isArray(entry)) return void errors.push(`${at} must be an object with url, secret and events`);
    const record = entry as Record<string, unknown>;
    const problems: string[] = [];
    for (const field of Object.keys(record)) if (!FIELDS.has(field)) problems.push(`${at}: unknown field ${JSON.stringify(field.slice(0, 40))}`);
    const url = typeof record["url"] === "string" ? webhookUrlProblem(record["url"], rules) : { problem: "url must be a string" };
    if ("problem" in url) problems.push(`${at}: ${url.problem}`);
    const signer = signerOf(record["secret"]);
    if (typeof signer === "string") problems.push(`${at}: ${signer}`);
    const events = eventsOf(record["events"]);
    if (typeof events === "string") problems.push(`${at}: ${events}`);
    const apiKey = record["apiKey"] ?? null;
    if (apiKey !== null && (typeof apiKey !== "string" || apiKey === "")) problems.push(`${at}: apiKey must be the name of an API key`);
    else if (apiKey !== null && apiKeyNames !== null && !apiKeyNames.includes(apiKey)) problems.push(`${at}: apiKey names no key in FACILITATOR_API_KEYS_FILE`);
    else if (apiKey !== null && apiKeyNames === null) problems.push(`${at}: apiKey needs FACILITATOR_API_KEYS_FILE (settlements are recorded with a key only when keys are configured)`);
    if (problems.length > 0 || "problem" in url || typeof signer === "string" || typeof events === "string") return void errors.push(...problems);
    const id = webhookIdOf(url.url, apiKey as string | null);
    if (ids.has(id)) return void errors.push(`${at}: the same url${apiKey === null ? "" : " and apiKey"} is configured twice`);
    ids.add(id);
    webhooks.push(Object.freeze({ id, url: url.url, signer, events, apiKey: apiKey as string | null }));
  });
  return errors.length > 0 ? { ok: false, errors } : { ok: true, webhooks: Object.freeze(webhooks) };
}

/**
 * SECURITY: a webhook URL is a request the service makes on the operator's behalf, so it passes the
 * metadata fetch's address rules (no loopback, private, link-local or other non-public target; no
 * credentials; https on its default port), checked here for literals and again at each delivery
 * for the addresses a name resolves to. Outside production `http://127.0.0.1[:port]` is allowed,
 * for a receiver on the developer's machine.
 */
export function webhookUrlProblem(text: string, rules: WebhookUrlRules): { url: URL } | { problem: string } {
  const url = URL.parse(text);
  if (url === null) return { problem: "url is not a valid URL" };
  if (url.username !== "" || url.password !== "") return { problem: "url may not contain credentials" };
  if (url.hash !== "") return { problem: "url may not contain a fragment" };
  if (isDevelopmentLoopback(url)) {
    if (rules.production) return { problem: "url: http://127.0.0.1 receivers are for development only (NODE_ENV=production)" };
    return { url };
  }
  if (url.protocol !== "https:") return { problem: "url must be https (http://127.0.0.1 only outside production)" };
  if (url.port !== "") return { problem: "url must use the default https port" };
  const host = url.hostname;
  if (host.startsWith("[") || IPV4_LITERAL.test(host)) {
    const ip = host.startsWith("[") ? host.slice(1, -1) : host;
    return forbiddenAddressReason(ip) === null ? { url } : { problem: "url is not a public internet address" };
  }
  const name = host.endsWith(".") ? host.slice(0, -1) : host;
  if (!name.includes(".") || name === "localhost" || name.endsWith(".localhost")) return { problem: "url is not a public internet address" };
  return { url };
}

/** http://127.0.0.1 (any port): the one loopback receiver allowed, outside production. */
export function isDevelopmentLoopback(url: URL): boolean {
  return url.protocol === "http:" && url.hostname === "127.0.0.1";
}

function signerOf(secret: unknown): Webhook | string {
  if (typeof secret !== "string" || !secret.startsWith("whsec_")) return "secret must be a Standard Webhooks secret: whsec_ followed by base64";
  const body = secret.slice("whsec_".length);
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(body)) return "secret must be whsec_ followed by base64";
  const bytes = Buffer.from(body, "base64").length;
  if (bytes < MIN_SECRET_BYTES || bytes > MAX_SECRET_BYTES) return `secret must hold ${MIN_SECRET_BYTES} to ${MAX_SECRET_BYTES} bytes (whsec_ + base64 of random bytes)`;
  return new Webhook(secret);
}

function eventsOf(events: unknown): readonly SettlementEventType[] | string {
  const phrase = `events must be a non-empty array of ${SETTLEMENT_EVENT_TYPES.join(", ")}`;
  if (!Array.isArray(events) || events.length === 0) return phrase;
  const known = events.map((event) => SETTLEMENT_EVENT_TYPES.find((type) => type === event));
  if (known.some((type) => type === undefined)) return phrase;
  return Object.freeze([...new Set(known as SettlementEventType[])]);
}

/** Stable across restarts and file edits that keep the URL and key, so undelivered events keep their webhook. */
function webhookIdOf(url: URL, apiKey: string | null): string {
  return createHash("sha256").update(`${url.href}\u0000${apiKey ?? ""}`).digest("hex").slice(0, 32);
}
