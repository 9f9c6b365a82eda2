import { afterAll, afterEach, beforeAll, describe, expect, test } from "bun:test";
import { sha256 } from "@noble/hashes/sha2.js";
import { HttpResponse, delay, http } from "msw";
import { setupServer } from "msw/node";
import { type MetadataDocument, type MetadataFetchCode, type MetadataFetchFailure, isMetadataFetchFailure } from "../../src/application/ports/metadata-fetcher.ts";
import { staticHostResolver } from "../../src/infrastructure/metadata/host-resolver.ts";
import { METADATA_USER_AGENT, createMetadataFetcher } from "../../src/infrastructure/metadata/metadata-fetcher.ts";

/**
 * Real: the fetcher, its URI and address rules, the pinned node:https transport up to the point
 * where it would open a socket. msw: the HTTP origins (msw/node intercepts node:https under Bun
 * before any socket or DNS lookup, so the pinning itself is proven in loopback-tls-server.test.ts).
 * The injected resolver maps test names to public (documentation-free) addresses: no public network.
 */

const PUBLIC_V4 = "93.184.216.34";
const PUBLIC_V6 = "2606:2800:220:1:248:1893:25c8:1946";
const MiB = 1024 * 1024;

const resolver = staticHostResolver({
  "agents.example.com": [PUBLIC_V4],
  "dual.example.com": [PUBLIC_V4, PUBLIC_V6],
  "gateway.example.com": [PUBLIC_V4],
  "hop.example.com": [PUBLIC_V4],
  "internal.example.com": ["10.0.0.5"],
  "rebind-half.example.com": [PUBLIC_V4, "127.0.0.1"],
  "mapped.example.com": [PUBLIC_V4, "::ffff:169.254.169.254"],
});

const hits = new Map<string, number>();
const seenHeaders: Headers[] = [];

function count(name: string): void {
  hits.set(name, (hits.get(name) ?? 0) + 1);
}

function jsonOfSize(size: number): Uint8Array {
  const frame = '{"pad":""}';
  return new TextEncoder().encode(`{"pad":"${"x".repeat(size - frame.length)}"}`);
}

/** A body of `total` bytes produced on demand. */
function countedStream(total: number, chunkSize = 16 * 1024): ReadableStream<Uint8Array> {
  const chunk = new Uint8Array(chunkSize).fill(0x20);
  let produced = 0;
  return new ReadableStream<Uint8Array>({
    pull(controller) {
      if (produced >= total) return controller.close();
      const size = Math.min(chunkSize, total - produced);
      controller.enqueue(size === chunkSize ? chunk : chunk.subarray(0, size));
      produced += size;
    },
  });
}

const DOCUMENT = new TextEncoder().encode('{"name":"Agent Smith","description":"x84 test agent","image":"https://agents.example.com/a.png"}\n');

