/**
 * Our registry read API against the x84 SDK's registry client types (tests/interop/x84-sdk-types.ts,
 * transcribed from x84protocol/sdk `src/api/types.ts` @ 661a5d16). Two checks:
 *
 * - compile time: our wire models (registry-models.ts) must be assignable to the SDK's types, so
 *   `tsc` fails when a field the SDK reads is missing or has another type;
 * - run time: the real registry app (buildService: embedded litesvm ledger seeded through its
 *   `surfnet_setAccount` cheat code, PGlite, the agent index, the routes) answers the requests the
 *   SDK's `X84ApiClient` sends, and every field of every response has the JSON type the SDK
 *   declares (a shape table whose own type is derived from the SDK's types, so it cannot skip a
 *   field), so `bun test` fails when a field's type drifts.
 *
 * Extra fields (`revoked`, the detail's `createdAt`/`updatedAt`) are allowed: the SDK ignores them.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Address } from "@solana/kit";
import { encodeAgentIdentity } from "../../src/domain/registry/agent-identity.ts";
import { encodeAgentService } from "../../src/domain/registry/agent-service.ts";
import { categoryHash } from "../../src/domain/registry/categories.ts";
import { encodeFeedbackEntry } from "../../src/domain/registry/feedback-entry.ts";
import { findAgentPda, findFeedbackPda, findServicePda } from "../../src/domain/registry/pdas.ts";
import type { AgentDetailView, AgentListView, CategoryView, FeedbackView, ServiceView } from "../../src/http/registry/registry-models.ts";
import { createLedgerRpcHandler } from "@x84/embedded-ledger";
import { agentIdentity, agentService, feedbackEntry, hashBytes, padded, PROGRAM_ID, testAddress } from "../registry/support/registry-fixtures.ts";
import { type TestService, startService } from "../settlement/support/service-harness.ts";
import type * as Sdk from "./x84-sdk-types.ts";

// ── Compile time: our wire models fit the SDK's types ──

export const ourModelsFitTheSdk = {
  agents: (view: AgentListView): Sdk.PaginatedResponse<Sdk.AgentListItem> => view,
  agent: (view: AgentDetailView): Sdk.AgentDetail => view,
  services: (view: ServiceView[]): Sdk.AgentService[] => view,
  feedback: (view: FeedbackView[]): Sdk.FeedbackEntry[] => view,
  categories: (view: CategoryView[]): Sdk.Category[] => view,
};

// ── Run time: a shape table per SDK type, typed from the SDK type itself ──

type Spec<V> = [V] extends [string]
  ? "string"
  : [V] extends [number]
    ? "number"
    : [V] extends [boolean]
      ? "boolean"
      : [V] extends [readonly (infer E)[]]
        ? readonly ["array", Spec<E>]
        : [V] extends [object]
          ? Shape<V>
          : never;
type Field<V> = undefined extends V ? { readonly $optional: Spec<Exclude<V, undefined>> } : null extends V ? { readonly $nullable: Spec<Exclude<V, null>> } : Spec<V>;
/** Every key of T, required (`-?`): leaving a field of the SDK type out of the table does not compile. */
type Shape<T> = { readonly [K in keyof T]-?: Field<T[K]> };

const REPUTATION: Shape<Sdk.ReputationSummary> = {
  verifiedCount: "number",
  verifiedAvgScore: "number",
  unverifiedCount: "number",
  unverifiedAvgScore: "number",
  validationCount: "number",
};
const AGENT_LIST_ITEM: Shape<Sdk.AgentListItem> = {
  nftMint: "string",
  owner: "string",
  metadataUri: { $optional: "string" },
  categories: { $optional: ["array", "string"] },
  active: "boolean",
  reputation: REPUTATION,
};
const AGENT_SERVICE: Shape<Sdk.AgentService> = {
  address: "string",
  serviceType: "string",
  endpoint: { $optional: "string" },
  version: { $optional: "string" },
  active: "boolean",
};
const AGENT_DETAIL: Shape<Sdk.AgentDetail> = {
  ...AGENT_LIST_ITEM,
  address: "string",
  ownerVersion: "number",
  feedbackAuthority: "string",
  metadataHash: { $optional: "string" },
  tags: { $optional: ["array", "string"] },
  delegationCount: "number",
  services: ["array", AGENT_SERVICE],
};
const FEEDBACK_ENTRY: Shape<Sdk.FeedbackEntry> = {
  address: "string",
  reviewer: "string",
  score: "number",
  detailUri: "string",
  tag1: "string",
  tag2: "string",
  authVerified: "boolean",
  hasPaymentProof: "boolean",
  paymentAmount: "number",
  paymentToken: "string",
  createdAt: { $optional: "string" },
};
const CATEGORY: Shape<Sdk.Category> = { name: "string", hash: "string" };
const AGENT_PAGE: Shape<Sdk.PaginatedResponse<Sdk.AgentListItem>> = {
  data: ["array", AGENT_LIST_ITEM],
  cursor: { next: { $nullable: "string" }, hasMore: "boolean" },
};

