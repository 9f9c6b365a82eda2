import { Buffer } from "node:buffer";
import type { Address } from "@solana/kit";
import type { AgentIdentity } from "../../domain/registry/agent-identity.ts";
import type { AgentRecord } from "../../domain/registry/agent-record.ts";
import type { SlicedWork } from "../../domain/registry/sliced-work.ts";
import { indexedAgentFromScratch, type IndexedAgentFields } from "../../domain/registry/indexed-agent.ts";
import { sharedTags, type SharedTags } from "../../domain/registry/shared-values.ts";

/**
 * One agent of a snapshot: its record and what the account baseline keeps of its account (the
 * bytes its fields took, their 64-bit fingerprint, its slot), so a restart restores both without
 * decoding an account.
 */
export type SnapshotAgent = Readonly<{ record: AgentRecord; fieldBytes: number; h1: number; h2: number; slot: number }>;

/**
 * The agents of a snapshot chunk in a compact binary layout (little-endian), decoded without Borsh
 * and without base58: the addresses are stored as their text (ASCII), owners and tag lists once per
 * chunk, integers as LEB128 when they are exact doubles. Decoding 1,000,000 stored accounts through
 * the account decoder (base58 of three keys, ten BigInts, kit's struct codec) was ~30 µs an agent on
 * the shared machine; this is the cost of the strings the records hold anyway.
 *
 *   chunk   := MAGIC u32, count u32, owners (varint n, n x text), tag lists (varint n, n x (u8 k, k x 32 bytes)), count x agent
 *   agent   := address text, mint text, owner varint, authority (0: the owner, else 1 + text),
 *              uri (varint length, UTF-8), metadata hash 32 bytes, tag list varint, flags u8 (1: active),
 *              bump u8, nine integers, field bytes varint, h1 u32, h2 u32, slot integer
 *   text    := u8 length, ASCII
 *   integer := varint of 2v when 0 <= v < 2^53, else 0x01 then the u64, or 0x03 then the (negative) i64
 */
const MAGIC = 0x31_53_34_78; // "x4S1"

/** A chunk of `agents` (a few thousand), pausing every 256 agents. */
export function* encodeSnapshotChunk(agents: readonly SnapshotAgent[]): SlicedWork<Uint8Array> {
  const out = new ByteWriter(agents.length * 256 + 64);
  const owners = new Map<string, number>();
  const tagLists = new Map<string, number>();
  const tagBytes: (readonly Uint8Array[])[] = [];
  const identities: AgentIdentity[] = [];
  for (const agent of agents) {
    // Built on each read (IndexedAgent): once here.
    const identity = agent.record.identity;
    identities.push(identity);
    if (!owners.has(identity.owner)) owners.set(identity.owner, owners.size);
    const key = identity.tags.map((t) => Buffer.from(t).toString("hex")).join(",");
    if (!tagLists.has(key)) {
      tagLists.set(key, tagLists.size);
      tagBytes.push(identity.tags as Uint8Array[]);
    }
    if ((identities.length & 255) === 0) yield;
  }
  out.u32(MAGIC);
  out.u32(agents.length);
  out.varint(owners.size);
  for (const owner of owners.keys()) out.text(owner);
  out.varint(tagBytes.length);
  for (const tags of tagBytes) {
    out.u8(tags.length);
    for (const tag of tags) out.bytes(tag, 32);
  }
  for (let i = 0; i < agents.length; i++) {
    const agent = agents[i] as SnapshotAgent;
    const identity = identities[i] as AgentIdentity;
    out.text(agent.record.address);
    out.text(identity.nftMint);
    out.varint(owners.get(identity.owner) as number);
    if (identity.feedbackAuthority === identity.owner) out.u8(0);
    else {
      out.u8(1);
      out.text(identity.feedbackAuthority);
    }
    out.utf8(identity.metadataUri);
    out.bytes(identity.metadataHash as Uint8Array, 32);
    out.varint(tagLists.get(identity.tags.map((t) => Buffer.from(t).toString("hex")).join(",")) as number);
    out.u8(identity.active ? 1 : 0);
    out.u8(identity.bump);
    for (const value of [identity.ownerVersion, identity.createdAt, identity.updatedAt, identity.verifiedFeedbackCount, identity.verifiedScoreSum, identity.unverifiedFeedbackCount, identity.unverifiedScoreSum, identity.validationCount, identity.delegationCount]) out.integer(value);
    out.varint(agent.fieldBytes);
    out.u32(agent.h1);
    out.u32(agent.h2);
    out.integer(BigInt(agent.slot));
    if ((i & 255) === 255) yield;
  }
  return out.done();
}