const server = setupServer(
  http.get("https://agents.example.com/agent.json", ({ request }) => {
    count("agent.json");
    seenHeaders.push(request.headers);
    return new HttpResponse(DOCUMENT, { headers: { "content-type": "application/json" } });
  }),
  // A RegExp: msw's path patterns read the colons of an IPv6 literal as parameters.
  http.get(/^https:\/\/\[2606:2800:220:1:248:1893:25c8:1946\]\/agent\.json$/, () => {
    count("v6-literal");
    return HttpResponse.json({ via: "ipv6 literal" });
  }),
  http.get("https://dual.example.com/agent.json", () => HttpResponse.json({ via: "dual" })),
  http.get("https://agents.example.com/exactly-1mib.json", () => new HttpResponse(jsonOfSize(MiB))),
  http.get("https://agents.example.com/1mib-plus-1.json", () => new HttpResponse(jsonOfSize(MiB + 1))),
  http.get("https://agents.example.com/declared-huge.json", () => {
    return new HttpResponse(countedStream(64 * MiB), { headers: { "content-length": String(64 * MiB) } });
  }),
  http.get("https://agents.example.com/endless.json", () => new HttpResponse(countedStream(64 * MiB))),
  http.get("https://agents.example.com/slow-head.json", async () => {
    await delay(2_000);
    return HttpResponse.json({ late: true });
  }),
  http.get("https://agents.example.com/slow-body.json", () => {
    const stream = new ReadableStream<Uint8Array>({
      async start(controller) {
        controller.enqueue(new TextEncoder().encode('{"a":'));
        await delay(2_000);
        controller.enqueue(new TextEncoder().encode("1}"));
        controller.close();
      },
    });
    return new HttpResponse(stream);
  }),
  http.get("https://agents.example.com/redirect/:n", ({ params }) => {
    const n = Number(params["n"]);
    count(`redirect-${n}`);
    const next = n <= 1 ? "/agent.json" : `/redirect/${n - 1}`;
    return new HttpResponse(null, { status: n % 2 === 0 ? 302 : 301, headers: { location: next } });
  }),
  http.get("https://agents.example.com/to-hop", () => HttpResponse.redirect("https://hop.example.com/doc.json", 307)),
  http.get("https://hop.example.com/doc.json", () => HttpResponse.json({ hopped: true })),
  http.get("https://agents.example.com/to-internal", () => HttpResponse.redirect("https://internal.example.com/admin", 302)),
  http.get("https://agents.example.com/to-metadata-service", () => HttpResponse.redirect("https://169.254.169.254/latest/meta-data/", 302)),
  http.get("https://agents.example.com/to-http", () => HttpResponse.redirect("http://agents.example.com/agent.json", 301)),
  http.get("https://agents.example.com/to-decimal-loopback", () => HttpResponse.redirect("https://2130706433/", 308)),
  http.get("https://agents.example.com/redirect-without-location", () => new HttpResponse(null, { status: 302 })),
  http.get("https://internal.example.com/admin", () => {
    count("internal");
    return HttpResponse.json({ secret: true });
  }),
  http.get("https://169.254.169.254/latest/meta-data/", () => {
    count("metadata-service");
    return HttpResponse.json({ secret: true });
  }),
  http.get("http://agents.example.com/agent.json", () => {
    count("plain-http");
    return HttpResponse.json({ downgraded: true });
  }),
  http.get("https://rebind-half.example.com/agent.json", () => {
    count("rebind-half");
    return HttpResponse.json({});
  }),
  http.get("https://mapped.example.com/agent.json", () => {
    count("mapped");
    return HttpResponse.json({});
  }),
  http.get("https://agents.example.com/html", () => HttpResponse.html("<html><body>hello</body></html>")),
  http.get("https://agents.example.com/array.json", () => HttpResponse.json([{ name: "a" }])),
  http.get("https://agents.example.com/null.json", () => HttpResponse.json(null)),
  http.get("https://agents.example.com/latin1.json", () => new HttpResponse(new Uint8Array([0x7b, 0x22, 0x61, 0x22, 0x3a, 0x22, 0xe9, 0x22, 0x7d]))),
  http.get("https://agents.example.com/gzip.json", () => new HttpResponse(new Uint8Array([0x1f, 0x8b, 8, 0, 0, 0, 0, 0]), { headers: { "content-encoding": "gzip" } })),
  http.get("https://agents.example.com/missing.json", () => HttpResponse.json({ error: "nope" }, { status: 404 })),
  http.get("https://agents.example.com/forbidden.json", () => new HttpResponse(null, { status: 403 })),
  http.get("https://agents.example.com/unavailable.json", () => new HttpResponse("down", { status: 503 })),
  http.get("https://agents.example.com/refused.json", () => HttpResponse.error()),
  http.get("https://gateway.example.com/ipfs/:cid/*", ({ params, request }) => {
    count("gateway");
    return HttpResponse.json({ cid: params["cid"], path: new URL(request.url).pathname });
  }),
  http.get("https://gateway.example.com/ipfs/:cid", ({ params }) => HttpResponse.json({ cid: params["cid"] })),
);

const fetcher = createMetadataFetcher({ gatewayUrl: "https://gateway.example.com/ipfs", timeoutMs: 2_000, resolver });

beforeAll(() => server.listen({ onUnhandledRequest: "error" }));
afterEach(() => {
  server.resetHandlers();
  hits.clear();
  seenHeaders.length = 0;
});
afterAll(() => server.close());

function expectDocument(result: MetadataDocument | MetadataFetchFailure): MetadataDocument {
  if (isMetadataFetchFailure(result)) throw new Error(`expected a document, got ${result.reason}`);
  return result;
}

