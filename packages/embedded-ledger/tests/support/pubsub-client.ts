// A raw WebSocket client for the ledger pubsub tests: sends calls, collects every message.
export type Message = { jsonrpc: string; id?: unknown; result?: unknown; error?: { code: number; message: string }; method?: string; params?: any };

/** A raw WebSocket client that collects every message. */
export async function connect(url: string) {
  const socket = new WebSocket(url);
  const messages: Message[] = [];
  const waiters: (() => void)[] = [];
  socket.onmessage = (event) => {
    messages.push(JSON.parse(String(event.data)) as Message);
    waiters.splice(0).forEach((wake) => wake());
  };
  await new Promise<void>((resolve, reject) => {
    socket.onopen = () => resolve();
    socket.onerror = () => reject(new Error("websocket failed"));
  });
  let nextId = 0;
  async function until(count: number): Promise<Message[]> {
    const deadline = Date.now() + 5_000;
    while (messages.length < count) {
      if (Date.now() > deadline) throw new Error(`timed out with ${messages.length} of ${count} messages`);
      await new Promise<void>((resolve) => {
        waiters.push(resolve);
        setTimeout(resolve, 50);
      });
    }
    return messages;
  }
  return {
    messages,
    until,
    async call(method: string, params: unknown): Promise<Message> {
      const id = ++nextId;
      socket.send(JSON.stringify({ jsonrpc: "2.0", id, method, params }));
      for (let seen = 0; ; seen++) {
        await until(seen + 1);
        const reply = messages.find((m) => m.id === id);
        if (reply) return reply;
      }
    },
    send: (text: string) => socket.send(text),
    close: () => socket.close(),
  };
}
