import { isBase58Address } from "./fast-address-codec.ts";
import type { AgentKey } from "./agent-order.ts";

/**
 * The list cursor is the keyset of the last agent returned, versioned and base64url-encoded so
 * clients treat it as opaque. It holds no offset, so inserts and updates elsewhere in the list
 * do not shift the pages of agents that did not change.
 */
const VERSION = "a1";
const I64_MIN = -(2n ** 63n);
const I64_MAX = 2n ** 63n - 1n;
const INTEGER = /^-?[0-9]{1,19}$/;

export function encodeAgentCursor(key: AgentKey): string {
  return toBase64Url(`${VERSION}:${key.updatedAt.toString()}:${key.nftMint}`);
}

/** The key inside a cursor, or null when the text is not a cursor this service issued. */
export function decodeAgentCursor(cursor: string): AgentKey | null {
  const text = fromBase64Url(cursor);
  if (text === null) return null;
  const [version, updatedAt, nftMint, ...rest] = text.split(":");
  if (version !== VERSION || rest.length > 0 || updatedAt === undefined || nftMint === undefined) return null;
  if (!INTEGER.test(updatedAt) || !isBase58Address(nftMint)) return null;
  const value = BigInt(updatedAt);
  if (value < I64_MIN || value > I64_MAX) return null;
  return { updatedAt: value, nftMint };
}

function toBase64Url(text: string): string {
  return btoa(text).replaceAll("+", "-").replaceAll("/", "_").replace(/=+$/, "");
}

function fromBase64Url(text: string): string | null {
  if (text.length === 0 || text.length > 200 || !/^[A-Za-z0-9_-]+$/.test(text)) return null;
  try {
    return atob(text.replaceAll("-", "+").replaceAll("_", "/"));
  } catch {
    return null;
  }
}