function expectFailure(result: MetadataDocument | MetadataFetchFailure, status: 400 | 502, code: MetadataFetchCode): MetadataFetchFailure {
  if (!isMetadataFetchFailure(result)) throw new Error(`expected ${code}, got a document`);
  // The HTTP layer answers a URI's fault 400 and an origin's 502.
  expect({ blame: result.blame, code: result.code }).toEqual({ blame: status === 400 ? "uri" : "origin", code });
  expect(result.reason.startsWith(`${code}: `)).toBe(true);
  return result;
}

describe("metadata fetcher (real fetcher and transport, msw origins, injected resolver)", () => {
  test("success: the hash is SHA-256 of the exact bytes served, the JSON object is parsed", async () => {
    const document = expectDocument(await fetcher.fetchMetadata("https://agents.example.com/agent.json"));
    expect(document.bytes).toEqual(DOCUMENT);
    expect(document.sha256).toEqual(sha256(DOCUMENT));
    expect(document.sha256.length).toBe(32);
    expect(document.json).toEqual({ name: "Agent Smith", description: "x84 test agent", image: "https://agents.example.com/a.png" });
  });

  test("sends only the fixed User-Agent, Accept and identity encoding: no cookies, no authorization", async () => {
    expectDocument(await fetcher.fetchMetadata("https://agents.example.com/agent.json"));
    const headers = seenHeaders[0];
    expect(headers?.get("user-agent")).toBe(METADATA_USER_AGENT);
    expect(headers?.get("accept-encoding")).toBe("identity");
    expect(headers?.get("cookie")).toBeNull();
    expect(headers?.get("authorization")).toBeNull();
  });

  test("a host with public IPv4 and IPv6 addresses, and a public IPv6 literal, are fetched", async () => {
    expect(expectDocument(await fetcher.fetchMetadata("https://dual.example.com/agent.json")).json).toEqual({ via: "dual" });
    expect(expectDocument(await fetcher.fetchMetadata(`https://[${PUBLIC_V6}]/agent.json`)).json).toEqual({ via: "ipv6 literal" });
  });

  test("exactly 1 MiB is accepted; 1 MiB + 1 byte is METADATA_TOO_LARGE (400)", async () => {
    expect(expectDocument(await fetcher.fetchMetadata("https://agents.example.com/exactly-1mib.json")).bytes.length).toBe(MiB);
    expectFailure(await fetcher.fetchMetadata("https://agents.example.com/1mib-plus-1.json"), 400, "METADATA_TOO_LARGE");
  });

  test("an endless body and a declared Content-Length over 1 MiB are METADATA_TOO_LARGE, without waiting for the end", async () => {
    // msw drains a handler's stream into its mock socket whatever the client reads, so what the
    // origin had to produce is shown against a real server in loopback-tls-server.test.ts.
    // No stopwatch here (it failed on a loaded machine and proved nothing msw can show).
    expectFailure(await fetcher.fetchMetadata("https://agents.example.com/endless.json"), 400, "METADATA_TOO_LARGE");
    expectFailure(await fetcher.fetchMetadata("https://agents.example.com/declared-huge.json"), 400, "METADATA_TOO_LARGE");
  });

  test("slow response head: METADATA_TIMEOUT (502) at the configured deadline", async () => {
    const quick = createMetadataFetcher({ gatewayUrl: "https://gateway.example.com/ipfs/", timeoutMs: 150, resolver });
    // The origin answers after 2 s: a deadline that did not fire would return the document.
    expectFailure(await quick.fetchMetadata("https://agents.example.com/slow-head.json"), 502, "METADATA_TIMEOUT");
  });

  test("a body that trickles past the deadline: METADATA_TIMEOUT", async () => {
    const quick = createMetadataFetcher({ gatewayUrl: "https://gateway.example.com/ipfs/", timeoutMs: 150, resolver });
    expectFailure(await quick.fetchMetadata("https://agents.example.com/slow-body.json"), 502, "METADATA_TIMEOUT");
  });

  test("a resolver that never answers: METADATA_TIMEOUT", async () => {
    const hanging = createMetadataFetcher({
      gatewayUrl: "https://gateway.example.com/ipfs/",
      timeoutMs: 100,
      resolver: () => new Promise(() => undefined),
    });
    expectFailure(await hanging.fetchMetadata("https://agents.example.com/agent.json"), 502, "METADATA_TIMEOUT");
  });

  test("3 redirects are followed (301/302 mixed); a 4th is METADATA_TOO_MANY_REDIRECTS and not followed", async () => {
    expect(expectDocument(await fetcher.fetchMetadata("https://agents.example.com/redirect/3")).sha256).toEqual(sha256(DOCUMENT));
    hits.clear();
    expectFailure(await fetcher.fetchMetadata("https://agents.example.com/redirect/4"), 400, "METADATA_TOO_MANY_REDIRECTS");
    // /redirect/1 answered the 4th redirect; its target is never requested.
    expect([hits.get("redirect-4"), hits.get("redirect-1"), hits.get("agent.json")]).toEqual([1, 1, undefined]);
  });

  test("a redirect to another public host is followed", async () => {
    expect(expectDocument(await fetcher.fetchMetadata("https://agents.example.com/to-hop")).json).toEqual({ hopped: true });
  });

  test("a redirect to a name resolving to a private address is refused before it is requested", async () => {
    expectFailure(await fetcher.fetchMetadata("https://agents.example.com/to-internal"), 400, "METADATA_ADDRESS_FORBIDDEN");
    expect(hits.get("internal")).toBeUndefined();
  });

  test("a redirect to the cloud metadata address, or to loopback in decimal notation, is refused", async () => {
    expectFailure(await fetcher.fetchMetadata("https://agents.example.com/to-metadata-service"), 400, "METADATA_ADDRESS_FORBIDDEN");
    expectFailure(await fetcher.fetchMetadata("https://agents.example.com/to-decimal-loopback"), 400, "METADATA_ADDRESS_FORBIDDEN");
    expect(hits.get("metadata-service")).toBeUndefined();
  });

  test("a redirect from https to http is METADATA_SCHEME_FORBIDDEN", async () => {
    expectFailure(await fetcher.fetchMetadata("https://agents.example.com/to-http"), 400, "METADATA_SCHEME_FORBIDDEN");
    expect(hits.get("plain-http")).toBeUndefined();
  });

  test("a redirect without Location is METADATA_HTTP_STATUS (400)", async () => {
    expectFailure(await fetcher.fetchMetadata("https://agents.example.com/redirect-without-location"), 400, "METADATA_HTTP_STATUS");
  });

  test("a name with one public and one forbidden address (loopback, mapped link-local) is refused, no request made", async () => {
    expectFailure(await fetcher.fetchMetadata("https://rebind-half.example.com/agent.json"), 400, "METADATA_ADDRESS_FORBIDDEN");
    expectFailure(await fetcher.fetchMetadata("https://mapped.example.com/agent.json"), 400, "METADATA_ADDRESS_FORBIDDEN");
    expect(hits.size).toBe(0);
  });

  test("the refusal never names the resolved address", async () => {
    const failure = expectFailure(await fetcher.fetchMetadata("https://internal.example.com/admin"), 400, "METADATA_ADDRESS_FORBIDDEN");
    expect(failure.reason).not.toContain("10.0.0.5");
  });

  test("non-JSON, a JSON array, JSON null, invalid UTF-8 and an unrequested gzip body are METADATA_NOT_JSON (400)", async () => {
    for (const path of ["html", "array.json", "null.json", "latin1.json", "gzip.json"]) {
      expectFailure(await fetcher.fetchMetadata(`https://agents.example.com/${path}`), 400, "METADATA_NOT_JSON");
    }
  });

  test("404 and 403 are METADATA_HTTP_STATUS 400; 503 is METADATA_HTTP_STATUS 502", async () => {
    const missing = expectFailure(await fetcher.fetchMetadata("https://agents.example.com/missing.json"), 400, "METADATA_HTTP_STATUS");
    expect(missing.reason).toContain("404");
    expectFailure(await fetcher.fetchMetadata("https://agents.example.com/forbidden.json"), 400, "METADATA_HTTP_STATUS");
    const down = expectFailure(await fetcher.fetchMetadata("https://agents.example.com/unavailable.json"), 502, "METADATA_HTTP_STATUS");
    expect(down.reason).toContain("503");
  });

  test("a network error (msw HttpResponse.error, as for a refused connection) is METADATA_ORIGIN_DOWN (502)", async () => {
    expectFailure(await fetcher.fetchMetadata("https://agents.example.com/refused.json"), 502, "METADATA_ORIGIN_DOWN");
  });

  test("an unknown host is METADATA_HOST_UNKNOWN (400); a DNS server failure is METADATA_ORIGIN_DOWN (502)", async () => {
    expectFailure(await fetcher.fetchMetadata("https://nowhere.example.com/agent.json"), 400, "METADATA_HOST_UNKNOWN");
    const failing = createMetadataFetcher({
      gatewayUrl: "https://gateway.example.com/ipfs/",
      timeoutMs: 1_000,
      resolver: async () => {
        throw Object.assign(new Error("queryA EAI_AGAIN"), { code: "EAI_AGAIN" });
      },
    });
    expectFailure(await failing.fetchMetadata("https://agents.example.com/agent.json"), 502, "METADATA_ORIGIN_DOWN");
  });

  test("ipfs://<cid>/path goes through the configured gateway (a missing trailing slash is added)", async () => {
    const cid = "bafybeigdyrzt5sfp7udm7hu76uh7y26nf3efuylqabf3oclgtqy55fbzdi";
    const document = expectDocument(await fetcher.fetchMetadata(`ipfs://${cid}/agents/../agent.json?x=1#f`));
    expect(document.json).toEqual({ cid, path: `/ipfs/${cid}/agent.json` });
    expect(expectDocument(await fetcher.fetchMetadata(`ipfs://${cid}`)).json).toEqual({ cid });
  });
});

