import { Buffer } from "node:buffer";
import type { Address } from "@solana/kit";
import type { ProgramAccountFilter } from "../../application/ports/ledger.ts";
import type { Logger } from "../../application/ports/logger.ts";
import type { ProgramAccountChange, ProgramAccountFeed, ProgramFeedHandlers } from "../../application/ports/program-account-feed.ts";
import { toBase64 } from "../../domain/codecs/base64.ts";
import { scrubUrlSecrets } from "../logging/redact.ts";
import { openPubsubSocket } from "./pubsub-socket.ts";

export type RpcProgramFeedOptions = Readonly<{
  /** The node's pubsub endpoint, `ws://` or `wss://`. */
  url: string;
  logger: Logger;
  /** First wait before reconnecting; doubles up to `maxReconnectMs`. Defaults 1 s and 30 s. */
  reconnectMs?: number;
  maxReconnectMs?: number;
  /** A subscribe request unanswered this long drops the connection (a node that accepts and never answers). Default 10 s. */
  answerTimeoutMs?: number;
}>;

type Subscription = {
  readonly program: Address;
  readonly filters: readonly unknown[];
  readonly handlers: ProgramFeedHandlers;
  /** The node's id for it on the current connection, once confirmed. */
  nodeId: number | null;
  closed: boolean;
};

/** SECURITY: a node's notice names the account; only a base58 address may enter the index's keys. */
const BASE58_ADDRESS = /^[1-9A-HJ-NP-Za-km-z]{32,44}$/;

/**
 * programSubscribe over a node's WebSocket pubsub: one connection for every subscription, each
 * subscribed again after a reconnect (exponential backoff), notices decoded from base64. A
 * subscriber hears `live` when the node confirms its subscription and `lost` when the connection
 * drops, so it knows when to read everything again. Messages that are not well-formed notices are
 * dropped (and logged), never passed on.
 */
export function createRpcProgramFeed(options: RpcProgramFeedOptions): ProgramAccountFeed {
  const log = options.logger.child({ component: "program-feed" });
  const baseReconnectMs = options.reconnectMs ?? 1_000;
  const maxReconnectMs = options.maxReconnectMs ?? 30_000;
  const answerTimeoutMs = options.answerTimeoutMs ?? 10_000;
  const subscriptions = new Set<Subscription>();
  /** Request id -> the subscription it subscribes, on the current connection. */
  const requests = new Map<number, Subscription>();
  const byNodeId = new Map<number, Subscription>();
  let socket: WebSocket | null = null;
  let open = false;
  let nextRequest = 0;
  let reconnectMs = baseReconnectMs;
  let reconnectTimer: ReturnType<typeof setTimeout> | null = null;
  let answerTimer: ReturnType<typeof setTimeout> | null = null;

  const safe = (text: string) => scrubUrlSecrets(text, options.url);

  function send(body: unknown): void {
    if (socket && open) socket.send(JSON.stringify(body));
  }

  function subscribeOnNode(subscription: Subscription): void {
    const id = ++nextRequest;
    requests.set(id, subscription);
    send({ jsonrpc: "2.0", id, method: "programSubscribe", params: [subscription.program, { encoding: "base64", commitment: "confirmed", filters: subscription.filters }] });
    armAnswerTimer();
  }

  function armAnswerTimer(): void {
    if (answerTimer) return;
    answerTimer = unref(setTimeout(() => {
      answerTimer = null;
      if (requests.size > 0) lost("the node did not answer programSubscribe in time");
    }, answerTimeoutMs));
  }

  function connect(): void {
    reconnectTimer = null;
    if (subscriptions.size === 0 || socket) return;
    const created = openPubsubSocket(options.url, (current) => socket === current, {
      opened: () => {
        open = true;
        for (const subscription of subscriptions) subscribeOnNode(subscription);
      },
      message: (text) => received(text ?? ""),
      lost,
    });
    if (created instanceof Error) return lost(`cannot open the pubsub connection: ${safe(created.message)}`);
    socket = created;
  }

  /** Ends the current connection (if any), tells every subscriber, and schedules the next attempt. */
  function lost(detail: string): void {
    const wasOpen = open;
    const current = socket;
    socket = null;
    open = false;
    requests.clear();
    byNodeId.clear();
    if (answerTimer) clearTimeout(answerTimer);
    answerTimer = null;
    if (current) {
      current.onopen = current.onmessage = current.onclose = current.onerror = null;
      try {
        current.close();
      } catch {
        // Already closed.
      }
    }
    for (const subscription of subscriptions) {
      subscription.nodeId = null;
      subscription.handlers.status("lost", detail);
    }
    if (subscriptions.size === 0) return;
    if (wasOpen) reconnectMs = baseReconnectMs;
    log.warn("program feed lost; reconnecting", { detail, inMs: reconnectMs });
    reconnectTimer = unref(setTimeout(connect, reconnectMs));
    reconnectMs = Math.min(maxReconnectMs, reconnectMs * 2);
  }

  function received(text: string): void {
    let message: { id?: unknown; result?: unknown; error?: { message?: unknown }; method?: unknown; params?: { result?: unknown; subscription?: unknown } };
    try {
      message = JSON.parse(text);
    } catch {
      return log.warn("program feed: a message that is not JSON was dropped");
    }
    if (typeof message.id === "number" && requests.has(message.id)) return answered(message.id, message);
    if (message.method !== "programNotification") return;
    const subscription = typeof message.params?.subscription === "number" ? byNodeId.get(message.params.subscription) : undefined;
    if (!subscription || subscription.closed) return;
    const change = changeOf(message.params?.result);
    if (change) subscription.handlers.change(change);
    else log.warn("program feed: a malformed programNotification was dropped");
  }

  function answered(id: number, message: { result?: unknown; error?: { message?: unknown } }): void {
    const subscription = requests.get(id) as Subscription;
    requests.delete(id);
    if (requests.size === 0 && answerTimer) {
      clearTimeout(answerTimer);
      answerTimer = null;
    }
    if (typeof message.result !== "number") {
      // A refused subscription will not work on another connection either: it polls instead.
      subscription.handlers.status("lost", `programSubscribe refused: ${safe(String(message.error?.message ?? "no result"))}`.slice(0, 300));
      return;
    }
    if (subscription.closed) return send({ jsonrpc: "2.0", id: ++nextRequest, method: "programUnsubscribe", params: [message.result] });
    subscription.nodeId = message.result;
    byNodeId.set(message.result, subscription);
    reconnectMs = baseReconnectMs;
    subscription.handlers.status("live");
  }

  return Object.freeze({
    subscribe(program: Address, filters: readonly ProgramAccountFilter[], handlers: ProgramFeedHandlers) {
      const subscription: Subscription = { program, filters: filters.map(filterOf), handlers, nodeId: null, closed: false };
      subscriptions.add(subscription);
      if (open) subscribeOnNode(subscription);
      else if (!socket && !reconnectTimer) connect();
      return Object.freeze({
        close() {
          if (subscription.closed) return;
          subscription.closed = true;
          subscriptions.delete(subscription);
          if (subscription.nodeId !== null) {
            byNodeId.delete(subscription.nodeId);
            send({ jsonrpc: "2.0", id: ++nextRequest, method: "programUnsubscribe", params: [subscription.nodeId] });
          }
          if (subscriptions.size > 0) return;
          if (reconnectTimer) clearTimeout(reconnectTimer);
          reconnectTimer = null;
          const current = socket;
          socket = null;
          open = false;
          if (current) {
            current.onopen = current.onmessage = current.onclose = current.onerror = null;
            current.close();
          }
        },
      });
    },
  });
}