/**
 * Decoded snapshot agents as columns: one array of records and one of numbers per field, no object
 * an agent. `addresses` holds each account's address text while the baseline takes them (the
 * record's own `address` would build it again from its packed words).
 */
export type SnapshotColumns = { records: AgentRecord[]; addresses: Address[]; fieldBytes: number[]; h1: number[]; h2: number[]; slots: number[] };

export function emptySnapshotColumns(): SnapshotColumns {
  return { records: [], addresses: [], fieldBytes: [], h1: [], h2: [], slots: [] };
}

/**
 * Reads a chunk back onto `into`, pausing every 256 agents; throws on anything that is not a chunk
 * (the caller then falls back to the stored accounts). The fields go straight into the agent
 * (indexedAgentFromScratch, as the account decoder does): no identity object and no bigint unless
 * a value is past 2^53.
 */
export function* decodeSnapshotChunk(data: Uint8Array, into: SnapshotColumns): SlicedWork<number> {
  const r = new ByteReader(data);
  if (r.u32() !== MAGIC) throw new Error("not a registry snapshot chunk");
  const count = r.u32();
  const owners: Address[] = [];
  for (let n = r.varint(); n > 0; n--) owners.push(r.address());
  const tagLists: SharedTags[] = [];
  for (let n = r.varint(); n > 0; n--) {
    const tags: Uint8Array[] = [];
    for (let k = r.u8(); k > 0; k--) tags.push(r.bytes(32));
    tagLists.push(sharedTags(tags));
  }
  for (let i = 0; i < count; i++) {
    let address = "" as Address;
    const record = indexedAgentFromScratch((f: IndexedAgentFields) => {
      // The keys packed from their bytes (no string but the address, which the baseline takes).
      address = r.addressPacked(f.words, 7, true);
      r.addressPacked(f.words, 0, false);
      const owner = owners[r.varint()];
      if (owner === undefined) throw new Error("snapshot chunk: owner out of range");
      f.owner = owner;
      f.authorityIsOwner = r.u8() === 0;
      if (f.authorityIsOwner) f.words.fill(0, 14, 21);
      else r.addressPacked(f.words, 14, false);
      f.packed = true;
      f.uri = r.utf8();
      for (let w = 0; w < 8; w++) f.hash[w] = r.u32();
      const tags = tagLists[r.varint()];
      if (tags === undefined) throw new Error("snapshot chunk: tag list out of range");
      f.tags = tags;
      f.active = r.u8() === 1;
      f.bump = r.u8();
      f.ownerVersion = r.integer();
      f.created = r.integer();
      f.updated = r.integer();
      for (let c = 0; c < 6; c++) f.counters[c] = r.integer();
    });
    into.records.push(record);
    into.addresses.push(address);
    into.fieldBytes.push(r.varint());
    into.h1.push(r.u32());
    into.h2.push(r.u32());
    into.slots.push(Number(r.integer()));
    if ((i & 255) === 255) yield;
  }
  if (r.at !== data.length) throw new Error("snapshot chunk: trailing bytes");
  return count;
}

const TWO_53 = 2 ** 53;

class ByteWriter {
  private buffer: Buffer;
  private at = 0;
  constructor(capacity: number) {
    this.buffer = Buffer.allocUnsafe(capacity);
  }
  private room(n: number): void {
    if (this.at + n <= this.buffer.length) return;
    const next = Buffer.allocUnsafe(Math.max(this.buffer.length * 2, this.at + n));
    this.buffer.copy(next, 0, 0, this.at);
    this.buffer = next;
  }
  u8(v: number): void {
    this.room(1);
    this.buffer[this.at++] = v;
  }
  u32(v: number): void {
    this.room(4);
    this.buffer.writeUInt32LE(v >>> 0, this.at);
    this.at += 4;
  }
  varint(v: number): void {
    this.room(10);
    while (v >= 128) {
      this.buffer[this.at++] = (v % 128) | 128;
      v = Math.floor(v / 128);
    }
    this.buffer[this.at++] = v;
  }
  integer(v: bigint): void {
    if (v >= 0n && v < BigInt(TWO_53)) return this.varint(Number(v) * 2);
    this.room(9);
    this.buffer[this.at++] = v < 0n ? 3 : 1;
    this.buffer.writeBigUInt64LE(BigInt.asUintN(64, v), this.at);
    this.at += 8;
  }
  bytes(b: Uint8Array, length: number): void {
    if (b.length !== length) throw new Error(`snapshot: expected ${length} bytes`);
    this.room(length);
    this.buffer.set(b, this.at);
    this.at += length;
  }
  text(s: string): void {
    if (s.length > 255) throw new Error("snapshot: text too long");
    this.room(1 + s.length);
    this.buffer[this.at++] = s.length;
    this.at += this.buffer.write(s, this.at, "latin1");
  }
  utf8(s: string): void {
    const length = Buffer.byteLength(s, "utf8");
    this.varint(length);
    this.room(length);
    this.at += this.buffer.write(s, this.at, "utf8");
  }
  done(): Uint8Array {
    return new Uint8Array(this.buffer.buffer, this.buffer.byteOffset, this.at).slice();
  }
}