describe("metadata URI rules (real fetcher, nothing reaches msw)", () => {
  const refused: readonly (readonly [string, MetadataFetchCode])[] = [
    ["http://agents.example.com/agent.json", "METADATA_SCHEME_FORBIDDEN"],
    ["file:///etc/passwd", "METADATA_SCHEME_FORBIDDEN"],
    ["data:application/json,{}", "METADATA_SCHEME_FORBIDDEN"],
    ["ftp://agents.example.com/agent.json", "METADATA_SCHEME_FORBIDDEN"],
    ["javascript:alert(1)", "METADATA_SCHEME_FORBIDDEN"],
    ["gopher://agents.example.com:70/_x", "METADATA_SCHEME_FORBIDDEN"],
    ["ipns://agents.example.com/agent.json", "METADATA_SCHEME_FORBIDDEN"],
    ["wss://agents.example.com/agent.json", "METADATA_SCHEME_FORBIDDEN"],
    ["https://user:pass@agents.example.com/agent.json", "METADATA_URI_INVALID"],
    ["https://agents.example.com%2F@internal.example.com/", "METADATA_URI_INVALID"],
    ["https://agents.example.com:8443/agent.json", "METADATA_PORT_FORBIDDEN"],
    ["https://agents.example.com:80/agent.json", "METADATA_PORT_FORBIDDEN"],
    ["https://metadata/computeMetadata/v1/", "METADATA_ADDRESS_FORBIDDEN"],
    ["https://localhost/agent.json", "METADATA_ADDRESS_FORBIDDEN"],
    ["https://api.localhost./agent.json", "METADATA_ADDRESS_FORBIDDEN"],
    ["https://127.0.0.1/agent.json", "METADATA_ADDRESS_FORBIDDEN"],
    ["https://[::1]/agent.json", "METADATA_ADDRESS_FORBIDDEN"],
    ["ipfs:bafybeigdyrzt5sfp7udm7hu76uh7y26nf3efuylqabf3oclgtqy55fbzdi", "METADATA_URI_INVALID"],
    ["ipfs://user@bafybeigdyrzt5sfp7udm7hu76uh7y26nf3efuylqabf3oclgtqy55fbzdi/a.json", "METADATA_URI_INVALID"],
    ["ipfs://bafy.evil.example.com/a.json", "METADATA_URI_INVALID"],
    ["not a url", "METADATA_URI_INVALID"],
    ["", "METADATA_URI_INVALID"],
    [`https://agents.example.com/${"a".repeat(2100)}`, "METADATA_URI_INVALID"],
  ];
  for (const [uri, code] of refused) {
    test(`${uri.slice(0, 70) || "(empty)"} -> ${code} (400)`, async () => {
      expectFailure(await fetcher.fetchMetadata(uri), 400, code);
      expect(hits.size).toBe(0);
    });
  }

  test("a bad IPFS_GATEWAY_URL is refused at construction", () => {
    for (const gatewayUrl of ["http://ipfs.io/ipfs/", "https://u:p@ipfs.io/ipfs/", "https://ipfs.io:8080/ipfs/", "https://ipfs.io/ipfs/?x=1", "ipfs.io"]) {
      expect(() => createMetadataFetcher({ gatewayUrl, timeoutMs: 1_000 })).toThrow("IPFS_GATEWAY_URL");
    }
  });
});
