/**
 * Registering on a laptop (issue 25 §4): POST /agents/register with a metadata URI served on this
 * machine over plain http, through the whole service (buildService: embedded litesvm ledger, PGlite,
 * app.handle) and the REAL metadata fetcher against a real HTTP server on 127.0.0.1 (random port).
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createHash } from "node:crypto";
import { generateKeyPairSigner, getBase64Encoder, getCompiledTransactionMessageDecoder, getTransactionDecoder } from "@solana/kit";
import { decodeRegisterAgentData } from "../../src/domain/registry/register-agent.ts";
import { type TestService, startService } from "../settlement/support/service-harness.ts";

const DOCUMENT = JSON.stringify({ name: "Laptop agent", description: "served from 127.0.0.1", version: "1" });
const asked: string[] = [];
const metadataServer = Bun.serve({
  hostname: "127.0.0.1",
  port: 0,
  fetch(request): Response {
    const url = new URL(request.url);
    asked.push(`${request.headers.get("host")}${url.pathname}`);
    if (url.pathname === "/moved.json") return Response.redirect(`http://localhost:${metadataServer.port}/agent.json`, 302);
    return url.pathname === "/agent.json" ? new Response(DOCUMENT, { headers: { "content-type": "application/json" } }) : new Response("no", { status: 404 });
  },
});
afterAll(() => metadataServer.stop(true));

async function register(service: TestService, metadataUri: string) {
  const owner = (await generateKeyPairSigner()).address;
  const response = await service.registryApp.handle(
    new Request("http://registry.test/agents/register", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ name: "Laptop agent", ownerAddress: owner, metadataUri }),
    }),
  );
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

function metadataOf(transaction: string) {
  const decoded = getTransactionDecoder().decode(getBase64Encoder().encode(transaction));
  const message = getCompiledTransactionMessageDecoder().decode(decoded.messageBytes);
  if (message.version !== "legacy") throw new Error(`expected a legacy message, got ${message.version}`);
  return decodeRegisterAgentData(message.instructions[0]?.data ?? new Uint8Array());
}

describe("METADATA_ALLOW_LOOPBACK unset with the embedded ledger: loopback metadata registers (real fetcher, real HTTP server)", () => {
  let service: TestService;
  beforeAll(async () => {
    service = await startService({ REGISTER_RATE_LIMIT_PER_MINUTE: "1000" });
  }, 30_000);
  afterAll(() => service.dispose());

  test("http://127.0.0.1:<port> and http://localhost:<port> are fetched and hashed into register_agent", async () => {
    const digest = createHash("sha256").update(DOCUMENT).digest("hex");
    for (const host of ["127.0.0.1", "localhost"]) {
      const uri = `http://${host}:${metadataServer.port}/agent.json`;
      const reply = await register(service, uri);
      expect({ uri, status: reply.status }).toEqual({ uri, status: 201 });
      const args = metadataOf(String(reply.body["transaction"]));
      expect(args?.metadataUri).toBe(uri);
      expect(Buffer.from(args?.metadataHash ?? []).toString("hex")).toBe(digest);
      // The request went to this server with the URI's own host, localhost pinned to 127.0.0.1.
      expect(asked.at(-1)).toBe(`${host}:${metadataServer.port}/agent.json`);
    }
  });

  test("a loopback redirect is followed; a loopback 404 is refused like any other (400 METADATA_HTTP_STATUS)", async () => {
    const moved = await register(service, `http://127.0.0.1:${metadataServer.port}/moved.json`);
    expect(moved.status).toBe(201);
    const missing = await register(service, `http://127.0.0.1:${metadataServer.port}/missing.json`);
    expect(missing.status).toBe(400);
    expect(String(missing.body["message"])).toContain("METADATA_HTTP_STATUS: the metadata URI answered HTTP 404");
  });

  test("other http hosts stay refused, before any fetch, with a message naming what is allowed", async () => {
    const before = asked.length;
    for (const uri of [`http://127.0.0.2:${metadataServer.port}/agent.json`, "http://agents.example.com/agent.json", `http://[::1]:${metadataServer.port}/agent.json`]) {
      const reply = await register(service, uri);
      expect({ uri, status: reply.status }).toEqual({ uri, status: 400 });
      expect(String(reply.body["message"])).toBe("metadataUri must be an https: or ipfs: URI, or http: to 127.0.0.1 or localhost (METADATA_ALLOW_LOOPBACK)");
    }
    expect(asked.length).toBe(before);
  });
});

describe("METADATA_ALLOW_LOOPBACK=false (what a service on a real ledger gets by default)", () => {
  test("a loopback URI is a 400 and the server is never asked", async () => {
    const service = await startService({ METADATA_ALLOW_LOOPBACK: "false" });
    try {
      const before = asked.length;
      const reply = await register(service, `http://127.0.0.1:${metadataServer.port}/agent.json`);
      expect(reply.status).toBe(400);
      expect(String(reply.body["message"])).toBe("metadataUri must be an https: or ipfs: URI");
      expect(asked.length).toBe(before);
    } finally {
      await service.dispose();
    }
  }, 30_000);
});
