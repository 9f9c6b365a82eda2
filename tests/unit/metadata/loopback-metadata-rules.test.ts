/**
 * METADATA_ALLOW_LOOPBACK (issue 25 §4), pure: which metadata URIs the target rules admit with it
 * on and off, the setting's default, and the production guard refusing it. No socket is opened.
 */
import { describe, expect, test } from "bun:test";
import { metadataLoopbackAllowed, parseAppConfig } from "../../../src/infrastructure/config/app-config.ts";
import { productionProblems } from "../../../src/infrastructure/config/production-guard.ts";
import { parseGatewayUrl, targetOfMetadataUri, targetOfRedirect } from "../../../src/infrastructure/metadata/metadata-target.ts";

const gateway = parseGatewayUrl("https://ipfs.io/ipfs/");
const on = { gateway, allowedPorts: [443], allowLoopbackHttp: true };
const off = { ...on, allowLoopbackHttp: false };

const codeOf = (target: ReturnType<typeof targetOfMetadataUri>) => ("code" in target ? target.code : null);

describe("loopback metadata URIs in the target rules", () => {
  test("with the setting on, http to 127.0.0.1 and localhost on any port is admitted, pinned to 127.0.0.1 (localhost is never resolved)", () => {
    for (const uri of ["http://127.0.0.1:8080/agent.json", "http://localhost:5173/.well-known/agent.json", "http://127.0.0.1/agent.json", "http://LOCALHOST:1/a"]) {
      const target = targetOfMetadataUri(uri, on);
      expect({ uri, target: "code" in target ? target.code : { hostname: target.hostname, ip: target.ip, protocol: target.url.protocol } }).toEqual({
        uri,
        target: { hostname: "127.0.0.1", ip: "127.0.0.1", protocol: "http:" },
      });
    }
  });

  test("with the setting on, everything else over http stays refused: other loopback addresses, private and public hosts, credentials", () => {
    for (const uri of ["http://127.0.0.2:8080/a", "http://[::1]:8080/a", "http://10.0.0.8/a", "http://agents.example.com/a", "http://user:pw@localhost:8080/a", "http://app.localhost:8080/a"]) {
      expect({ uri, code: codeOf(targetOfMetadataUri(uri, on)) }).toEqual({ uri, code: "METADATA_SCHEME_FORBIDDEN" });
    }
    // https to loopback is still an inward address, with or without the setting.
    expect(codeOf(targetOfMetadataUri("https://127.0.0.1/agent.json", on))).toBe("METADATA_ADDRESS_FORBIDDEN");
    expect(codeOf(targetOfMetadataUri("https://localhost/agent.json", on))).toBe("METADATA_ADDRESS_FORBIDDEN");
  });

  test("with the setting off (production, SOLANA_RPC_URL), loopback http is refused and the message lists only https and ipfs", () => {
    const refused = targetOfMetadataUri("http://127.0.0.1:8080/agent.json", off);
    expect(refused).toMatchObject({ code: "METADATA_SCHEME_FORBIDDEN" });
    expect("reason" in refused ? refused.reason : "").toContain("(https or ipfs only)");
    expect(codeOf(targetOfMetadataUri("http://localhost:8080/agent.json", off))).toBe("METADATA_SCHEME_FORBIDDEN");
  });

  test("SECURITY: a public origin cannot redirect into loopback, even with the setting on; a loopback origin may", () => {
    const publicOrigin = new URL("https://agents.example.com/agent.json");
    expect(codeOf(targetOfRedirect("http://127.0.0.1:5432/", publicOrigin, on))).toBe("METADATA_SCHEME_FORBIDDEN");
    expect(codeOf(targetOfRedirect("http://localhost:6379/", publicOrigin, on))).toBe("METADATA_SCHEME_FORBIDDEN");
    const local = targetOfRedirect("/v2/agent.json", new URL("http://localhost:8080/agent.json"), on);
    expect("code" in local ? local.code : local.url.href).toBe("http://localhost:8080/v2/agent.json");
  });
});

describe("METADATA_ALLOW_LOOPBACK, the setting", () => {
  const allowed = (env: Record<string, string>) => {
    const parsed = parseAppConfig(env);
    if (!parsed.ok) throw new Error(parsed.errors.join("; "));
    return metadataLoopbackAllowed(parsed.config);
  };

  test("unset: on with the embedded ledger (a laptop, like SEED_SAMPLE_AGENTS), off with SOLANA_RPC_URL; an explicit value wins outside production", () => {
    expect(allowed({})).toBe(true);
    expect(allowed({ SOLANA_RPC_URL: "http://127.0.0.1:8899" })).toBe(false);
    expect(allowed({ METADATA_ALLOW_LOOPBACK: "false" })).toBe(false);
    expect(allowed({ SOLANA_RPC_URL: "http://127.0.0.1:8899", METADATA_ALLOW_LOOPBACK: "true" })).toBe(true);
  });

  test("SECURITY: never in production: the guard refuses true, and the effective value is off there whatever the setting", () => {
    const env = { NODE_ENV: "production", SOLANA_RPC_URL: "https://rpc.example", METADATA_ALLOW_LOOPBACK: "true" };
    const parsed = parseAppConfig(env);
    if (!parsed.ok) throw new Error(parsed.errors.join("; "));
    expect(productionProblems(parsed.config, env)).toContain("METADATA_ALLOW_LOOPBACK: must not be true when NODE_ENV=production (loopback metadata URIs are for a laptop)");
    expect(metadataLoopbackAllowed(parsed.config)).toBe(false);
    const unset = parseAppConfig({ NODE_ENV: "production", SOLANA_RPC_URL: "https://rpc.example" });
    if (!unset.ok) throw new Error(unset.errors.join("; "));
    expect(productionProblems(unset.config, {}).some((p) => p.startsWith("METADATA_ALLOW_LOOPBACK"))).toBe(false);
  });
});
