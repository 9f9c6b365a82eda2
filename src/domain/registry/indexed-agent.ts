import type { Address, ReadonlyUint8Array } from "@solana/kit";
import type { AgentIdentity } from "./agent-identity.ts";
import type { AgentRecord } from "./agent-record.ts";
import { packable, packedWord, wordsText, type PackedKey } from "./packed-key.ts";
import { sharedAddress, sharedTags, type SharedTags } from "./shared-values.ts";

/**
 * What the catalog keeps and compares for one agent: its sort key, the record it serves, and the
 * fields the filters test. `updatedRank` is `updatedAt` as a double (exact below 2^53); the mint is
 * also its packed key (k0-k6, packed-key.ts), which orders and finds it without its string.
 */
export type CatalogEntry = PackedKey &
  Readonly<{
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
 * The decoded fields an IndexedAgent is made from, whichever way they were decoded: one scratch
 * instance (module-level, never kept), so both ways fill the object in the same order (one shape)
 * and decoding straight from account bytes allocates nothing but what the agent keeps.
 */
type Fields = {
  address: string;
  mint: string;
  owner: string;
  authority: string;
  uri: string;
  tags: SharedTags;
  active: boolean;
  created: number | bigint;
  updated: number | bigint;
  ownerVersion: number | bigint;
  counters: (number | bigint)[];
  bump: number;
  hash: number[];
  /**
   * Set by a decoder that packed the keys itself (a snapshot's, from their bytes, no string made):
   * `words` then holds the mint, the address and the feedback authority packed (7 words each; the
   * authority's zeros when `authorityIsOwner`), and `mint`, `address` and `authority` are not read.
   * Cleared by each agent made.
   */
  packed: boolean;
  words: Float64Array;
  authorityIsOwner: boolean;
};

const scratch: Fields = {
  address: "", mint: "", owner: "", authority: "", uri: "", tags: { list: [], hashes: [] }, active: false, created: 0, updated: 0, ownerVersion: 0,
  counters: [0, 0, 0, 0, 0, 0], bump: 0, hash: [0, 0, 0, 0, 0, 0, 0, 0], packed: false, words: new Float64Array(3 * 7), authorityIsOwner: false,
};

/** Packs the key strings of `f` into its words (the decoders that give strings). */
function packStrings(f: Fields): void {
  f.authorityIsOwner = f.authority === f.owner;
  const authority = f.authorityIsOwner ? "" : f.authority;
  for (let w = 0; w < 7; w++) {
    f.words[w] = packedWord(f.mint, w);
    f.words[7 + w] = packedWord(f.address, w);
    f.words[14 + w] = packedWord(authority, w);
  }
}

/**
 * One indexed agent in as few heap cells as its fields allow: one object and its metadata URI
 * string (the lower-cased copy is the same string when the URI is lower case already). The account
 * address, the mint and the feedback authority are each seven doubles of packed base58 text
 * (packed-key.ts; their strings are made when asked for), times and counters doubles (a bigint only
 * past 2^53), the metadata hash eight 32-bit words, owners shared strings, tags shared lists. At a
 * million agents the strings alone were three million cells that every full collection walked.
 * `address`, `nftMint`, `feedbackAuthority` and `identity` are built on each read: read them once
 * per use.
 *
 * Made from account bytes by `decodeIndexedAgent` (the index's one way in), or from a decoded
 * identity by the constructor (tests, tools).
 */
export class IndexedAgent implements AgentRecord, CatalogEntry {
  readonly k0: number;
  readonly k1: number;
  readonly k2: number;
  readonly k3: number;
  readonly k4: number;
  readonly k5: number;
  readonly k6: number;
  readonly owner: Address;
  readonly metadataUri: string;
  readonly uriLower: string;
  readonly tags: readonly ReadonlyUint8Array[];
  readonly tagHashes: readonly string[];
  readonly active: boolean;
  readonly updatedRank: number;
  /** The feedback authority is the owner (then f0-f6 are unused). */
  private readonly authorityIsOwner: boolean;
  private readonly a0: number;
  private readonly a1: number;
  private readonly a2: number;
  private readonly a3: number;
  private readonly a4: number;
  private readonly a5: number;
  private readonly a6: number;
  private readonly f0: number;
  private readonly f1: number;
  private readonly f2: number;
  private readonly f3: number;
  private readonly f4: number;
  private readonly f5: number;
  private readonly f6: number;
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
  // The metadata hash, 32 bytes as eight 32-bit words, bytes again only when the identity is asked for.
  private readonly m0: number;
  private readonly m1: number;
  private readonly m2: number;
  private readonly m3: number;
  private readonly m4: number;
  private readonly m5: number;
  private readonly m6: number;
  private readonly m7: number;

  constructor(address: Address, identity: AgentIdentity) {
    const f = identity === (FROM_SCRATCH as unknown) ? scratch : fieldsOf(address, identity);
    if (!f.packed) packStrings(f);
    f.packed = false;
    const w = f.words;
    this.k0 = w[0] as number;
    this.k1 = w[1] as number;
    this.k2 = w[2] as number;
    this.k3 = w[3] as number;
    this.k4 = w[4] as number;
    this.k5 = w[5] as number;
    this.k6 = w[6] as number;
    this.owner = sharedAddress(f.owner as Address);
    this.metadataUri = f.uri;
    const lower = f.uri.toLowerCase();
    this.uriLower = lower === f.uri ? f.uri : lower;
    this.tags = f.tags.list;
    this.tagHashes = f.tags.hashes;
    this.active = f.active;
    this.updatedRank = Number(f.updated);
    this.authorityIsOwner = f.authorityIsOwner;
    this.a0 = w[7] as number;
    this.a1 = w[8] as number;
    this.a2 = w[9] as number;
    this.a3 = w[10] as number;
    this.a4 = w[11] as number;
    this.a5 = w[12] as number;
    this.a6 = w[13] as number;
    this.f0 = w[14] as number;
    this.f1 = w[15] as number;
    this.f2 = w[16] as number;
    this.f3 = w[17] as number;
    this.f4 = w[18] as number;
    this.f5 = w[19] as number;
    this.f6 = w[20] as number;
    this.created = f.created;
    this.updated = f.updated;
    this.ownerVersion = f.ownerVersion;
    const c = f.counters;
    this.verifiedFeedbackCount = c[0] as number | bigint;
    this.verifiedScoreSum = c[1] as number | bigint;
    this.unverifiedFeedbackCount = c[2] as number | bigint;
    this.unverifiedScoreSum = c[3] as number | bigint;
    this.validationCount = c[4] as number | bigint;
    this.delegationCount = c[5] as number | bigint;
    this.bump = f.bump;
    const m = f.hash;
    this.m0 = m[0] as number;
    this.m1 = m[1] as number;
    this.m2 = m[2] as number;
    this.m3 = m[3] as number;
    this.m4 = m[4] as number;
    this.m5 = m[5] as number;
    this.m6 = m[6] as number;
    this.m7 = m[7] as number;
  }

  /** The entry is the record. */
  get record(): AgentRecord {
    return this;
  }

  get address(): Address {
    return wordsText(this.a0, this.a1, this.a2, this.a3, this.a4, this.a5, this.a6) as Address;
  }

  get nftMint(): Address {
    return wordsText(this.k0, this.k1, this.k2, this.k3, this.k4, this.k5, this.k6) as Address;
  }

  get feedbackAuthority(): Address {
    return this.authorityIsOwner ? this.owner : (wordsText(this.f0, this.f1, this.f2, this.f3, this.f4, this.f5, this.f6) as Address);
  }

  get updatedAt(): bigint {
    return BigInt(this.updated);
  }

  /** Whether `other` is the same account (an account's address, compared without its text). */
  sameAccount(other: IndexedAgent): boolean {
    return this.a0 === other.a0 && this.a1 === other.a1 && this.a2 === other.a2 && this.a3 === other.a3 && this.a4 === other.a4 && this.a5 === other.a5 && this.a6 === other.a6;
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

/** The marker the decoder passes for "the fields are in `scratch`". */
const FROM_SCRATCH = Symbol("scratch");

/** Makes the agent from the fields `fill` left in the scratch (account-decoder.ts). */
export function indexedAgentFromScratch(fill: (fields: Fields) => void): IndexedAgent {
  // A fill that threw halfway (a bad snapshot chunk) must not leave its words to the next agent.
  scratch.packed = false;
  fill(scratch);
  return new IndexedAgent(scratch.address as Address, FROM_SCRATCH as unknown as AgentIdentity);
}

export type { Fields as IndexedAgentFields };

function fieldsOf(address: Address, identity: AgentIdentity): Fields {
  for (const text of [address, identity.nftMint, identity.feedbackAuthority]) {
    // SECURITY: kept packed; a text that does not pack would come back different.
    if (!packable(text)) throw new RangeError(`not an address: ${text.slice(0, 60)}`);
  }
  const f = scratch;
  f.packed = false;
  f.address = address;
  f.mint = identity.nftMint;
  f.owner = identity.owner;
  f.authority = identity.feedbackAuthority;
  f.uri = identity.metadataUri;
  f.tags = sharedTags(identity.tags);
  f.active = identity.active;
  f.created = compact(identity.createdAt);
  f.updated = compact(identity.updatedAt);
  f.ownerVersion = compact(identity.ownerVersion);
  f.counters[0] = compact(identity.verifiedFeedbackCount);
  f.counters[1] = compact(identity.verifiedScoreSum);
  f.counters[2] = compact(identity.unverifiedFeedbackCount);
  f.counters[3] = compact(identity.unverifiedScoreSum);
  f.counters[4] = compact(identity.validationCount);
  f.counters[5] = compact(identity.delegationCount);
  f.bump = identity.bump;
  for (let i = 0; i < 8; i++) f.hash[i] = word(identity.metadataHash, i * 4);
  return f;
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

export function word(bytes: ReadonlyUint8Array, at: number): number {
  return ((bytes[at] as number) | ((bytes[at + 1] as number) << 8) | ((bytes[at + 2] as number) << 16) | ((bytes[at + 3] as number) << 24)) >>> 0;
}
