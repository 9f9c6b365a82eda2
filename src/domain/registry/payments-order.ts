import { isBase58Address } from "./fast-address-codec.ts";
import type { AgentKey } from "./agent-order.ts";

/**
 * The `sort=payments` order of the agent list: agents whose owner received payments settled
 * through this facilitator first, by that count descending, ties by owner then nftMint ascending
 * (plain string order of the base58 text); then every other agent in the default order
 * (`updatedAt` descending, then nftMint descending). Only owners with payments are ranked, so the
 * ranking costs what the distinct payees number, never what the registry does.
 */
export type PaidOwner = Readonly<{ owner: string; count: number }>;

/** Where a page of the paid part ended: the last agent returned, with the count it was ranked by. */
export type PaidKey = Readonly<{ count: number; owner: string; nftMint: string }>;

export type PaymentsCursor = Readonly<{ part: "paid"; key: PaidKey }> | Readonly<{ part: "unpaid"; after: AgentKey }>;

/** Negative when owner `a` ranks before `b`. */
function compareOwners(a: PaidOwner, b: PaidOwner): number {
  if (a.count !== b.count) return b.count - a.count;
  return a.owner < b.owner ? -1 : a.owner > b.owner ? 1 : 0;
}

/** `owners` in list order (a new frozen array; the input is not changed). */
export function rankPaidOwners(owners: readonly PaidOwner[]): readonly PaidOwner[] {
  return Object.freeze([...owners].sort(compareOwners));
}

/**
 * The smallest address (32 zero bytes): a cursor key with it as nftMint resumes at the start of
 * its owner's agents, for a page that ended between two owners.
 */
export const FIRST_MINT = "11111111111111111111111111111111";

/** Index of the first owner of `ranking` that does not rank before the key's (count, owner). */
export function firstOwnerFrom(ranking: readonly PaidOwner[], key: PaidKey): number {
  let low = 0;
  let high = ranking.length;
  while (low < high) {
    const mid = (low + high) >>> 1;
    if (compareOwners(ranking[mid] as PaidOwner, key) < 0) low = mid + 1;
    else high = mid;
  }
  return low;
}

const VERSION = "p1";
const I64_MIN = -(2n ** 63n);
const I64_MAX = 2n ** 63n - 1n;
const INTEGER = /^-?[0-9]{1,19}$/;
const COUNT = /^[0-9]{1,15}$/;

/** Opaque like the default order's cursor, and never mistaken for one (another version tag). */
export function encodePaymentsCursor(cursor: PaymentsCursor): string {
  const text = cursor.part === "paid" ? `${VERSION}:paid:${cursor.key.count}:${cursor.key.owner}:${cursor.key.nftMint}` : `${VERSION}:unpaid:${cursor.after.updatedAt}:${cursor.after.nftMint}`;
  return btoa(text).replaceAll("+", "-").replaceAll("/", "_").replace(/=+$/, "");
}

/** The position inside a cursor, or null when the text is not a sort=payments cursor of this service. */
export function decodePaymentsCursor(cursor: string): PaymentsCursor | null {
  if (cursor.length === 0 || cursor.length > 200 || !/^[A-Za-z0-9_-]+$/.test(cursor)) return null;
  let text: string;
  try {
    text = atob(cursor.replaceAll("-", "+").replaceAll("_", "/"));
  } catch {
    return null;
  }
  const [version, part, ...rest] = text.split(":");
  if (version !== VERSION) return null;
  if (part === "paid" && rest.length === 3) {
    const [count, owner, nftMint] = rest as [string, string, string];
    if (!COUNT.test(count) || Number(count) < 1 || !isBase58Address(owner) || !isBase58Address(nftMint)) return null;
    return { part: "paid", key: { count: Number(count), owner, nftMint } };
  }
  if (part === "unpaid" && rest.length === 2) {
    const [updatedAt, nftMint] = rest as [string, string];
    if (!INTEGER.test(updatedAt) || !isBase58Address(nftMint)) return null;
    const value = BigInt(updatedAt);
    if (value < I64_MIN || value > I64_MAX) return null;
    return { part: "unpaid", after: { updatedAt: value, nftMint } };
  }
  return null;
}