/** A notice's `{ context: { slot }, value: { pubkey, account: { owner, lamports, data: [base64, "base64"] } } }`, or null. */
function changeOf(result: unknown): ProgramAccountChange | null {
  if (typeof result !== "object" || result === null) return null;
  const { context, value } = result as { context?: { slot?: unknown }; value?: { pubkey?: unknown; account?: { owner?: unknown; lamports?: unknown; data?: unknown } } };
  const slot = context?.slot;
  const pubkey = value?.pubkey;
  const account = value?.account;
  const data = account?.data;
  if (typeof slot !== "number" || !Number.isSafeInteger(slot) || slot < 0) return null;
  if (typeof pubkey !== "string" || !BASE58_ADDRESS.test(pubkey) || typeof account?.owner !== "string" || !BASE58_ADDRESS.test(account.owner)) return null;
  if (typeof account.lamports !== "number" || account.lamports < 0) return null;
  if (!Array.isArray(data) || typeof data[0] !== "string" || data[1] !== "base64") return null;
  return {
    address: pubkey as Address,
    owner: account.owner as Address,
    // A u64 past 2^53 arrives rounded; the index only asks whether an account has lamports.
    lamports: BigInt(Math.trunc(account.lamports)),
    data: new Uint8Array(Buffer.from(data[0], "base64")),
    slot: BigInt(slot),
  };
}

/** The JSON-RPC form of a filter (memcmp bytes in base64), as getProgramAccounts sends it. */
function filterOf(filter: ProgramAccountFilter): unknown {
  if ("dataSize" in filter) return { dataSize: filter.dataSize };
  return { memcmp: { offset: filter.memcmp.offset, bytes: toBase64(filter.memcmp.bytes), encoding: "base64" } };
}

function unref<T>(timer: T): T {
  if (typeof timer === "object" && timer !== null && "unref" in timer && typeof timer.unref === "function") timer.unref();
  return timer;
}
