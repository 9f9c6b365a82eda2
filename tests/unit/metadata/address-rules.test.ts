import { describe, expect, test } from "bun:test";
import { isMetadataFetchFailure } from "../../../src/application/ports/metadata-fetcher.ts";
import { staticHostResolver } from "../../../src/infrastructure/metadata/host-resolver.ts";
import { parseIpAddress } from "../../../src/domain/ip-address.ts";
import { forbiddenAddressReason } from "../../../src/infrastructure/metadata/ip-address-rules.ts";
import { createMetadataFetcher } from "../../../src/infrastructure/metadata/metadata-fetcher.ts";
import { parseGatewayUrl, targetOfMetadataUri } from "../../../src/infrastructure/metadata/metadata-target.ts";
import type { PinnedHttpsTransport } from "../../../src/infrastructure/metadata/pinned-https-transport.ts";

/** Pure unit tests (no HTTP at all): the address rules over every notation, as literals and as DNS answers. */

const rules = { gateway: parseGatewayUrl("https://ipfs.io/ipfs/"), allowedPorts: [443], allowLoopbackHttp: false };

/** [address as a resolver or URL parser would produce it, the range it falls in]. */
const FORBIDDEN: readonly (readonly [string, string])[] = [
  ["0.0.0.0", "this network"],
  ["0.1.2.3", "this network"],
  ["10.0.0.1", "private 10."],
  ["10.255.255.255", "private 10."],
  ["100.64.0.1", "CGNAT"],
  ["100.127.255.255", "CGNAT"],
  ["127.0.0.1", "loopback"],
  ["127.255.255.254", "loopback"],
  ["169.254.169.254", "link-local"],
  ["169.254.0.1", "link-local"],
  ["172.16.0.1", "private 172.16"],
  ["172.31.255.255", "private 172.16"],
  ["192.0.0.170", "IETF protocol"],
  ["192.0.2.1", "documentation"],
  ["192.88.99.1", "6to4 relay"],
  ["192.168.1.1", "private 192.168"],
  ["198.18.0.1", "benchmarking"],
  ["198.51.100.7", "documentation"],
  ["203.0.113.9", "documentation"],
  ["224.0.0.1", "multicast"],
  ["239.255.255.250", "multicast"],
  ["240.0.0.1", "reserved"],
  ["255.255.255.255", "broadcast"],
  ["::", "unspecified"],
  ["::1", "loopback ::1"],
  ["0:0:0:0:0:0:0:1", "loopback ::1"],
  ["::ffff:127.0.0.1", "IPv4-mapped ::ffff:0:0/96 of loopback"],
  ["::ffff:7f00:1", "IPv4-mapped ::ffff:0:0/96 of loopback"],
  ["0:0:0:0:0:ffff:7f00:0001", "IPv4-mapped ::ffff:0:0/96 of loopback"],
  ["::ffff:a9fe:a9fe", "IPv4-mapped ::ffff:0:0/96 of link-local"],
  ["::ffff:10.0.0.1", "IPv4-mapped ::ffff:0:0/96 of private"],
  ["::127.0.0.1", "IPv4-compatible"],
  ["::7f00:1", "IPv4-compatible"],
  ["::93.184.216.34", "IPv4-compatible"],
  ["::ffff:0:7f00:1", "IPv4-translated"],
  ["64:ff9b::127.0.0.1", "NAT64 64:ff9b::/96 of loopback"],
  ["64:ff9b::a9fe:a9fe", "NAT64 64:ff9b::/96 of link-local"],
  ["64:ff9b:1::5db8:d822", "local-use NAT64"],
  ["2002:7f00:1::1", "6to4 2002::/16 of loopback"],
  ["2002:c0a8:101::1", "6to4 2002::/16 of private 192.168"],
  ["2001:0:4136:e378:8000:63bf:3fff:fdd2", "IETF protocol assignments"],
  ["2001:db8::1", "documentation 2001:db8"],
  ["3fff::1", "documentation 3fff"],
  ["100::1", "discard-only"],
  ["fc00::1", "unique-local"],
  ["fd12:3456:789a::1", "unique-local"],
  ["fe80::1", "link-local fe80"],
  ["fe80::1%eth0", "link-local fe80"],
  ["febf:ffff::1", "link-local fe80"],
  ["fec0::1", "site-local"],
  ["ff02::1", "multicast ff00"],
  ["ff05::1:3", "multicast ff00"],
  ["4000::1", "outside global unicast"],
  ["[::1]", "loopback ::1"],
  // Not canonical: a resolver never answers these, a URL parser normalises them first. Fail closed.
  ["0177.0.0.1", "not an IP address"],
  ["2130706433", "not an IP address"],
  ["0x7f.1", "not an IP address"],
  ["127.1", "not an IP address"],
  ["256.1.1.1", "not an IP address"],
  ["1::2::3", "not an IP address"],
  ["1:2:3:4:5:6:7:8:9", "not an IP address"],
  ["", "not an IP address"],
  ["example.com", "not an IP address"],
];

