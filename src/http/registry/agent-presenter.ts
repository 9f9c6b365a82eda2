import type { ReadonlyUint8Array } from "@solana/kit";
import type { AgentRecord } from "../../domain/registry/agent-record.ts";
import { toHex } from "../../domain/registry/borsh-codecs.ts";
import type { CategoryCatalog } from "../../domain/registry/categories.ts";
import type { FeedbackRecord } from "../../domain/registry/feedback-selection.ts";
import { reputationOf } from "../../domain/registry/reputation.ts";
import { unixSecondsToIso } from "../../domain/registry/timestamps.ts";
import type { ServiceRecord } from "../../domain/registry/service-selection.ts";
import { checkedAgentJson } from "./agent-list-body.ts";
import type { AgentDetailView, AgentView, FeedbackView, ServiceView } from "./registry-models.ts";

/** How many presented agents' JSON the presenter keeps: a few thousand pages' worth of the hottest. */
const PRESENTED_KEPT = 4_096;

/** The all-zero (default) pubkey, which the program stores as "no payment token". */
const DEFAULT_PUBKEY = "11111111111111111111111111111111";

/**
 * Turns read-model records into JSON views typed as the x84 SDK's registry client expects
 * (`src/api/types.ts`): u64 counters and amounts become numbers (exact up to 2^53), timestamps
 * ISO-8601 strings, absent tags, tokens and detail URIs the empty string.
 */
export type AgentPresenter = Readonly<{
  /** The agent's list view as JSON text (agent-list-body.ts), made and checked once per record. */
  agentJson(record: AgentRecord): string;
  detail(record: AgentRecord, services: readonly ServiceRecord[]): AgentDetailView;
  feedback(record: FeedbackRecord): FeedbackView;
  service(record: ServiceRecord): ServiceView;
}>;

export function createAgentPresenter(categories: CategoryCatalog): AgentPresenter {
  const tagName = (tag: ReadonlyUint8Array): string => {
    const hex = toHex(tag);
    return categories.nameOf(hex) ?? hex;
  };
  const optionalTagName = (tag: ReadonlyUint8Array): string => (tag.every((b) => b === 0) ? "" : tagName(tag));

  // Records are immutable, so each is presented and checked once, as its JSON text, while it is
  // among the latest PRESENTED_KEPT presented: pages that are read again and again (the first
  // pages, the newest agents) cost a lookup per agent. Not a WeakMap: every collection, young ones
  // included, goes through a WeakMap's entries, and once a crawler had walked every page the
  // presenter's WeakMap held one per agent (at 100,000 agents an eden collection took ~5 ms instead
  // of ~0.5 ms). A plain map of bounded size costs the collector nothing of the kind; the oldest
  // entry goes first (a Map iterates in insertion order).
  const presented = new Map<AgentRecord, string>();
  function agentJson(record: AgentRecord): string {
    let json = presented.get(record);
    if (json === undefined) {
      json = checkedAgentJson(present(record));
      if (presented.size >= PRESENTED_KEPT) presented.delete(presented.keys().next().value as AgentRecord);
      presented.set(record, json);
    }
    return json;
  }

  function present({ identity }: AgentRecord): AgentView {
    return {
      nftMint: identity.nftMint,
      owner: identity.owner,
      metadataUri: identity.metadataUri,
      categories: identity.tags.map(tagName),
      active: identity.active,
      reputation: reputationOf(identity),
    };
  }

  function service({ address, service }: ServiceRecord): ServiceView {
    return { address, serviceType: service.serviceType, endpoint: service.endpoint, version: service.version, active: service.active };
  }

  function detail(record: AgentRecord, services: readonly ServiceRecord[]): AgentDetailView {
    const { identity } = record;
    return {
      ...present(record),
      address: record.address,
      ownerVersion: Number(identity.ownerVersion),
      feedbackAuthority: identity.feedbackAuthority,
      metadataHash: toHex(identity.metadataHash),
      tags: identity.tags.map(tagName),
      delegationCount: Number(identity.delegationCount),
      createdAt: unixSecondsToIso(identity.createdAt),
      updatedAt: unixSecondsToIso(identity.updatedAt),
      services: services.map(service),
    };
  }

  function feedback({ address, entry, detailUri }: FeedbackRecord): FeedbackView {
    return {
      address,
      reviewer: entry.reviewer,
      score: entry.score,
      detailUri: detailUri ?? "",
      tag1: optionalTagName(entry.tag1),
      tag2: optionalTagName(entry.tag2),
      authVerified: entry.authVerified,
      hasPaymentProof: entry.hasPaymentProof,
      paymentAmount: Number(entry.paymentAmount),
      paymentToken: entry.hasPaymentProof && entry.paymentToken !== DEFAULT_PUBKEY ? entry.paymentToken : "",
      revoked: entry.revoked,
      createdAt: unixSecondsToIso(entry.createdAt),
    };
  }

  return Object.freeze({ agentJson, detail, feedback, service });
}
