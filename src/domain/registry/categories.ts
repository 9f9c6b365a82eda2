import { sha256 } from "@noble/hashes/sha2.js";
import { bytesToHex } from "@noble/hashes/utils.js";

/** A category as the API shows it: the name a client filters by and the on-chain tag hash. */
export type Category = Readonly<{ name: string; hash: string }>;

/** Built-in categories, used when no categories file is configured. */
export const DEFAULT_CATEGORY_NAMES: readonly string[] = Object.freeze([
  "defi",
  "trading",
  "payments",
  "analytics",
  "data",
  "research",
  "coding",
  "content",
  "social",
  "gaming",
  "nft",
  "security",
  "infrastructure",
  "customer-support",
  "productivity",
  "education",
]);

const HASH_HEX = /^[0-9a-f]{64}$/;

/** On-chain tag hash of a category: SHA-256 of the UTF-8 name, lowercase hex. */
export function categoryHash(name: string): string {
  return bytesToHex(sha256(new TextEncoder().encode(name)));
}

export type CategoryCatalog = Readonly<{
  list: readonly Category[];
  /** Name for a known tag hash, else undefined. */
  nameOf(hashHex: string): string | undefined;
  /**
   * Tag hash for a filter value: a configured name (case-insensitive), a 64-char hex hash as is,
   * or any other string hashed verbatim (tags need not be in the configured list).
   */
  resolve(value: string): string;
}>;

export function createCategoryCatalog(names: readonly string[]): CategoryCatalog {
  const list = Object.freeze(dedupe(names).map((name) => Object.freeze({ name, hash: categoryHash(name) })));
  const byHash = new Map(list.map((c) => [c.hash, c.name]));
  const byLowerName = new Map(list.map((c) => [c.name.toLowerCase(), c.hash]));
  return Object.freeze({
    list,
    nameOf: (hashHex: string) => byHash.get(hashHex),
    resolve: (value: string) => {
      const known = byLowerName.get(value.toLowerCase());
      if (known !== undefined) return known;
      return HASH_HEX.test(value) ? value : categoryHash(value);
    },
  });
}

function dedupe(names: readonly string[]): string[] {
  return [...new Set(names)];
}