type AnySpec = string | readonly unknown[] | Readonly<Record<string, unknown>>;

/** Every place where `value` does not have the JSON type `spec` asks for. Optional SDK fields must be present too: this API always sends them. */
function mismatches(value: unknown, spec: AnySpec, path: string, out: string[]): string[] {
  if (typeof spec === "string") {
    const ok = spec === "number" ? typeof value === "number" && Number.isFinite(value) : typeof value === spec;
    if (!ok) out.push(`${path}: expected ${spec}, got ${JSON.stringify(value)}`);
  } else if (Array.isArray(spec)) {
    if (!Array.isArray(value)) out.push(`${path}: expected an array, got ${JSON.stringify(value)}`);
    else value.forEach((item, i) => mismatches(item, spec[1] as AnySpec, `${path}[${i}]`, out));
  } else if ("$optional" in spec) {
    if (value === undefined) out.push(`${path}: absent (optional in the SDK, but always sent by this API)`);
    else mismatches(value, spec["$optional"] as AnySpec, path, out);
  } else if ("$nullable" in spec) {
    if (value !== null) mismatches(value, spec["$nullable"] as AnySpec, path, out);
  } else if (typeof value !== "object" || value === null || Array.isArray(value)) {
    out.push(`${path}: expected an object, got ${JSON.stringify(value)}`);
  } else {
    for (const [key, field] of Object.entries(spec)) mismatches((value as Record<string, unknown>)[key], field as AnySpec, `${path}.${key}`, out);
  }
  return out;
}

/** The parsed body as the SDK type, after checking every field's runtime type against it. */
function asSdk<T>(body: unknown, shape: Shape<T>, what: string): T {
  expect({ what, mismatches: mismatches(body, shape, what, []) }).toEqual({ what, mismatches: [] });
  return body as T;
}

/** The same for an array of the SDK type. */
function asSdkList<T>(body: unknown, item: Shape<T>, what: string): T[] {
  expect({ what, mismatches: mismatches(body, ["array", item], what, []) }).toEqual({ what, mismatches: [] });
  return body as T[];
}

// ── The registry app, seeded through the embedded ledger's cheat code ──

const USDC = "4zMMC9srt5Ri5X14GAgXhaHii3GnPAEERYPJgZJDncDU" as Address;
const agent = agentIdentity(77, { tags: [hashBytes("defi"), hashBytes("not-a-category")], verifiedFeedbackCount: 1n, verifiedScoreSum: 90n, unverifiedFeedbackCount: 1n, unverifiedScoreSum: 40n });
const paid = feedbackEntry(agent.nftMint, 0, { score: 90, tag1: hashBytes("defi"), tag2: new Uint8Array(32), hasPaymentProof: true, paymentAmount: 2_500_000n, paymentToken: USDC });
const unpaid = feedbackEntry(agent.nftMint, 1, { score: 40, tag1: hashBytes("speed"), tag2: hashBytes("trading") });

let service: TestService;
let rpcId = 0;

async function setAccount(address: Address, data: Uint8Array): Promise<void> {
  const rpc = createLedgerRpcHandler(service.embeddedLedger ?? failNoLedger());
  const body = { jsonrpc: "2.0", id: ++rpcId, method: "surfnet_setAccount", params: [address, { lamports: 5_000_000, owner: PROGRAM_ID, data: Buffer.from(data).toString("hex") }] };
  const response = await rpc(new Request("http://ledger.test/", { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) }));
  const answer = (await response.json()) as { error?: unknown };
  if (answer.error) throw new Error(`surfnet_setAccount failed: ${JSON.stringify(answer.error)}`);
}

function failNoLedger(): never {
  throw new Error("the service was built without the embedded ledger");
}

/** What `X84ApiClient.request` does: GET with `Accept: application/json`, then `res.json()`. */
async function sdkGet(path: string): Promise<unknown> {
  const response = await service.registryApp.handle(new Request(`http://registry.test${path}`, { headers: { Accept: "application/json" } }));
  expect({ path, status: response.status }).toEqual({ path, status: 200 });
  return response.json();
}

beforeAll(async () => {
  service = await startService();
  const [agentPda] = await findAgentPda(PROGRAM_ID, agent.nftMint);
  await setAccount(agentPda, padded(encodeAgentIdentity(agent), 600));
  for (const entry of [paid, unpaid]) {
    const [pda] = await findFeedbackPda(PROGRAM_ID, entry.nftMint, entry.reviewer, entry.createdAt);
    await setAccount(pda, encodeFeedbackEntry(entry));
  }
  for (const type of ["mcp", "a2a"] as const) {
    const [pda] = await findServicePda(PROGRAM_ID, agent.nftMint, type);
    await setAccount(pda, padded(encodeAgentService(agentService(agent.nftMint, type)), 300));
  }
  await service.registryIndex.caughtUp(); // the index has the writes above
}, 30_000);
afterAll(() => service?.dispose());

