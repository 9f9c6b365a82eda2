/**
 * A real HTTP webhook receiver (Bun.serve on 127.0.0.1) that verifies every delivery with the
 * `standardwebhooks` library, as a resource server would, and records what it got.
 */
import { Webhook } from "standardwebhooks";

export type Received = Readonly<{ id: string; type: string; body: Record<string, unknown>; verified: boolean }>;

/** What the receiver answers: a status, or "hang" (never answers). */
export type Behaviour = (request: Readonly<{ id: string; attempt: number }>) => number | "hang";

export type Receiver = Readonly<{
  url: string;
  port: number;
  /** Every request, in arrival order (answered or not). */
  requests: Received[];
  /** The requests answered 2xx. */
  accepted(): Received[];
  start(): void;
  stop(): Promise<void>;
}>;

export function newSecret(): string {
  return `whsec_${Buffer.from(crypto.getRandomValues(new Uint8Array(32))).toString("base64")}`;
}

export function createReceiver(secret: string, port: number, behaviour: Behaviour = () => 200): Receiver {
  const verifier = new Webhook(secret);
  const requests: Received[] = [];
  const answered: Received[] = [];
  const hanging: ((response: Response) => void)[] = [];
  let server: ReturnType<typeof Bun.serve> | null = null;
  const receiver: Receiver = {
    url: `http://127.0.0.1:${port}/hooks/x402`,
    port,
    requests,
    accepted: () => [...answered],
    start() {
      server = Bun.serve({
        hostname: "127.0.0.1",
        port,
        idleTimeout: 0,
        async fetch(request) {
          const text = await request.text();
          const headers: Record<string, string> = {};
          request.headers.forEach((value, name) => {
            headers[name] = value;
          });
          let verified = false;
          try {
            verifier.verify(text, headers);
            verified = true;
          } catch {
            verified = false;
          }
          const id = headers["webhook-id"] ?? "";
          const body = JSON.parse(text) as Record<string, unknown>;
          const received: Received = { id, type: String(body["type"]), body, verified };
          requests.push(received);
          const answer = behaviour({ id, attempt: requests.filter((r) => r.id === id).length });
          if (answer === "hang") return new Promise<Response>((resolve) => hanging.push(resolve));
          if (answer >= 200 && answer < 300) answered.push(received);
          return new Response(null, { status: answer });
        },
      });
    },
    async stop() {
      for (const resolve of hanging.splice(0)) resolve(new Response(null, { status: 503 }));
      await server?.stop(true);
      server = null;
    },
  };
  return receiver;
}

/** Polls `condition` every 20 ms until it holds, or fails after `limitMs` (a bound against hanging, not a timing assertion). */
export async function eventually(condition: () => boolean | Promise<boolean>, limitMs = 20_000, what = "condition"): Promise<void> {
  const deadline = Date.now() + limitMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`${what} did not happen within ${limitMs} ms`);
    await Bun.sleep(20);
  }
}
