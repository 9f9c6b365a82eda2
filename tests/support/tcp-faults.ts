/**
 * Raw TCP faults for dependency tests: a black hole (accepts connections, reads what is sent,
 * never answers: a wedged Redis, a node behind a stuck load balancer) and a proxy in front of a
 * real server that can be cut (every connection reset, new ones refused) and restored.
 */
import { type Server, type Socket, createConnection, createServer } from "node:net";

export type BlackHole = Readonly<{
  port: number;
  /** Connections accepted so far. */
  accepted(): number;
  close(): Promise<void>;
}>;

export async function startBlackHole(): Promise<BlackHole> {
  const sockets = new Set<Socket>();
  let accepted = 0;
  const server = createServer((socket) => {
    accepted += 1;
    sockets.add(socket);
    socket.on("data", () => undefined);
    socket.on("error", () => undefined);
    socket.on("close", () => sockets.delete(socket));
  });
  const port = await listen(server, 0);
  return Object.freeze({
    port,
    accepted: () => accepted,
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  });
}

export type TcpProxy = Readonly<{
  port: number;
  /** Resets every open connection and stops listening: new connections are refused. */
  cut(): Promise<void>;
  /** Listens again on the same port. */
  restore(): Promise<void>;
  close(): Promise<void>;
}>;

export async function startTcpProxy(target: Readonly<{ host: string; port: number }>): Promise<TcpProxy> {
  const sockets = new Set<Socket>();
  const track = (socket: Socket) => {
    sockets.add(socket);
    socket.on("error", () => undefined);
    socket.on("close", () => sockets.delete(socket));
  };
  const open = () =>
    createServer((client) => {
      const upstream = createConnection(target);
      track(client);
      track(upstream);
      client.pipe(upstream);
      upstream.pipe(client);
      client.on("close", () => upstream.destroy());
      upstream.on("close", () => client.destroy());
    });
  let server: Server | null = open();
  const port = await listen(server, 0);

  async function cut(): Promise<void> {
    const running = server;
    if (!running) return;
    server = null;
    for (const socket of sockets) socket.resetAndDestroy();
    await new Promise<void>((resolve) => running.close(() => resolve()));
  }

  return Object.freeze({
    port,
    cut,
    restore: async () => {
      if (server) return;
      server = open();
      await listen(server, port);
    },
    close: cut,
  });
}

async function listen(server: Server, port: number): Promise<number> {
  await new Promise<void>((resolve) => server.listen(port, "127.0.0.1", resolve));
  const address = server.address();
  if (address === null || typeof address === "string") throw new Error("no port");
  return address.port;
}
