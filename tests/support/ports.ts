import { createServer } from "node:net";

/**
 * A local port that was just free: bind port 0, read the port, release it. Nothing listens on
 * it afterwards, so a connection is refused at once (an RPC or a database that is down), or a
 * server started next can take it.
 */
export async function unusedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  if (address === null || typeof address === "string") throw new Error("no port");
  return address.port;
}
