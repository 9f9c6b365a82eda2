import type { Logger } from "../../application/ports/logger.ts";
import type { SignatureNotice, SignatureWatch } from "../../application/ports/signature-watch.ts";
import { scrubUrlSecrets } from "../logging/redact.ts";
import { openPubsubSocket } from "./pubsub-socket.ts";

export type RpcSignatureWatchOptions = Readonly<{
  /** The node's pubsub endpoint, `ws://` or `wss://`. */
  url: string;
  logger: Logger;
  /** After a failed or lost connection, no new one is tried for this long; doubles up to `maxRetryMs`. Defaults 1 s and 30 s. */
  retryMs?: number;
  maxRetryMs?: number;
  /** With nothing watched for this long the connection is closed (a stopping process is not held by it). Default 10 s. */
  idleCloseMs?: number;
}>;

/**
 * Signatures watched at once; past it a watch says nothing (polling covers it). A node's own cap
 * per connection is about this (the embedded ledger's is 16,384).
 */
export const MAX_WATCHED = 16_000;

type Entry = {
  readonly signature: string;
  readonly notice: (notice: SignatureNotice) => void;
  /** The node's subscription id, once it answered. */
  nodeId: number | null;
  stopped: boolean;
};

/**
 * `signatureSubscribe` over a node's WebSocket pubsub (commitment `confirmed`), one connection for
 * every watch. The connection is opened by the first watch and closed when idle. It is best effort
 * by design (the port's contract): while it is connecting, a watch is sent once it opens; when it
 * fails or drops, every watch on it goes silent and no new connection is tried before a backoff,
 * so a node without pubsub costs one failed attempt per backoff, never a wait. Messages that are
 * not well-formed answers or notices are ignored.
 *
 * Trust: a notice is the node's word, as a `getSignatureStatuses` answer is; only a notice for a
 * subscription this connection made, for the signature it was made for, is passed on.
 */
