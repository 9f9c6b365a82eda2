/**
 * SECURITY: the unit per-client rate limits count (pure): an IPv6 client is its /64, an IPv4-mapped
 * IPv6 address is the IPv4 address, ports and zones are dropped.
 */
import { describe, expect, test } from "bun:test";
import { clientKey, clientNetworkOf } from "../../../src/http/client-address.ts";

describe("clientNetworkOf", () => {
  test("an IPv4 address is itself", () => {
    expect(clientNetworkOf("203.0.113.7")).toBe("203.0.113.7");
  });

  test("every address of one IPv6 /64 is one client, however it is written; the next /64 is another", () => {
    const network = "2001:db8:1:2::/64";
    for (const address of ["2001:db8:1:2::1", "2001:db8:1:2:ffff:ffff:ffff:ffff", "2001:0db8:0001:0002:0:0:0:a", "2001:DB8:1:2::B", "[2001:db8:1:2::c]", "fe80::1%eth0".replace("fe80::1", "2001:db8:1:2::d")]) {
      expect({ address, network: clientNetworkOf(address) }).toEqual({ address, network });
    }
    expect(clientNetworkOf("2001:db8:1:3::1")).toBe("2001:db8:1:3::/64");
    expect(clientNetworkOf("2001:db8::1")).toBe("2001:db8:0:0::/64");
  });

  test("an IPv4-mapped IPv6 address counts as the IPv4 address, in either notation", () => {
    expect(clientNetworkOf("::ffff:203.0.113.7")).toBe("203.0.113.7");
    expect(clientNetworkOf("::ffff:cb00:7107")).toBe("203.0.113.7");
    expect(clientNetworkOf("0:0:0:0:0:ffff:203.0.113.7")).toBe("203.0.113.7");
  });

  test("a port written by a proxy is dropped", () => {
    expect(clientNetworkOf("203.0.113.7:51234")).toBe("203.0.113.7");
    expect(clientNetworkOf("[2001:db8:1:2::9]:443")).toBe("2001:db8:1:2::/64");
    expect(clientNetworkOf("[::ffff:203.0.113.7]:80")).toBe("203.0.113.7");
  });

  test("text that is no address counts as itself, cut to 64 characters", () => {
    expect(clientNetworkOf("unknown-proxy")).toBe("unknown-proxy");
    expect(clientNetworkOf("x".repeat(500))).toHaveLength(64);
  });
});

describe("clientKey", () => {
  const peer = (address: string | null) => () => address;
  const request = (forwardedFor?: string) => new Request("http://registry.test/auth/challenge", forwardedFor ? { headers: { "x-forwarded-for": forwardedFor } } : {});

  test("the socket peer's network, or the last X-Forwarded-For hop's when trusted", () => {
    expect(clientKey(request(), peer("2001:db8:1:2::5"), false)).toBe("ip:2001:db8:1:2::/64");
    expect(clientKey(request("198.51.100.1, 2001:db8:9:9::1"), peer("10.0.0.1"), true)).toBe("ip:2001:db8:9:9::/64");
    expect(clientKey(request("2001:db8:9:9::1"), peer("::ffff:10.0.0.1"), false)).toBe("ip:10.0.0.1");
  });

  test("no address at all shares one key (limited, never unlimited)", () => {
    expect(clientKey(request(), peer(null), false)).toBe("ip:unknown");
  });
});
