/**
 * The listener contract, observed on real sockets: one function that runs the same requests
 * and stops against any adapter and returns what it saw, for the tests to judge per runtime.
 */
import type { HttpListener, ListeningServer } from "../../../src/infrastructure/http-listener/http-listener.ts";

export const PROBE_BODY_LIMIT = 1024;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Slow requests (`/slow`) take 600 ms; every answer says how many body bytes arrived and from whom. */
function serve(listener: HttpListener, port = 0): ListeningServer {
  return listener.listen({
    hostname: "127.0.0.1",
    port,
    maxRequestBodySize: PROBE_BODY_LIMIT,
    fetch: async (request, connection) => {
      if (new URL(request.url).pathname === "/slow") await sleep(600);
      const bytes = request.body ? (await request.arrayBuffer()).byteLength : 0;
      return Response.json({ bytes, remoteAddress: connection.remoteAddress });
    },
  });
}

function chunked(size: number): ReadableStream<Uint8Array> {
  return new ReadableStream({
    start(controller) {
      for (let sent = 0; sent < size; sent += 256) controller.enqueue(new Uint8Array(Math.min(256, size - sent)));
      controller.close();
    },
  });
}

async function answer(promise: Promise<Response>): Promise<string> {
  try {
    const response = await promise;
    return `${response.status} ${await response.text()}`;
  } catch {
    return "connection failed";
  }
}

/** Fresh connections only: a pooled keep-alive connection would hide what a new client sees. */
function send(url: string, init: RequestInit = {}): Promise<Response> {
  return fetch(url, { ...init, headers: { connection: "close" } });
}

export async function probeListener(listener: HttpListener): Promise<Record<string, unknown>> {
  const server = serve(listener);
  const observations: Record<string, unknown> = { url: server.url, port: server.port };

  try {
    serve(listener, server.port);
    observations["samePortAgain"] = "listened";
  } catch (error) {
    observations["samePortAgain"] = (error as { code?: string }).code ?? "no code";
  }

  observations["small"] = await answer(send(server.url, { method: "POST", body: "x".repeat(100) }));
  observations["declaredTooLarge"] = await answer(send(server.url, { method: "POST", body: "x".repeat(PROBE_BODY_LIMIT + 1) }));
  observations["chunkedWithin"] = await answer(send(server.url, { method: "POST", body: chunked(PROBE_BODY_LIMIT), duplex: "half" } as RequestInit));
  observations["chunkedTooLarge"] = await answer(send(server.url, { method: "POST", body: chunked(PROBE_BODY_LIMIT * 4), duplex: "half" } as RequestInit));

  // Graceful: the in-flight request is answered, new connections are refused, stop waits for it.
  const slow = answer(send(`${server.url}/slow`));
  await sleep(100);
  observations["pendingDuringSlow"] = server.pendingRequests();
  let started = Date.now();
  const graceful = server.stop();
  await sleep(50);
  observations["newConnectionWhileDraining"] = await answer(send(server.url));
  await graceful;
  observations["gracefulStopMs"] = Date.now() - started;
  observations["slowAnsweredDuringGracefulStop"] = await slow;
  observations["pendingAfterStop"] = server.pendingRequests();

  // Forced: the in-flight request's connection is closed at once.
  const forcedServer = serve(listener);
  const cut = answer(send(`${forcedServer.url}/slow`));
  await sleep(100);
  started = Date.now();
  await forcedServer.stop(true);
  observations["forcedStopMs"] = Date.now() - started;
  observations["slowDuringForcedStop"] = await cut;

  // Forced while draining: Deno cannot cut a draining server; stop(true) must still return at once.
  const drainingServer = serve(listener);
  const drained = answer(send(`${drainingServer.url}/slow`));
  await sleep(100);
  const draining = drainingServer.stop();
  started = Date.now();
  await drainingServer.stop(true);
  observations["forceWhileDrainingMs"] = Date.now() - started;
  await draining;
  observations["slowDuringForceWhileDraining"] = await drained;

  Object.assign(observations, await probeWebSocket(listener));
  return observations;
}

/**
 * WebSocket upgrades on the same port (the embedded ledger's pubsub): text in and out, plain HTTP
 * still served beside them, the session told when the client leaves, and a message past the
 * limit closes the connection.
 */
async function probeWebSocket(listener: HttpListener): Promise<Record<string, unknown>> {
  const events: string[] = [];
  const server = listener.listen({
    hostname: "127.0.0.1",
    port: 0,
    maxRequestBodySize: PROBE_BODY_LIMIT,
    fetch: () => new Response("plain"),
    websocket: {
      maxMessageBytes: 64,
      open(peer) {
        events.push("open");
        return { message: (text) => peer.send(text.toUpperCase()), closed: () => events.push("closed") };
      },
    },
  });
  const wsUrl = server.url.replace("http://", "ws://");
  const socket = new WebSocket(wsUrl);
  const replies: string[] = [];
  socket.onmessage = (event) => replies.push(String(event.data));
  await new Promise((resolve, reject) => {
    socket.onopen = resolve;
    socket.onerror = () => reject(new Error("websocket failed"));
  });
  socket.send("ping over the ledger socket");
  for (let i = 0; i < 100 && replies.length === 0; i++) await sleep(10);
  const plain = await answer(send(server.url));
  socket.close();
  for (let i = 0; i < 100 && !events.includes("closed"); i++) await sleep(10);
  const big = new WebSocket(wsUrl);
  const closeCode = await new Promise<number>((resolve) => {
    big.onopen = () => big.send("x".repeat(65));
    big.onclose = (event) => resolve(event.code);
    setTimeout(() => resolve(-1), 3_000);
  });
  await server.stop(true);
  return { wsReply: replies[0] ?? null, wsPlainBeside: plain, wsEvents: events.slice(0, 2).join(","), wsTooBigClose: closeCode };
}
