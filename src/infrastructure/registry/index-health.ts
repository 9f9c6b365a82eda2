import type { RegistryIndexHealth } from "../../application/ports/agent-index.ts";
import type { AgentCatalog } from "../../domain/registry/agent-catalog.ts";
import type { AccountKind, LiveKind } from "./live-account-kind.ts";

const KINDS = ["agents", "feedback", "services"] as const;

/** What /health says of the index: a failed read of any kind degrades it; still loading does not. */
export function indexHealth(agents: LiveKind<AgentCatalog>, kinds: Readonly<Record<AccountKind, LiveKind<unknown>>>): RegistryIndexHealth {
  const states = KINDS.map((kind) => kinds[kind].state());
  const failing = states.filter((s) => s.lastErrorAt !== null);
  const latest = failing.sort((a, b) => (b.lastErrorAt ?? 0) - (a.lastErrorAt ?? 0))[0];
  const lastSuccessAt = agents.state().lastSuccessAt;
  return {
    // Still loading is not a failure (requests wait for the first load); a failed read is.
    status: failing.length === 0 ? "ok" : "degraded",
    lastRefreshAt: lastSuccessAt === null ? null : new Date(lastSuccessAt).toISOString(),
    lastError: latest ? safeMessage(latest.lastError) : null,
    agentCount: agents.peek()?.size ?? 0,
    feed: states.every((s) => s.live) ? "live" : "polling",
  };
}

/** SECURITY: RPC URLs can embed API keys; error text leaves the process (logs, /health) without them. */
export function safeMessage(error: unknown): string {
  const text = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
  return text.replace(/[a-z][a-z0-9+.-]*:\/\/[^\s"'<>]+/gi, "<url>").slice(0, 300);
}
