import type { Address } from "@solana/kit";
import type { AgentService, ServiceType } from "./agent-service.ts";
import { newestFirst } from "./feedback-selection.ts";

export type ServiceRecord = Readonly<{ address: Address; service: AgentService }>;

export type ServiceFilter = Readonly<{ serviceType?: ServiceType; active?: boolean }>;

/** Newest first (`createdAt` desc, then address desc). */
export function selectServices(records: readonly ServiceRecord[], filter: ServiceFilter): ServiceRecord[] {
  return records
    .filter(
      ({ service }) =>
        (filter.serviceType === undefined || service.serviceType === filter.serviceType) &&
        (filter.active === undefined || service.active === filter.active),
    )
    .sort(newestFirst((r) => r.service.createdAt));
}
