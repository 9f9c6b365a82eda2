/**
 * SECURITY: per-client limits count an IPv6 client as its /64, through the real path the address
 * comes from: the listener's socket peer in a real `bun src/main.ts` child process, real sockets from
 * real IPv6 source addresses. They live in a private network namespace (`unshare --net`, needs root
 * or CAP_SYS_ADMIN), so nothing of the machine's own network changes; without one the test is
 * skipped with the reason (and fails under CI=true).
 */
import { describe, expect, test } from "bun:test";
import { join } from "node:path";
import { failWhenRequired, gateOn } from "../../fixtures/gate.ts";
import { BUN, ROOT } from "../walkthrough/support/spawn-service.ts";

const ADDRESSES = ["2001:db8:1:2::a", "2001:db8:1:2::b", "2001:db8:1:3::a"];
const SETUP = ["ip link set lo up", ...ADDRESSES.map((address) => `ip -6 addr add ${address}/64 dev lo nodad`)].join(" && ");

function namespaceProblem(): string | null {
  const probe = Bun.spawnSync(["unshare", "--net", "sh", "-c", SETUP], { stderr: "pipe" });
  return probe.exitCode === 0 ? null : `cannot make a network namespace with IPv6 addresses (${probe.stderr.toString().trim() || `exit ${probe.exitCode}`})`;
}

const gate = gateOn("registration", "the IPv6 /64 rate-limit test", namespaceProblem());
failWhenRequired(gate, "IPv6 /64 rate limits through real sockets");

describe.skipIf(!gate.run)("rate limits count an IPv6 client per /64 (real child process, real IPv6 sockets in a network namespace)", () => {
  test("a second address of the same /64 is limited with the first; another /64 is not; an IPv4 client on the dual-stack listener counts as its IPv4 address", async () => {
    const scenario = join(ROOT, "tests/registration/support/ipv6-peer-scenario.ts");
    const child = Bun.spawn(["unshare", "--net", "sh", "-c", `${SETUP} && exec "$0" "$1"`, BUN, scenario], {
      cwd: ROOT,
      env: { PATH: process.env["PATH"] ?? "", HOME: process.env["HOME"] ?? "" },
      stdout: "pipe",
      stderr: "pipe",
    });
    const [code, stdout, stderr] = await Promise.all([child.exited, new Response(child.stdout).text(), new Response(child.stderr).text()]);
    expect({ code, stderr: code === 0 ? "" : stderr }).toEqual({ code: 0, stderr: "" });
    const statuses = JSON.parse(stdout.trim().split("\n").at(-1) ?? "{}") as Record<string, number | number[]>;
    // The metadata host does not resolve in the namespace, so admitted registrations end in a 400 or 502; only the limit answers 429.
    const [first, second, third] = statuses["sameNetwork"] as number[];
    expect([first, second].every((status) => status !== 429)).toBe(true);
    expect(third).toBe(429);
    expect(statuses["otherNetwork"]).not.toBe(429);
    const ipv4 = statuses["ipv4"] as number[];
    expect(ipv4.slice(0, 2).every((status) => status !== 429)).toBe(true);
    expect(ipv4[2]).toBe(429);
    expect(statuses["challenge"]).toEqual([200, 429, 200]);
  }, 60_000);
});
