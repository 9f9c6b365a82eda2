import type { ReadonlyUint8Array } from "@solana/kit";
import type { AgentRecord } from "../../domain/registry/agent-catalog.ts";
import { toHex } from "../../domain/registry/borsh-codecs.ts";
import type { CategoryCatalog } from "../../domain/registry/categories.ts";
import type { FeedbackRecord } from "../../domain/registry/feedback-selection.ts";
import { reputationOf } from "../../domain/registry/reputation.ts";
import type { ServiceRecord } from "../../domain/registry/service-selection.ts";
import type { AgentDetailView, AgentView, FeedbackView, ServiceView } from "./registry-models.ts";

/** The system program address, which the program stores as "no payment token". */
const DEFAULT_PUBKEY = "11111111111111111111111111111111";

/** Turns read-model records into JSON views. u64 counters become numbers; amounts stay strings. */
export type AgentPresenter = Readonly<{
  agent(record: AgentRecord): AgentView;
  detail(record: AgentRecord, services: readonly ServiceRecord[]): AgentDetailView;
  feedback(record: FeedbackRecord): FeedbackView;
  service(record: ServiceRecord): ServiceView;
}>;

export function createAgentPresenter(categories: CategoryCatalog): AgentPresenter {
  const tagName = (tag: ReadonlyUint8Array): string => {
    const hex = toHex(tag);
    return categories.nameOf(hex) ?? hex;
  };
  const optionalTagName = (tag: ReadonlyUint8Array): string | null => (tag.every((b) => b === 0) ? null : tagName(tag));

  // Records are immutable and live as long as the read model keeps them, so each is presented
  // once: a page of 100 agents then costs a lookup per agent, not a re-render.
  const presented = new WeakMap<AgentRecord, AgentView>();
  function agent(record: AgentRecord): AgentView {
    let view = presented.get(record);
    if (!view) {
      view = present(record);
      presented.set(record, view);
    }
    return view;
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
      ...agent(record),
      address: record.address,
      ownerVersion: Number(identity.ownerVersion),
      feedbackAuthority: identity.feedbackAuthority,
      metadataHash: toHex(identity.metadataHash),
      tags: identity.tags.map(tagName),
      delegationCount: Number(identity.delegationCount),
      createdAt: Number(identity.createdAt),
      updatedAt: Number(identity.updatedAt),
      services: services.map(service),
    };
  }

  function feedback({ address, entry }: FeedbackRecord): FeedbackView {
    return {
      address,
      reviewer: entry.reviewer,
      score: entry.score,
      tag1: optionalTagName(entry.tag1),
      tag2: optionalTagName(entry.tag2),
      authVerified: entry.authVerified,
      hasPaymentProof: entry.hasPaymentProof,
      paymentAmount: entry.paymentAmount.toString(),
      paymentToken: entry.hasPaymentProof && entry.paymentToken !== DEFAULT_PUBKEY ? entry.paymentToken : null,
      revoked: entry.revoked,
      createdAt: Number(entry.createdAt),
    };
  }

  return Object.freeze({ agent, detail, feedback, service });
}