describe("registry responses typed as the x84 SDK's registry client (x84protocol/sdk src/api/types.ts @ 661a5d16)", () => {
  test("listAgents(): PaginatedResponse<AgentListItem>", async () => {
    const page = asSdk<Sdk.PaginatedResponse<Sdk.AgentListItem>>(await sdkGet("/agents?limit=100"), AGENT_PAGE, "listAgents");
    const item = page.data.find((a) => a.nftMint === agent.nftMint);
    expect(item).toEqual({
      nftMint: agent.nftMint,
      owner: agent.owner,
      metadataUri: agent.metadataUri,
      categories: ["defi", categoryHash("not-a-category")],
      active: true,
      reputation: { verifiedCount: 1, verifiedAvgScore: 90, unverifiedCount: 1, unverifiedAvgScore: 40, validationCount: 0 },
    });
    expect(page.cursor.hasMore).toBe(page.cursor.next !== null);
  });

  test("getAgent(id): AgentDetail with its services", async () => {
    const detail = asSdk<Sdk.AgentDetail>(await sdkGet(`/agents/${agent.nftMint}`), AGENT_DETAIL, "getAgent");
    expect(detail.address).toBe((await findAgentPda(PROGRAM_ID, agent.nftMint))[0]);
    expect(detail.tags).toEqual(["defi", categoryHash("not-a-category")]);
    expect(detail.services.map((s) => s.serviceType).sort()).toEqual(["a2a", "mcp"]);
    const extra = detail as Sdk.AgentDetail & { createdAt?: unknown; updatedAt?: unknown };
    expect([extra.createdAt, extra.updatedAt]).toEqual([new Date(Number(agent.createdAt) * 1000).toISOString(), new Date(Number(agent.updatedAt) * 1000).toISOString()]);
  });

  test("getAgentServices(id): AgentService[] at the SDK's service PDAs", async () => {
    const services = asSdkList<Sdk.AgentService>(await sdkGet(`/agents/${agent.nftMint}/services`), AGENT_SERVICE, "getAgentServices");
    for (const svc of services) {
      expect(svc.address).toBe((await findServicePda(PROGRAM_ID, agent.nftMint, svc.serviceType as "mcp" | "a2a"))[0]);
    }
    expect(services.length).toBe(2);
  });

  test("getAgentFeedback(id) and getAgentFeedback(id, {verified: true}): FeedbackEntry[]", async () => {
    const all = asSdkList<Sdk.FeedbackEntry>(await sdkGet(`/agents/${agent.nftMint}/feedback`), FEEDBACK_ENTRY, "getAgentFeedback");
    expect(all.length).toBe(2);
    const verified = asSdkList<Sdk.FeedbackEntry>(await sdkGet(`/agents/${agent.nftMint}/feedback?verified=true`), FEEDBACK_ENTRY, "getAgentFeedback verified");
    expect(verified).toEqual([
      {
        address: (await findFeedbackPda(PROGRAM_ID, paid.nftMint, paid.reviewer, paid.createdAt))[0],
        reviewer: paid.reviewer,
        score: 90,
        // The embedded ledger has no give_feedback transactions to read it from.
        detailUri: "",
        tag1: "defi",
        tag2: "",
        authVerified: paid.authVerified,
        hasPaymentProof: true,
        paymentAmount: 2_500_000,
        paymentToken: USDC,
        createdAt: new Date(Number(paid.createdAt) * 1000).toISOString(),
        revoked: false,
      } as Sdk.FeedbackEntry,
    ]);
    const other = all.find((f) => f.reviewer === unpaid.reviewer);
    expect(other).toMatchObject({ tag1: categoryHash("speed"), tag2: "trading", hasPaymentProof: false, paymentAmount: 0, paymentToken: "" });
  });

  test("listCategories(): Category[]", async () => {
    const categories = asSdkList<Sdk.Category>(await sdkGet("/agents/categories"), CATEGORY, "listCategories");
    expect(categories.find((c) => c.name === "defi")).toEqual({ name: "defi", hash: categoryHash("defi") });
  });

  test("the shape check itself notices drift: a string amount, a null tag, a missing detailUri", () => {
    const drifted = { address: "a", reviewer: "r", score: 1, tag1: null, tag2: "", authVerified: true, hasPaymentProof: true, paymentAmount: "2500000", paymentToken: "", createdAt: 1_700_000_000 };
    expect(mismatches(drifted, FEEDBACK_ENTRY, "feedback", [])).toEqual([
      "feedback.detailUri: expected string, got undefined",
      "feedback.tag1: expected string, got null",
      'feedback.paymentAmount: expected number, got "2500000"',
      "feedback.createdAt: expected string, got 1700000000",
    ]);
  });
});
