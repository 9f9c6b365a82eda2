import type { Address, ReadonlyUint8Array } from "@solana/kit";
import type { AgentIdentity } from "./agent-identity.ts";
import type { AgentRecord } from "./agent-record.ts";
import { toHex } from "./borsh-codecs.ts";

/**
 * What the catalog keeps and compares for one agent: its sort key, the record it serves, and the
 * fields the filters test. `updatedRank` is `updatedAt` as a double (exact below 2^53).
 */
export type CatalogEntry = Readonly<{
  record: AgentRecord;
  nftMint: string;
  updatedAt: bigint;
  updatedRank: number;
  owner: string;
  active: boolean;
  uriLower: string;
  tagHashes: readonly string[];
}>;

/**
 * One indexed agent in as few heap cells as its fields allow. At 100,000 agents the index held 12
 * cells an agent (the record, its decoded identity, a catalog entry, two BigInts, the metadata
 * hash's Uint8Array, address strings), 1.2 million in all, and every full collection walks each
 * one: its pauses set the tail of every request. Here the record is its catalog entry, times and
 * counters are doubles (a bigint only past 2^53), the metadata hash is words in the object, owners
 * shared strings, tags shared lists: one object and its address, mint, authority and URI strings
 * (4 cells an agent). The decoded `identity` is built on each read (0.6-2 µs): read it once per use;
 * the presenter keeps each list view.
 */
export class IndexedAgent implements AgentRecord, CatalogEntry {
  readonly address: Address;
  readonly nftMint: Address;
  readonly owner: Address;
  readonly feedbackAuthority: Address;
  readonly metadataUri: string;
  readonly uriLower: string;
  readonly tags: readonly ReadonlyUint8Array[];
  readonly tagHashes: readonly string[];
  readonly active: boolean;
  readonly updatedRank: number;
  private readonly created: number | bigint;
  private readonly updated: number | bigint;
  private readonly ownerVersion: number | bigint;
  private readonly verifiedFeedbackCount: number | bigint;
  private readonly verifiedScoreSum: number | bigint;
  private readonly unverifiedFeedbackCount: number | bigint;
  private readonly unverifiedScoreSum: number | bigint;
  private readonly validationCount: number | bigint;
  private readonly delegationCount: number | bigint;
  private readonly bump: number;
  // The metadata hash, 32 bytes as eight 32-bit words (doubles, no heap cells), bytes again only
  // when the identity is asked for.
  private readonly m0: number;
  private readonly m1: number;
  private readonly m2: number;
  private readonly m3: number;
  private readonly m4: number;
  private readonly m5: number;
  private readonly m6: number;
  private readonly m7: number;

  constructor(address: Address, identity: AgentIdentity) {
    this.address = address;
    this.nftMint = identity.nftMint;
    this.owner = sharedAddress(identity.owner);
    this.feedbackAuthority = identity.feedbackAuthority === identity.owner ? this.owner : identity.feedbackAuthority;
    this.metadataUri = identity.metadataUri;
    const lower = identity.metadataUri.toLowerCase();
    this.uriLower = lower === identity.metadataUri ? identity.metadataUri : lower;
    const tags = sharedTags(identity.tags);
    this.tags = tags.list;
    this.tagHashes = tags.hashes;
    this.active = identity.active;
    this.created = compact(identity.createdAt);
    this.updated = compact(identity.updatedAt);
    this.updatedRank = Number(identity.updatedAt);
    this.ownerVersion = compact(identity.ownerVersion);
    this.verifiedFeedbackCount = compact(identity.verifiedFeedbackCount);
    this.verifiedScoreSum = compact(identity.verifiedScoreSum);
    this.unverifiedFeedbackCount = compact(identity.unverifiedFeedbackCount);
    this.unverifiedScoreSum = compact(identity.unverifiedScoreSum);
    this.validationCount = compact(identity.validationCount);
    this.delegationCount = compact(identity.delegationCount);
    this.bump = identity.bump;
    const m = identity.metadataHash;
    this.m0 = word(m, 0);
    this.m1 = word(m, 4);
    this.m2 = word(m, 8);
    this.m3 = word(m, 12);
    this.m4 = word(m, 16);
    this.m5 = word(m, 20);
    this.m6 = word(m, 24);
    this.m7 = word(m, 28);
  }

  /** The entry is the record. */
  get record(): AgentRecord {
    return this;
  }

  get updatedAt(): bigint {
    return BigInt(this.updated);
  }

  /** The decoded account, built on each call: read it once per use. */
  get identity(): AgentIdentity {
    return {
      nftMint: this.nftMint,
      owner: this.owner,
      ownerVersion: BigInt(this.ownerVersion),
      feedbackAuthority: this.feedbackAuthority,
      metadataUri: this.metadataUri,
      metadataHash: bytesOf(this.m0, this.m1, this.m2, this.m3, this.m4, this.m5, this.m6, this.m7),
      tags: this.tags as ReadonlyUint8Array[],
      active: this.active,
      createdAt: BigInt(this.created),
      updatedAt: BigInt(this.updated),
      verifiedFeedbackCount: BigInt(this.verifiedFeedbackCount),
      verifiedScoreSum: BigInt(this.verifiedScoreSum),
      unverifiedFeedbackCount: BigInt(this.unverifiedFeedbackCount),
      unverifiedScoreSum: BigInt(this.unverifiedScoreSum),
      validationCount: BigInt(this.validationCount),
      delegationCount: BigInt(this.delegationCount),
      bump: this.bump,
    };
  }
}

function bytesOf(...words: number[]): Uint8Array {
  const bytes = new Uint8Array(32);
  for (let i = 0; i < 8; i++) {
    const w = words[i] as number;
    bytes[i * 4] = w & 255;
    bytes[i * 4 + 1] = (w >>> 8) & 255;
    bytes[i * 4 + 2] = (w >>> 16) & 255;
    bytes[i * 4 + 3] = w >>> 24;
  }
  return bytes;
}

/**
 * An i64 or u64 as a double when exact (every real time, nearly every counter), else the bigint as
 * it was: a double is no heap cell, a bigint is one.
 */
function compact(value: bigint): number | bigint {
  const asNumber = Number(value);
  return Number.isSafeInteger(asNumber) ? asNumber : value;
}

function word(bytes: ReadonlyUint8Array, at: number): number {
  return ((bytes[at] as number) | ((bytes[at + 1] as number) << 8) | ((bytes[at + 2] as number) << 16) | ((bytes[at + 3] as number) << 24)) >>> 0;
}

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
const sharedAddress = (address: Address): Address => owners(address, () => address);

const tagInstances = sharingTable<ReadonlyUint8Array>(4_096);
const tagLists = sharingTable<Readonly<{ list: readonly ReadonlyUint8Array[]; hashes: readonly string[] }>>(4_096);

/**
 * An agent's tags as one shared list of shared instances, with the list of its distinct tag hashes
 * (hex) that the category filter compares: agents share a few combinations of a few categories.
 * Frozen, since every agent with the same tags holds them.
 */
function sharedTags(tags: readonly ReadonlyUint8Array[]): Readonly<{ list: readonly ReadonlyUint8Array[]; hashes: readonly string[] }> {
  const hexes = tags.map(toHex);
  return tagLists(hexes.join(","), () => ({
    list: Object.freeze(tags.map((tag, i) => tagInstances(hexes[i] as string, () => tag))),
    hashes: Object.freeze([...new Set(hexes)]),
  }));
}
