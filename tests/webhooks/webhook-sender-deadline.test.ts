// One webhook attempt is bounded by WEBHOOK_TIMEOUT_MS from the lookup to the answer's head, with
// real HTTP receivers on 127.0.0.1 (allowed outside production) and a resolver that never answers.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { type Server, createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { createWebhookSender } from "../../src/infrastructure/webhooks/webhook-sender.ts";
import { parseWebhooks } from "../../src/infrastructure/webhooks/webhooks-file.ts";
import { newSecret } from "./support/receiver.ts";

const message = { id: "msg_1", type: "settlement.confirmed" as const, timestamp: new Date(), body: "{}" };

function endpointsFor(url: string) {
  const parsed = parseWebhooks(JSON.stringify([{ url, secret: newSecret(), events: ["settlement.confirmed"] }]), { production: false }, null);
  if (!parsed.ok) throw new Error(parsed.errors.join("; "));
  return parsed.webhooks;
}

describe("a webhook attempt's deadline (real HTTP receivers)", () => {
  let trickling: Server;
  let port: number;
  const open = new Set<{ destroy(): void }>();

  beforeAll(async () => {
    // Answers 200 at once, then sends its body one byte a second, forever.
    trickling = createServer((request, response) => {
      request.resume();
      response.writeHead(200, { "content-type": "text/plain" });
      const timer = setInterval(() => response.write("."), 1_000);
      response.on("close", () => clearInterval(timer));
    });
    trickling.on("connection", (socket) => {
      open.add(socket);
      socket.on("close", () => open.delete(socket));
    });
    await new Promise<void>((resolve) => trickling.listen(0, "127.0.0.1", resolve));
    port = (trickling.address() as AddressInfo).port;
  });
  afterAll(async () => {
    for (const socket of open) socket.destroy();
    await new Promise((resolve) => trickling.close(resolve));
  });

  test("a 2xx head is the answer: a body that never ends does not hold the attempt", async () => {
    const endpoints = endpointsFor(`http://127.0.0.1:${port}/hook`);
    // A deadline far past the test's own 20 s limit: an attempt that waited for the body would
    // hang here and fail the test, instead of ending at the head.
    const send = createWebhookSender(endpoints, { timeoutMs: 600_000 });
    expect(await send(endpoints[0]?.id ?? "", message)).toEqual({ ok: true });
  }, 20_000);

  test("a resolver that never answers fails the attempt at the deadline, as unresolvable", async () => {
    const endpoints = endpointsFor("https://hooks.example.com/hook");
    const send = createWebhookSender(endpoints, { timeoutMs: 200, resolver: () => new Promise(() => {}) });
    expect(await send(endpoints[0]?.id ?? "", message)).toEqual({ ok: false, error: "the receiver's host does not resolve (ETIMEOUT)" });
  });
});
