/**
 * Which IP addresses the metadata fetcher may connect to. Pure functions over canonical address
 * text (what WHATWG URL and `dns.lookup` produce); anything that does not parse is forbidden.
 *
 * SECURITY: these rules stop server-side request forgery through `POST /agents/register`: a client
 * choosing a metadata URI that points at the loopback interface, the private network, the cloud
 * metadata service (169.254.169.254) or any other address that is not on the public internet.
 */
import { parseIpAddress } from "../../domain/ip-address.ts";

type Range = Readonly<{ name: string; prefix: readonly number[]; bits: number }>;

/** IPv4 ranges that are not public unicast (IANA special-purpose registry). */
const FORBIDDEN_V4: readonly Range[] = [
  { name: "this network 0.0.0.0/8", prefix: [0, 0, 0, 0], bits: 8 },
  { name: "private 10.0.0.0/8", prefix: [10, 0, 0, 0], bits: 8 },
  { name: "shared address space (CGNAT) 100.64.0.0/10", prefix: [100, 64, 0, 0], bits: 10 },
  { name: "loopback 127.0.0.0/8", prefix: [127, 0, 0, 0], bits: 8 },
  { name: "link-local 169.254.0.0/16 (cloud metadata)", prefix: [169, 254, 0, 0], bits: 16 },
  { name: "private 172.16.0.0/12", prefix: [172, 16, 0, 0], bits: 12 },
  { name: "IETF protocol assignments 192.0.0.0/24", prefix: [192, 0, 0, 0], bits: 24 },
  { name: "documentation 192.0.2.0/24", prefix: [192, 0, 2, 0], bits: 24 },
  { name: "6to4 relay anycast 192.88.99.0/24", prefix: [192, 88, 99, 0], bits: 24 },
  { name: "private 192.168.0.0/16", prefix: [192, 168, 0, 0], bits: 16 },
  { name: "benchmarking 198.18.0.0/15", prefix: [198, 18, 0, 0], bits: 15 },
  { name: "documentation 198.51.100.0/24", prefix: [198, 51, 100, 0], bits: 24 },
  { name: "documentation 203.0.113.0/24", prefix: [203, 0, 113, 0], bits: 24 },
  { name: "multicast 224.0.0.0/4", prefix: [224, 0, 0, 0], bits: 4 },
  { name: "reserved and broadcast 240.0.0.0/4", prefix: [240, 0, 0, 0], bits: 4 },
];

/** IPv6 prefixes whose last 32 bits (or bits 16..48 for 6to4) are an IPv4 address the OS or a translator reaches. */
const V4_EMBEDDING_V6: readonly (Range & { v4Offset: number })[] = [
  { name: "IPv4-mapped ::ffff:0:0/96", prefix: v6(0, 0, 0, 0, 0, 0xffff), bits: 96, v4Offset: 12 },
  { name: "NAT64 64:ff9b::/96", prefix: v6(0x64, 0xff9b), bits: 96, v4Offset: 12 },
  { name: "6to4 2002::/16", prefix: v6(0x2002), bits: 16, v4Offset: 2 },
];

/** Named IPv6 ranges, checked before the "global unicast only" rule so a refusal says which one. */
const FORBIDDEN_V6: readonly Range[] = [
  { name: "unspecified ::/128", prefix: v6(), bits: 128 },
  { name: "loopback ::1/128", prefix: v6(0, 0, 0, 0, 0, 0, 0, 1), bits: 128 },
  { name: "IPv4-compatible ::/96 (deprecated)", prefix: v6(), bits: 96 },
  { name: "IPv4-translated ::ffff:0:0:0/96", prefix: v6(0, 0, 0, 0, 0xffff), bits: 96 },
  { name: "local-use NAT64 64:ff9b:1::/48", prefix: v6(0x64, 0xff9b, 1), bits: 48 },
  { name: "discard-only 100::/64", prefix: v6(0x100), bits: 64 },
  { name: "unique-local fc00::/7", prefix: v6(0xfc00), bits: 7 },
  { name: "link-local fe80::/10", prefix: v6(0xfe80), bits: 10 },
  { name: "site-local fec0::/10 (deprecated)", prefix: v6(0xfec0), bits: 10 },
  { name: "multicast ff00::/8", prefix: v6(0xff00), bits: 8 },
  { name: "IETF protocol assignments (Teredo, ORCHID, ...) 2001::/23", prefix: v6(0x2001), bits: 23 },
  { name: "documentation 2001:db8::/32", prefix: v6(0x2001, 0x0db8), bits: 32 },
  { name: "documentation 3fff::/20", prefix: v6(0x3fff), bits: 20 },
];

const GLOBAL_UNICAST_V6: Range = { name: "global unicast 2000::/3", prefix: v6(0x2000), bits: 3 };

/**
 * Why this address may not be connected to, or null when it is a public unicast address.
 * Accepts dotted-quad IPv4 (decimal, no leading zeros) and IPv6 with or without brackets and zone.
 *
 * @example
 * forbiddenAddressReason("169.254.169.254"); // "link-local 169.254.0.0/16 (cloud metadata)"
 * forbiddenAddressReason("[::ffff:7f00:1]"); // "IPv4-mapped ::ffff:0:0/96 of loopback 127.0.0.0/8"
 * forbiddenAddressReason("93.184.216.34");   // null
 */
export function forbiddenAddressReason(address: string): string | null {
  const bytes = parseIpAddress(address);
  if (bytes === null) return "not an IP address";
  return bytes.length === 4 ? forbiddenV4(bytes) : forbiddenV6(bytes);
}

function forbiddenV4(bytes: Uint8Array): string | null {
  return FORBIDDEN_V4.find((range) => matches(bytes, range))?.name ?? null;
}

function forbiddenV6(bytes: Uint8Array): string | null {
  for (const range of V4_EMBEDDING_V6) {
    if (!matches(bytes, range)) continue;
    const inner = forbiddenV4(bytes.subarray(range.v4Offset, range.v4Offset + 4));
    return inner === null ? null : `${range.name} of ${inner}`;
  }
  const named = FORBIDDEN_V6.find((range) => matches(bytes, range));
  if (named !== undefined) return named.name;
  return matches(bytes, GLOBAL_UNICAST_V6) ? null : "outside global unicast 2000::/3";
}

function matches(bytes: Uint8Array, range: Range): boolean {
  if (bytes.length !== range.prefix.length) return false;
  for (let bit = 0; bit < range.bits; bit += 8) {
    const width = Math.min(8, range.bits - bit);
    const mask = (0xff << (8 - width)) & 0xff;
    const index = bit / 8;
    if (((bytes[index] ?? 0) & mask) !== ((range.prefix[index] ?? 0) & mask)) return false;
  }
  return true;
}

function v6(...groups: number[]): number[] {
  const bytes: number[] = [];
  for (let i = 0; i < 8; i++) {
    const group = groups[i] ?? 0;
    bytes.push(group >> 8, group & 0xff);
  }
  return bytes;
}