export function createRpcSignatureWatch(options: RpcSignatureWatchOptions): SignatureWatch {
  const log = options.logger.child({ component: "signature-watch" });
  const baseRetryMs = options.retryMs ?? 1_000;
  const maxRetryMs = options.maxRetryMs ?? 30_000;
  const idleCloseMs = options.idleCloseMs ?? 10_000;
  /** Watches sent on this connection, by request id, until the node answers. */
  const requests = new Map<number, Entry>();
  const byNodeId = new Map<number, Entry>();
  /** Watches waiting for the connection to open. */
  const queued = new Set<Entry>();
  let socket: WebSocket | null = null;
  let open = false;
  let closed = false;
  let nextRequest = 0;
  let retryMs = baseRetryMs;
  let retryAt = 0;
  let idleTimer: ReturnType<typeof setTimeout> | null = null;

  const watched = () => requests.size + byNodeId.size + queued.size;
  const safe = (text: string) => scrubUrlSecrets(text, options.url);

  function send(body: unknown): void {
    if (socket && open) socket.send(JSON.stringify(body));
  }

  function subscribeOnNode(entry: Entry): void {
    const id = ++nextRequest;
    requests.set(id, entry);
    send({ jsonrpc: "2.0", id, method: "signatureSubscribe", params: [entry.signature, { commitment: "confirmed" }] });
  }

  function connect(): void {
    const created = openPubsubSocket(options.url, (current) => socket === current, {
      opened: () => {
        open = true;
        retryMs = baseRetryMs;
        for (const entry of queued) subscribeOnNode(entry);
        queued.clear();
      },
      message: (text) => {
        if (text !== null) received(text);
      },
      lost,
    });
    if (created instanceof Error) return lost(`cannot open the pubsub connection: ${safe(created.message)}`);
    socket = created;
  }

  /** Closes the connection; every watch on it goes silent (polling answers them). */
  function drop(): void {
    const current = socket;
    socket = null;
    open = false;
    requests.clear();
    byNodeId.clear();
    queued.clear();
    if (!current) return;
    current.onopen = current.onmessage = current.onclose = current.onerror = null;
    try {
      current.close();
    } catch {
      // Already closed.
    }
  }

  /** The connection failed or dropped: no new one before the backoff. */
  function lost(detail: string): void {
    drop();
    if (closed) return;
    retryAt = Date.now() + retryMs;
    log.info("pushed confirmations unavailable; polling only until the next attempt", { detail, inMs: retryMs });
    retryMs = Math.min(maxRetryMs, retryMs * 2);
  }

  function received(text: string): void {
    let message: { id?: unknown; result?: unknown; method?: unknown; params?: { result?: unknown; subscription?: unknown } };
    try {
      message = JSON.parse(text);
    } catch {
      return;
    }
    if (typeof message.id === "number") {
      const entry = requests.get(message.id);
      if (!entry) return;
      requests.delete(message.id);
      if (typeof message.result !== "number") return; // refused: polling covers it
      if (entry.stopped) return send({ jsonrpc: "2.0", id: ++nextRequest, method: "signatureUnsubscribe", params: [message.result] });
      entry.nodeId = message.result;
      byNodeId.set(message.result, entry);
      return;
    }
    if (message.method !== "signatureNotification") return;
    const subscription = message.params?.subscription;
    const entry = typeof subscription === "number" ? byNodeId.get(subscription) : undefined;
    const notice = noticeOf(message.params?.result);
    // A "receivedSignature" notice (not asked for) or a malformed one leaves the watch as it was.
    if (!entry || !notice) return;
    // Signature subscriptions end with their notice, on the node too.
    byNodeId.delete(subscription as number);
    idleSoon();
    if (!entry.stopped) entry.notice(notice);
  }

  function idleSoon(): void {
    if (watched() > 0 || idleTimer || !socket) return;
    idleTimer = unref(
      setTimeout(() => {
        idleTimer = null;
        if (watched() === 0 && socket) drop();
      }, idleCloseMs),
    );
  }

  return Object.freeze({
    watch(signature: string, notice: (notice: SignatureNotice) => void) {
      if (closed || watched() >= MAX_WATCHED) return () => {};
      if (!socket) {
        if (Date.now() < retryAt) return () => {};
        connect();
        if (!socket) return () => {};
      }
      if (idleTimer) clearTimeout(idleTimer);
      idleTimer = null;
      const entry: Entry = { signature, notice, nodeId: null, stopped: false };
      if (open) subscribeOnNode(entry);
      else queued.add(entry);
      return () => {
        if (entry.stopped) return;
        entry.stopped = true;
        queued.delete(entry);
        if (entry.nodeId !== null && byNodeId.get(entry.nodeId) === entry) {
          byNodeId.delete(entry.nodeId);
          send({ jsonrpc: "2.0", id: ++nextRequest, method: "signatureUnsubscribe", params: [entry.nodeId] });
        }
        // A watch still waiting for its answer is unsubscribed when the answer comes (above).
        idleSoon();
      };
    },
    close() {
      closed = true;
      if (idleTimer) clearTimeout(idleTimer);
      idleTimer = null;
      lost("closed");
    },
  });
}

/** `{ context: { slot }, value: { err } }`, or null. */
function noticeOf(result: unknown): SignatureNotice | null {
  if (typeof result !== "object" || result === null) return null;
  const { context, value } = result as { context?: { slot?: unknown }; value?: unknown };
  const slot = context?.slot;
  if (typeof slot !== "number" || !Number.isSafeInteger(slot) || slot < 0) return null;
  if (typeof value !== "object" || value === null || !("err" in value)) return null;
  return Object.freeze({ slot: BigInt(slot), failed: (value as { err: unknown }).err !== null });
}

function unref<T>(timer: T): T {
  if (typeof timer === "object" && timer !== null && "unref" in timer && typeof timer.unref === "function") timer.unref();
  return timer;
}
