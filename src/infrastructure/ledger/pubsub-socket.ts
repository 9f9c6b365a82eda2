export type PubsubSocketEvents = Readonly<{
  opened(): void;
  /** A text frame; null for a binary one (the node's pubsub sends JSON text only). */
  message(text: string | null): void;
  lost(detail: string): void;
}>;

/**
 * The node's pubsub WebSocket for one of this process's clients (the program feed, the signature
 * watch). Events reach `events` only while `isCurrent(socket)` holds: a socket its client has
 * replaced or dropped stays silent, so a late close of an old connection cannot end the new one.
 * The constructor's own failure (a malformed URL) comes back as the Error.
 */
export function openPubsubSocket(url: string, isCurrent: (socket: WebSocket) => boolean, events: PubsubSocketEvents): WebSocket | Error {
  let created: WebSocket;
  try {
    created = new WebSocket(url);
  } catch (error) {
    return error instanceof Error ? error : new Error(String(error));
  }
  created.onopen = () => {
    if (isCurrent(created)) events.opened();
  };
  created.onmessage = (event: MessageEvent) => {
    if (isCurrent(created)) events.message(typeof event.data === "string" ? event.data : null);
  };
  created.onclose = () => {
    if (isCurrent(created)) events.lost("the pubsub connection closed");
  };
  created.onerror = () => {
    if (isCurrent(created)) events.lost("the pubsub connection failed");
  };
  return created;
}