class ByteReader {
  private readonly buffer: Buffer;
  at = 0;
  constructor(data: Uint8Array) {
    this.buffer = Buffer.from(data.buffer, data.byteOffset, data.byteLength);
  }
  private need(n: number): void {
    if (this.at + n > this.buffer.length) throw new Error("snapshot chunk: truncated");
  }
  u8(): number {
    this.need(1);
    return this.buffer[this.at++] as number;
  }
  u32(): number {
    this.need(4);
    const b = this.buffer;
    const at = this.at;
    this.at += 4;
    return ((b[at] as number) | ((b[at + 1] as number) << 8) | ((b[at + 2] as number) << 16) | ((b[at + 3] as number) << 24)) >>> 0;
  }
  varint(): number {
    let v = 0;
    let scale = 1;
    for (;;) {
      const byte = this.u8();
      v += (byte & 127) * scale;
      if (byte < 128) return v;
      scale *= 128;
      if (scale > TWO_53 * 2) throw new Error("snapshot chunk: varint too long");
    }
  }
  /** A double when exact (as indexed-agent.ts keeps it), else the bigint. */
  integer(): number | bigint {
    this.need(1);
    const marker = this.buffer[this.at];
    if (marker === 1 || marker === 3) {
      this.at++;
      this.need(8);
      const v = this.buffer.readBigUInt64LE(this.at);
      this.at += 8;
      const value = marker === 3 ? BigInt.asIntN(64, v) : v;
      const asNumber = Number(value);
      return Number.isSafeInteger(asNumber) ? asNumber : value;
    }
    return this.varint() / 2;
  }
  /** SECURITY: kept packed (packed-key.ts); text that does not pack would come back different. */
  address(): Address {
    const length = this.u8();
    if (length === 0 || length > 44) throw new Error("snapshot chunk: not an address");
    this.need(length);
    for (let i = this.at; i < this.at + length; i++) {
      const b = this.buffer[i] as number;
      if (b === 0 || b > 127) throw new Error("snapshot chunk: not an address");
    }
    const s = this.buffer.toString("latin1", this.at, this.at + length);
    this.at += length;
    return s as Address;
  }
  /**
   * An address's text packed into `words` from `at` (packed-key.ts: seven words of seven 7-bit
   * characters, zeros past the end), read from its bytes; its text too when `text`, else "".
   */
  addressPacked(words: Float64Array, at: number, text: boolean): Address {
    const length = this.u8();
    if (length === 0 || length > 44) throw new Error("snapshot chunk: not an address");
    this.need(length);
    const buffer = this.buffer;
    const start = this.at;
    for (let w = 0; w < 7; w++) {
      let word = 0;
      for (let i = w * 7; i < w * 7 + 7; i++) {
        let code = 0;
        if (i < length) {
          code = buffer[start + i] as number;
          // SECURITY: as address(): only what packs and comes back as the same text.
          if (code === 0 || code > 127) throw new Error("snapshot chunk: not an address");
        }
        word = word * 128 + code;
      }
      words[at + w] = word;
    }
    this.at += length;
    return (text ? buffer.toString("latin1", start, start + length) : "") as Address;
  }
  bytes(length: number): Uint8Array {
    this.need(length);
    const out = new Uint8Array(length);
    out.set(this.buffer.subarray(this.at, this.at + length));
    this.at += length;
    return out;
  }
  utf8(): string {
    const length = this.varint();
    this.need(length);
    const s = this.buffer.toString("utf8", this.at, this.at + length);
    this.at += length;
    return s;
  }
}
