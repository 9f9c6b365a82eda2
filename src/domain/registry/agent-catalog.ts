import type { Address } from "@solana/kit";
import type { AgentIdentity } from "./agent-identity.ts";
import { compareAgentKeys, firstIndexAfter, type AgentKey } from "./agent-order.ts";
import { toHex } from "./borsh-codecs.ts";

/** One indexed agent: its account address (the agent PDA) and the decoded account. */
export type AgentRecord = Readonly<{ address: Address; identity: AgentIdentity }>;

/** List filters, already validated and resolved (category as tag hash hex). */
export type AgentFilter = Readonly<{
  /** Case-insensitive substring of metadataUri. */
  q?: string;
  categoryHash?: string;
  active?: boolean;
  owner?: string;
}>;

export type AgentPageRequest = AgentFilter &
  Readonly<{
    /** Keyset of the last agent of the previous page. */
    after?: AgentKey;
    limit: number;
  }>;

/** `nextKey` is the keyset of the last item when more matching agents follow, else null. */
export type AgentPage = Readonly<{ items: readonly AgentRecord[]; nextKey: AgentKey | null }>;

/** Immutable, pre-sorted, pre-indexed read model of all agents. */
export type AgentCatalog = Readonly<{
  size: number;
  page(request: AgentPageRequest): AgentPage;
  get(nftMint: string): AgentRecord | undefined;
  ownedBy(owner: string): readonly AgentRecord[];
}>;

type Entry = AgentKey &
  Readonly<{
    record: AgentRecord;
    uriLower: string;
    tagHashes: readonly string[];
  }>;

export function buildAgentCatalog(records: readonly AgentRecord[]): AgentCatalog {
  const sorted = uniqueByMint(records).map(toEntry).sort(compareAgentKeys);
  const byMint = new Map(sorted.map((e) => [e.nftMint, e]));
  const byOwner = groupBy(sorted, (e) => [e.record.identity.owner]);
  const byTag = groupBy(sorted, (e) => e.tagHashes);
  const active = sorted.filter((e) => e.record.identity.active);
  const inactive = sorted.filter((e) => !e.record.identity.active);

  // The smallest pre-sorted list that already satisfies one equality filter; the scan checks the rest.
  function candidates(filter: AgentFilter): readonly Entry[] {
    const lists: (readonly Entry[])[] = [sorted];
    if (filter.owner !== undefined) lists.push(byOwner.get(filter.owner) ?? []);
    if (filter.categoryHash !== undefined) lists.push(byTag.get(filter.categoryHash) ?? []);
    if (filter.active !== undefined) lists.push(filter.active ? active : inactive);
    return lists.reduce((a, b) => (b.length < a.length ? b : a));
  }

  function page(request: AgentPageRequest): AgentPage {
    const list = candidates(request);
    const matches = matcher(request);
    const items: AgentRecord[] = [];
    let last: Entry | undefined;
    for (let i = request.after ? firstIndexAfter(list, request.after) : 0; i < list.length; i++) {
      const entry = list[i] as Entry;
      if (!matches(entry)) continue;
      if (items.length === request.limit) {
        return { items, nextKey: last ? keyOf(last) : null };
      }
      items.push(entry.record);
      last = entry;
    }
    return { items, nextKey: null };
  }

  return Object.freeze({
    size: sorted.length,
    page,
    get: (nftMint: string) => byMint.get(nftMint)?.record,
    ownedBy: (owner: string) => (byOwner.get(owner) ?? []).map((e) => e.record),
  });
}

function matcher(filter: AgentFilter): (entry: Entry) => boolean {
  const q = filter.q?.toLowerCase();
  return (entry) =>
    (filter.owner === undefined || entry.record.identity.owner === filter.owner) &&
    (filter.active === undefined || entry.record.identity.active === filter.active) &&
    (filter.categoryHash === undefined || entry.tagHashes.includes(filter.categoryHash)) &&
    (q === undefined || entry.uriLower.includes(q));
}

/** Entries depend only on their record; records of unchanged accounts are reused across refreshes. */
const entries = new WeakMap<AgentRecord, Entry>();

function toEntry(record: AgentRecord): Entry {
  let entry = entries.get(record);
  if (!entry) {
    entry = newEntry(record);
    entries.set(record, entry);
  }
  return entry;
}

function newEntry(record: AgentRecord): Entry {
  return {
    updatedAt: record.identity.updatedAt,
    nftMint: record.identity.nftMint,
    record,
    uriLower: record.identity.metadataUri.toLowerCase(),
    tagHashes: record.identity.tags.map(toHex),
  };
}

function keyOf(entry: Entry): AgentKey {
  return { updatedAt: entry.updatedAt, nftMint: entry.nftMint };
}

/** The program keeps one account per mint; if a ledger ever returns two, the newer one wins. */
function uniqueByMint(records: readonly AgentRecord[]): AgentRecord[] {
  const byMint = new Map<string, AgentRecord>();
  for (const record of records) {
    const seen = byMint.get(record.identity.nftMint);
    if (!seen || record.identity.updatedAt > seen.identity.updatedAt) byMint.set(record.identity.nftMint, record);
  }
  return [...byMint.values()];
}

function groupBy(entries: readonly Entry[], keys: (e: Entry) => readonly string[]): Map<string, Entry[]> {
  const groups = new Map<string, Entry[]>();
  for (const entry of entries) {
    for (const key of new Set(keys(entry))) {
      const group = groups.get(key);
      if (group) group.push(entry);
      else groups.set(key, [entry]);
    }
  }
  return groups;
}
