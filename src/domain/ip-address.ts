/**
 * IP address text to bytes: pure, for every layer that reads an address (the metadata fetcher's
 * SSRF rules, the per-client rate limits). Canonical forms only: what WHATWG URL, `dns.lookup` and
 * the runtimes' socket peers produce.
 */

/** 4 bytes for IPv4, 16 for IPv6, null for anything else (including non-canonical IPv4 such as `0177.0.0.1`). */
export function parseIpAddress(text: string): Uint8Array | null {
  const bare = text.startsWith("[") && text.endsWith("]") ? text.slice(1, -1) : text;
  return bare.includes(":") ? parseV6(bare) : parseV4(bare);
}

const V4_PART = /^(0|[1-9]\d{0,2})$/;

function parseV4(text: string): Uint8Array | null {
  const parts = text.split(".");
  if (parts.length !== 4 || !parts.every((part) => V4_PART.test(part))) return null;
  const numbers = parts.map(Number);
  return numbers.every((n) => n <= 255) ? Uint8Array.from(numbers) : null;
}

const V6_GROUP = /^[0-9a-fA-F]{1,4}$/;

function parseV6(text: string): Uint8Array | null {
  const withoutZone = text.split("%")[0] ?? "";
  const halves = withoutZone.split("::");
  if (halves.length > 2) return null;
  const head = groupsOf(halves[0] ?? "", halves.length === 1);
  const tail = halves.length === 2 ? groupsOf(halves[1] ?? "", true) : [];
  if (head === null || tail === null) return null;
  const missing = 8 - head.length - tail.length;
  if (halves.length === 1 ? missing !== 0 : missing < 1) return null;
  const groups = [...head, ...new Array<number>(halves.length === 2 ? missing : 0).fill(0), ...tail];
  const bytes = new Uint8Array(16);
  groups.forEach((group, i) => {
    bytes[i * 2] = group >> 8;
    bytes[i * 2 + 1] = group & 0xff;
  });
  return bytes;
}

/** Groups of one side of `::`; the last group of the address may be a dotted IPv4 (`::ffff:127.0.0.1`). */
function groupsOf(text: string, mayEndWithV4: boolean): number[] | null {
  if (text === "") return [];
  const parts = text.split(":");
  const groups: number[] = [];
  for (const [i, part] of parts.entries()) {
    if (mayEndWithV4 && i === parts.length - 1 && part.includes(".")) {
      const v4 = parseV4(part);
      if (v4 === null) return null;
      groups.push(((v4[0] ?? 0) << 8) | (v4[1] ?? 0), ((v4[2] ?? 0) << 8) | (v4[3] ?? 0));
    } else if (V6_GROUP.test(part)) {
      groups.push(Number.parseInt(part, 16));
    } else {
      return null;
    }
  }
  return groups;
}