const PUBLIC: readonly string[] = [
  "93.184.216.34",
  "1.1.1.1",
  "8.8.8.8",
  "9.255.255.255",
  "11.0.0.0",
  "100.63.255.255",
  "100.128.0.0",
  "172.15.255.255",
  "172.32.0.0",
  "169.253.255.255",
  "192.169.0.1",
  "198.20.0.1",
  "223.255.255.255",
  "2606:2800:220:1:248:1893:25c8:1946",
  "2a00:1450:4001:80b::200e",
  "::ffff:93.184.216.34",
  "::ffff:5db8:d822",
  "64:ff9b::93.184.216.34",
  "2002:5db8:d822::1",
  "2001:200::1",
];

describe("address rules (pure unit, table-driven)", () => {
  for (const [address, range] of FORBIDDEN) {
    test(`${address || "(empty)"} is forbidden: ${range}`, () => {
      expect(forbiddenAddressReason(address)).toContain(range);
    });
  }
  for (const address of PUBLIC) {
    test(`${address} is public`, () => {
      expect(forbiddenAddressReason(address)).toBeNull();
    });
  }

  test("IPv6 parsing expands :: and an IPv4 tail to 16 bytes", () => {
    expect(parseIpAddress("::ffff:127.0.0.1")).toEqual(parseIpAddress("0:0:0:0:0:ffff:7f00:1"));
    expect(parseIpAddress("1::")?.length).toBe(16);
    expect(parseIpAddress("1:2:3:4:5:6:7::")).toEqual(parseIpAddress("1:2:3:4:5:6:7:0"));
    expect(parseIpAddress("::1.2.3.4.5")).toBeNull();
  });
});

/** Literal hosts in the URI, in every notation WHATWG URL accepts: each is normalised, then checked. */
const FORBIDDEN_LITERAL_URIS: readonly string[] = [
  "https://127.0.0.1/",
  "https://2130706433/",
  "https://0177.0.0.1/",
  "https://0x7f.1/",
  "https://0x7f000001/",
  "https://127.1/",
  "https://127.0.1/",
  "https://0/",
  "https://0.0.0.0/",
  "https://169.254.169.254/latest/meta-data/",
  "https://0xa9fea9fe/",
  "https://2852039166/",
  "https://0251.0376.0251.0376/",
  "https://10.0.0.1/",
  "https://012.0.0.1/",
  "https://100.64.0.1/",
  "https://172.16.0.1/",
  "https://192.168.0.1/",
  "https://224.0.0.1/",
  "https://255.255.255.255/",
  "https://0xffffffff/",
  "https://[::]/",
  "https://[::1]/",
  "https://[0:0:0:0:0:0:0:1]/",
  "https://[::ffff:127.0.0.1]/",
  "https://[::ffff:7f00:1]/",
  "https://[::ffff:169.254.169.254]/",
  "https://[::127.0.0.1]/",
  "https://[64:ff9b::127.0.0.1]/",
  "https://[64:ff9b::a9fe:a9fe]/",
  "https://[2002:7f00:1::]/",
  "https://[fe80::1]/",
  "https://[fc00::1]/",
  "https://[fd00:ec2::254]/",
  "https://[ff02::1]/",
  "https://127.0.0.1./",
  "https://１２７.０.０.１/",
];

describe("literal IP hosts in a metadata URI (pure unit, WHATWG URL then the rules)", () => {
  for (const uri of FORBIDDEN_LITERAL_URIS) {
    test(`${uri} -> METADATA_ADDRESS_FORBIDDEN`, () => {
      const target = targetOfMetadataUri(uri, rules);
      expect("code" in target ? target.code : `allowed ${target.url.href}`).toBe("METADATA_ADDRESS_FORBIDDEN");
    });
  }
  for (const uri of ["https://93.184.216.34/a.json", "https://1572395042/a.json", "https://[2606:2800:220:1:248:1893:25c8:1946]/a.json", "https://[::ffff:93.184.216.34]/a.json"]) {
    test(`${uri} is allowed (public)`, () => {
      const target = targetOfMetadataUri(uri, rules);
      expect("code" in target ? target.code : "allowed").toBe("allowed");
    });
  }
});

describe("DNS answers (real fetcher, injected resolver, a transport that must never be called)", () => {
  let connections = 0;
  const transport: PinnedHttpsTransport = async () => {
    connections++;
    throw new Error("the transport must not be reached");
  };
  const answers = [...FORBIDDEN.map(([address]) => address).filter((a) => a !== "" && a !== "example.com")];
  const table = Object.fromEntries(answers.map((address, i) => [`host${i}.example.com`, ["93.184.216.34", address]]));
  const fetcher = createMetadataFetcher({ gatewayUrl: "https://ipfs.io/ipfs/", timeoutMs: 1_000, resolver: staticHostResolver(table), transport });

  test("a name answering a public address and any forbidden one is refused, for every forbidden notation", async () => {
    const allowed: string[] = [];
    for (const [index, address] of answers.entries()) {
      const result = await fetcher.fetchMetadata(`https://host${index}.example.com/agent.json`);
      if (!isMetadataFetchFailure(result) || result.code !== "METADATA_ADDRESS_FORBIDDEN") allowed.push(address);
    }
    expect(allowed).toEqual([]);
    expect(connections).toBe(0);
  });
});
