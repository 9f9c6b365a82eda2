import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { sha256 } from "@noble/hashes/sha2.js";
import { isMetadataFetchFailure } from "../../src/application/ports/metadata-fetcher.ts";
import { readBodyWithinCap } from "../../src/infrastructure/metadata/capped-body.ts";
import { type ResolvedAddress, staticHostResolver } from "../../src/infrastructure/metadata/host-resolver.ts";
import { createMetadataFetcher } from "../../src/infrastructure/metadata/metadata-fetcher.ts";
import { type PinnedHttpsTransport, createPinnedHttpsTransport } from "../../src/infrastructure/metadata/pinned-https-transport.ts";
import { tlsGate } from "../support/openssl.ts";

/**
 * Real: a Bun.serve HTTPS server on 127.0.0.1 with a throwaway self-signed certificate, the
 * fetcher, the node:https transport and its pinned lookup, real sockets and TLS. No msw here.
 * Fake: only the DNS answers (an injected resolver), and in the last group a test transport that
 * moves a vetted public address onto the local server.
 */

const gate = tlsGate("tests/metadata");
const MiB = 1024 * 1024;
const LOOPBACK: readonly ResolvedAddress[] = [{ address: "127.0.0.1", family: 4 }];
const DOCUMENT = new TextEncoder().encode('{"name":"Loopback Agent","services":[]}');

let requests = 0;
let hugeBytesProduced = 0;
let server: ReturnType<typeof Bun.serve> | null = null;
let closedPort = 0;

function hugeStream(total: number): ReadableStream<Uint8Array> {
  const chunk = new Uint8Array(64 * 1024).fill(0x20);
  let produced = 0;
  return new ReadableStream<Uint8Array>({
    pull(controller) {
      if (produced >= total) return controller.close();
      controller.enqueue(chunk);
      produced += chunk.length;
      hugeBytesProduced = produced;
    },
  });
}

beforeAll(() => {
  if (gate.cert === null) return;
  server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    tls: { cert: gate.cert.cert, key: gate.cert.key },
    fetch(request) {
      requests++;
      const path = new URL(request.url).pathname;
      if (path === "/huge.json") return new Response(hugeStream(256 * MiB));
      return new Response(DOCUMENT, { headers: { "content-type": "application/json" } });
    },
  });
  const probe = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: () => new Response("") });
  closedPort = Number(probe.port);
  probe.stop(true);
});
afterAll(() => server?.stop(true));

function port(): number {
  if (server === null) throw new Error("no server");
  return Number(server.port);
}

function ca(): string {
  if (gate.cert === null) throw new Error("no certificate");
  return gate.cert.cert;
}

function signalFor(ms: number): AbortSignal {
  return AbortSignal.timeout(ms);
}

const run = gate.cert !== null;

describe("CI gate for the real TLS server tests", () => {
  test.if(gate.failInCi !== null)("openssl is available under CI", () => {
    throw new Error(gate.failInCi ?? "");
  });
});

describe.if(run)("real HTTPS server on 127.0.0.1, real fetcher and transport (no msw): refused before any connection", () => {
  test("a name the injected resolver maps to 127.0.0.1, and the literal https://127.0.0.1:<port>/ in several notations, reach the server 0 times", async () => {
    const fetcher = createMetadataFetcher({
      gatewayUrl: "https://ipfs.io/ipfs/",
      timeoutMs: 2_000,
      // The server's port is allowed and its certificate trusted, so only the address rule can refuse.
      allowedPorts: [port()],
      resolver: staticHostResolver({ "agents.test": ["127.0.0.1"], "sneaky.example.com": ["93.184.216.34", "127.0.0.1"] }),
      transport: createPinnedHttpsTransport({ ca: ca() }),
    });
    const before = requests;
    for (const uri of [
      `https://agents.test:${port()}/agent.json`,
      `https://sneaky.example.com:${port()}/agent.json`,
      `https://127.0.0.1:${port()}/agent.json`,
      `https://2130706433:${port()}/agent.json`,
      `https://0x7f.1:${port()}/agent.json`,
      `https://[::ffff:127.0.0.1]:${port()}/agent.json`,
      `https://localhost:${port()}/agent.json`,
    ]) {
      const result = await fetcher.fetchMetadata(uri);
      expect(isMetadataFetchFailure(result) ? `${result.blame} ${result.code}` : "fetched").toBe("uri METADATA_ADDRESS_FORBIDDEN");
    }
    expect(requests - before).toBe(0);
  });

  test("control: the pinned transport alone does reach this server (so the refusals above are the rules, not an unreachable server)", async () => {
    const transport = createPinnedHttpsTransport({ ca: ca() });
    const before = requests;
    const exchange = await transport({
      url: new URL(`https://agents.test:${port()}/agent.json`),
      addresses: LOOPBACK,
      headers: {},
      signal: signalFor(2_000),
    });
    const body = await readBodyWithinCap(exchange, MiB, signalFor(2_000));
    expect(exchange.status).toBe(200);
    expect(body).toEqual(DOCUMENT);
    expect(requests - before).toBe(1);
  });
});

