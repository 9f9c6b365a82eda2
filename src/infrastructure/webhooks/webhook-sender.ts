import { request as httpRequest } from "node:http";
import { request as httpsRequest } from "node:https";
import type { DeliveryAttempt, WebhookMessage, WebhookSender } from "../../application/webhooks/webhook-worker.ts";
import { type HostResolver, type ResolvedAddress, systemHostResolver } from "../metadata/host-resolver.ts";
import { forbiddenAddressReason } from "../metadata/ip-address-rules.ts";
import { pinnedLookup } from "../metadata/pinned-https-transport.ts";
import { type WebhookEndpoint, isDevelopmentLoopback } from "./webhooks-file.ts";

export const WEBHOOK_USER_AGENT = "x402-facilitator-webhooks/1";

export type WebhookSenderOptions = Readonly<{
  /** WEBHOOK_TIMEOUT_MS: a receiver that has not answered by then is retried later. */
  timeoutMs: number;
  resolver?: HostResolver;
}>;

/**
 * Signs with the webhook's secret (the `standardwebhooks` package: `webhook-id`,
 * `webhook-timestamp`, `webhook-signature: v1,<base64 HMAC-SHA256 of id.timestamp.body>`) and POSTs.
 * SECURITY: every address the host resolves to is checked against the metadata fetch's rules, and
 * the connection is pinned to the checked address (a DNS answer that changes in between is never
 * used), so a webhook cannot be turned against internal services. Redirects are not followed.
 */
export function createWebhookSender(endpoints: readonly WebhookEndpoint[], options: WebhookSenderOptions): WebhookSender {
  const byId = new Map(endpoints.map((endpoint) => [endpoint.id, endpoint]));
  const resolve = options.resolver ?? systemHostResolver;
  return async (webhook: string, message: WebhookMessage): Promise<DeliveryAttempt> => {
    const endpoint = byId.get(webhook);
    if (endpoint === undefined) return { ok: false, error: "webhook is no longer configured" };
    const addresses = await checkedAddresses(endpoint.url, resolve, options.timeoutMs);
    if ("error" in addresses) return { ok: false, error: addresses.error };
    const signature = endpoint.signer.sign(message.id, message.timestamp, message.body);
    return post(endpoint.url, addresses.list, {
      "content-type": "application/json",
      "user-agent": WEBHOOK_USER_AGENT,
      "webhook-id": message.id,
      "webhook-timestamp": String(Math.floor(message.timestamp.getTime() / 1000)),
      "webhook-signature": signature,
    }, message.body, options.timeoutMs);
  };
}

async function checkedAddresses(url: URL, resolve: HostResolver, timeoutMs: number): Promise<{ list: readonly ResolvedAddress[] } | { error: string }> {
  if (isDevelopmentLoopback(url)) return { list: [{ address: "127.0.0.1", family: 4 }] };
  const host = url.hostname.startsWith("[") ? url.hostname.slice(1, -1) : url.hostname;
  let list: readonly ResolvedAddress[];
  if (/^[\d.]+$/.test(host) || host.includes(":")) list = [{ address: host, family: host.includes(":") ? 6 : 4 }];
  else {
    try {
      // The lookup is part of the attempt: a resolver that never answers fails it at the deadline.
      list = await withinDeadline(resolve(host), timeoutMs);
    } catch (error) {
      const code = error && typeof error === "object" && "code" in error ? String(error.code) : "lookup failed";
      return { error: `the receiver's host does not resolve (${code})` };
    }
  }
  if (list.length === 0) return { error: "the receiver's host does not resolve" };
  if (list.some((entry) => forbiddenAddressReason(entry.address) !== null)) return { error: "the receiver's host is not a public internet address" };
  return { list };
}

function withinDeadline<T>(work: Promise<T>, timeoutMs: number): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(Object.assign(new Error("lookup timed out"), { code: "ETIMEOUT" })), timeoutMs);
  });
  return Promise.race([work, late]).finally(() => clearTimeout(timer));
}

function post(url: URL, addresses: readonly ResolvedAddress[], headers: Record<string, string>, body: string, timeoutMs: number): Promise<DeliveryAttempt> {
  const hostname = url.hostname.startsWith("[") ? url.hostname.slice(1, -1) : url.hostname;
  // The metadata fetch's pinned lookup, on the first checked address only.
  const lookup = pinnedLookup(hostname, addresses.slice(0, 1));
  const send = url.protocol === "https:" ? httpsRequest : httpRequest;
  return new Promise<DeliveryAttempt>((resolve) => {
    const signal = AbortSignal.timeout(timeoutMs);
    const request = send(
      {
        method: "POST",
        protocol: url.protocol,
        hostname,
        port: url.port === "" ? undefined : Number(url.port),
        path: `${url.pathname}${url.search}`,
        headers: { ...headers, "content-length": String(Buffer.byteLength(body)) },
        // SECURITY: a fresh connection each time, pinned to the checked address.
        agent: false,
        lookup,
        signal,
      },
      (response) => {
        // The status decides (Standard Webhooks: any 2xx); the body is never read, so a receiver
        // that trickles one cannot hold the attempt past its deadline, nor past the lease.
        const status = response.statusCode ?? 0;
        response.destroy();
        resolve(status >= 200 && status < 300 ? { ok: true } : { ok: false, error: `the receiver answered ${status}` });
      },
    );
    request.on("error", (error: Error & { code?: string }) => {
      resolve({ ok: false, error: signal.aborted ? `the receiver did not answer within ${timeoutMs} ms` : `the receiver could not be reached (${error.code ?? "connection error"})` });
    });
    request.end(body);
  });
}
