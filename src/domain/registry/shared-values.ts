import type { Address, ReadonlyUint8Array } from "@solana/kit";
import { toHex } from "./borsh-codecs.ts";

/**
 * A bounded table of shared values: agents repeat owners and tag lists, and one instance of each
 * instead of one per agent is that many fewer heap cells. Past `limit` distinct keys, new values are
 * kept as they are (still correct, just not shared); what it holds stays for the process's life, so
 * the limit also bounds what it keeps of owners that are gone.
 */
function sharingTable<V>(limit: number): (key: string, make: () => V) => V {
  const known = new Map<string, V>();
  return (key, make) => {
    const found = known.get(key);
    if (found !== undefined) return found;
    const value = make();
    if (known.size < limit) known.set(key, value);
    return value;
  };
}

const owners = sharingTable<Address>(65_536);
export const sharedAddress = (address: Address): Address => owners(address, () => address);

export type SharedTags = Readonly<{ list: readonly ReadonlyUint8Array[]; hashes: readonly string[] }>;
const tagInstances = sharingTable<ReadonlyUint8Array>(4_096);
const tagLists = sharingTable<SharedTags>(4_096);

/**
 * An agent's tags as one shared list of shared instances, with the list of its distinct tag hashes
 * (hex) that the category filter compares: agents share a few combinations of a few categories.
 * Frozen, since every agent with the same tags holds them.
 */
export function sharedTags(tags: readonly ReadonlyUint8Array[]): SharedTags {
  let key = "";
  for (const tag of tags) key += toHex(tag);
  return tagLists(key, () => tagsOf(tags.map((tag) => new Uint8Array(tag))));
}

/**
 * The shared tags of `count` tags stored one after another in `bytes` from `at` (an account's
 * `tags` vector): one hex string of them all is the key, the bytes are copied only for a new list.
 */
export function sharedTagsAt(bytes: Uint8Array, at: number, count: number): SharedTags {
  return tagLists(toHex(bytes.subarray(at, at + count * 32)), () => tagsOf(Array.from({ length: count }, (_, i) => bytes.slice(at + i * 32, at + i * 32 + 32))));
}

function tagsOf(tags: readonly Uint8Array[]): SharedTags {
  const hexes = tags.map(toHex);
  return {
    list: Object.freeze(tags.map((tag, i) => tagInstances(hexes[i] as string, () => tag))),
    hashes: Object.freeze([...new Set(hexes)]),
  };
}