describe.if(run)("DNS pinning under Bun: node:https honours the transport's lookup (real server, real sockets)", () => {
  test("a name no DNS knows (agents.test) connects to the pinned address; TLS checks the certificate against the name", async () => {
    const transport = createPinnedHttpsTransport({ ca: ca() });
    const exchange = await transport({ url: new URL(`https://agents.test:${port()}/`), addresses: LOOPBACK, headers: {}, signal: signalFor(2_000) });
    exchange.close();
    expect(exchange.status).toBe(200);
  });

  test("localhost pinned to 127.0.0.1 connects, pinned to 127.0.0.2 is ECONNREFUSED (the server listens on 127.0.0.1 only): the socket uses the pinned address", async () => {
    const transport = createPinnedHttpsTransport({ ca: ca() });
    const attempt = (address: string) =>
      transport({ url: new URL(`https://localhost:${port()}/`), addresses: [{ address, family: 4 }], headers: {}, signal: signalFor(1_500) }).then(
        (exchange) => {
          exchange.close();
          return `HTTP ${exchange.status}`;
        },
        (error: unknown) => String(typeof error === "object" && error !== null && "code" in error ? error.code : error),
      );
    const before = requests;
    expect(await attempt("127.0.0.1")).toBe("HTTP 200");
    expect(await attempt("127.0.0.2")).toBe("ECONNREFUSED");
    expect(requests - before).toBe(1);
  });

  test("pinning does not weaken TLS: a name outside the certificate is refused, and so is the self-signed certificate without the test CA", async () => {
    const pinned = createPinnedHttpsTransport({ ca: ca() });
    const wrongName = await pinned({ url: new URL(`https://other.test:${port()}/`), addresses: LOOPBACK, headers: {}, signal: signalFor(2_000) }).then(
      () => "connected",
      (error: unknown) => String(typeof error === "object" && error !== null && "code" in error ? error.code : error),
    );
    expect(wrongName).toBe("ERR_TLS_CERT_ALTNAME_INVALID");
    const defaultRoots = createPinnedHttpsTransport();
    const untrusted = await defaultRoots({ url: new URL(`https://agents.test:${port()}/`), addresses: LOOPBACK, headers: {}, signal: signalFor(2_000) }).then(
      () => "connected",
      () => "refused",
    );
    expect(untrusted).toBe("refused");
  });
});

/**
 * The fetcher end to end over real TLS: the resolver answers a public address (which passes the
 * rules), and this test transport connects that vetted request to the local server instead.
 */
function relocatingTransport(toPort: () => number): PinnedHttpsTransport {
  const real = createPinnedHttpsTransport({ ca: ca() });
  return (request) => {
    const url = new URL(request.url);
    url.port = String(toPort());
    return real({ ...request, url, addresses: LOOPBACK });
  };
}

describe.if(run)("real HTTPS server behind a vetted public address (real fetcher, sockets and TLS; test transport relocates the address)", () => {
  const resolver = staticHostResolver({ "agents.test": ["93.184.216.34"] });

  test("success: the hash is SHA-256 of the exact bytes the server sent", async () => {
    const fetcher = createMetadataFetcher({ gatewayUrl: "https://ipfs.io/ipfs/", timeoutMs: 2_000, resolver, transport: relocatingTransport(port) });
    const result = await fetcher.fetchMetadata("https://agents.test/agent.json");
    if (isMetadataFetchFailure(result)) throw new Error(result.reason);
    expect(result.bytes).toEqual(DOCUMENT);
    expect(result.sha256).toEqual(sha256(DOCUMENT));
  });

  test("a 256 MiB body is cut after 1 MiB: the server produced only a few MiB of it", async () => {
    const fetcher = createMetadataFetcher({ gatewayUrl: "https://ipfs.io/ipfs/", timeoutMs: 5_000, resolver, transport: relocatingTransport(port) });
    hugeBytesProduced = 0;
    const result = await fetcher.fetchMetadata("https://agents.test/huge.json");
    expect(isMetadataFetchFailure(result) ? result.code : "fetched").toBe("METADATA_TOO_LARGE");
    await Bun.sleep(100);
    expect(hugeBytesProduced).toBeGreaterThan(MiB);
    expect(hugeBytesProduced).toBeLessThan(16 * MiB);
  });

  test("connection refused (nothing listens on the port) is METADATA_ORIGIN_DOWN (502)", async () => {
    const fetcher = createMetadataFetcher({ gatewayUrl: "https://ipfs.io/ipfs/", timeoutMs: 2_000, resolver, transport: relocatingTransport(() => closedPort) });
    const result = await fetcher.fetchMetadata("https://agents.test/agent.json");
    expect(isMetadataFetchFailure(result) ? `${result.blame} ${result.reason}` : "fetched").toBe(
      "origin METADATA_ORIGIN_DOWN: the metadata origin could not be reached (ECONNREFUSED)",
    );
  });
});
