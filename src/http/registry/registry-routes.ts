import { Elysia } from "elysia";
import { isBase58Address } from "../../domain/registry/fast-address-codec.ts";
import type { AgentIndex } from "../../application/ports/agent-index.ts";
import { type AgentPayments, pageOfPaidAgents } from "../../application/registry/agent-payments.ts";
import type { PaymentsSummary, SettledReceipt } from "../../application/ports/payment-stats.ts";
import { isCoded } from "../../domain/coded-error.ts";
import { encodeAgentCursor } from "../../domain/registry/agent-cursor.ts";
import type { CategoryCatalog } from "../../domain/registry/categories.ts";
import type { FeedbackRecord } from "../../domain/registry/feedback-selection.ts";
import { errorResponses } from "../error-models.ts";
import { HttpError } from "../http-error.ts";
import { agentListResponse } from "./agent-list-body.ts";
import { createAgentPresenter } from "./agent-presenter.ts";
import { parseAgentListQuery, parseFeedbackQuery, parsePaymentsCursor, parseServicesQuery } from "./query-parsing.ts";
import { pageOfAgentsByPayments } from "../../application/registry/agents-by-payments.ts";
import { answerWithin } from "../../application/answer-within.ts";
import type { AgentPageRequest } from "../../domain/registry/agent-catalog.ts";
import { encodePaymentsCursor, type PaymentsCursor } from "../../domain/registry/payments-order.ts";
import {
  AgentDetailView,
  AgentIdParams,
  AgentListQuery,
  AgentListView,
  CategoryListView,
  FeedbackListView,
  FeedbackQuery,
  type FeedbackView,
  ServiceListView,
  ServicesQuery,
} from "./registry-models.ts";

export type RegistryRoutesDeps = Readonly<{
  index: AgentIndex;
  categories: CategoryCatalog;
  /** Payments settled through this facilitator (detail `payments`, list `minPayments`); absent: neither. */
  payments?: AgentPayments;
}>;

const NOT_FOUND = { 404: { when: "no agent has this nftMint (or it is not a base58 address)", message: "agent not found" } };

/**
 * Read side of the registry interface: GET /agents, /agents/categories, /agents/:id,
 * /agents/:id/feedback, /agents/:id/services. Mount after `errorLayer(logger)`; the registry app
 * mounts `registryCors` before it (reads are open to every origin).
 */
export function registryRoutes(deps: RegistryRoutesDeps) {
  const { index, categories } = deps;
  const present = createAgentPresenter(categories);
  const categoryList = categories.list.map(({ name, hash }) => ({ name, hash }));

  async function listByPayments(request: AgentPageRequest, cursor: PaymentsCursor | undefined, minPayments: number) {
    if (!deps.payments) throw new HttpError(400, ["sort=payments needs the settlement store, which this service has not got"]);
    // parseAgentListQuery leaves `after` (the default order's position) out under sort=payments.
    const counts = await paymentCounts(deps.payments);
    const page = await available(pageOfAgentsByPayments(index, counts, { ...request, minPayments, ...(cursor ? { cursor } : {}) }));
    return agentListResponse(page.items.map(present.agentJson), page.next ? encodePaymentsCursor(page.next) : null);
  }

  return new Elysia({ name: "registry-routes" })
    .get(
      "/agents",
      async ({ query }) => {
        const request = parseAgentListQuery(query, categories);
        const minPayments = query.minPayments === undefined ? 0 : Number(query.minPayments);
        if (query.sort === "payments") return listByPayments(request, parsePaymentsCursor(query), minPayments);
        const page =
          minPayments > 0 && deps.payments
            ? await available(paymentCounts(deps.payments).then((counts) => pageOfPaidAgents(index, request, counts, minPayments)))
            : await available(index.listAgents(request));
        return agentListResponse(page.items.map(present.agentJson), page.nextKey ? encodeAgentCursor(page.nextKey) : null);
      },
      {
        query: AgentListQuery,
        response: { 200: AgentListView, ...errorResponses([400, 500, 503]) },
        detail: {
          operationId: "listAgents",
          tags: ["agents"],
          summary: "Search and list agents, newest update first (or by payments), with cursor pagination",
          description:
            "Sorted by updated_at then nftMint, descending; `sort=payments` lists first the agents whose owner received the most payments settled through this facilitator (counts refreshed every 30 s), then the rest in the default order. Served from an index refreshed every 30 s (REGISTRY_CACHE_TTL_SECONDS). `minPayments` keeps agents whose owner received at least that many payments settled through this facilitator; such a page may hold fewer than `limit` agents while `cursor.hasMore` is true. A cursor is only valid with the `sort` that issued it (else 400).",
        },
      },
    )
    .get("/agents/categories", () => categoryList, {
      response: { 200: CategoryListView, ...errorResponses([500]) },
      detail: { operationId: "listCategories", tags: ["agents"], summary: "Every known category: its name and on-chain tag hash" },
    })
    .get(
      "/agents/:id",
      async ({ params }) => {
        const nftMint = knownId(params.id);
        const agent = await available(index.getAgent(nftMint));
        const services = agent ? await available(index.listServices(nftMint, {})) : null;
        if (!agent || !services) throw agentNotFound();
        const payments = deps.payments ? await deps.payments.summaryFor(agent.identity.owner).catch(() => null) : null;
        // The store not answering leaves `payments` out rather than failing the agent's detail.
        return payments ? { ...present.detail(agent, services), payments: paymentsView(payments) } : present.detail(agent, services);
      },
      {
        params: AgentIdParams,
        response: { 200: AgentDetailView, ...errorResponses([400, 404, 500, 503], NOT_FOUND) },
        detail: {
          operationId: "getAgent",
          tags: ["agents"],
          summary: "One agent: the list fields plus its accounts, tags, times and services",
          description: "`payments`: payments to the agent's owner settled through this facilitator (count, volume per asset, distinct payers, last 30 days, first and last), from its settlement store; absent when the store cannot be read.",
        },
      },
    )
    .get(
      "/agents/:id/feedback",
      async ({ params, query }) => {
        const nftMint = knownId(params.id);
        const filter = parseFeedbackQuery(query);
        const entries = await available(index.listFeedback(nftMint, filter));
        if (!entries) throw agentNotFound();
        const settled = deps.payments ? await receiptsSettledHere(deps.payments, entries) : null;
        return entries.map((entry) => withSettledHere(present.feedback(entry), entry, settled));
      },
      {
        params: AgentIdParams,
        query: FeedbackQuery,
        response: { 200: FeedbackListView, ...errorResponses([400, 404, 500, 503], NOT_FOUND) },
        detail: {
          operationId: "listFeedback",
          tags: ["agents"],
          summary: "An agent's feedback, newest first; revoked entries only with includeRevoked=true",
          description:
            "`settledHere` (beyond the x84 SDK's fields): true when the PaymentReceipt the entry's give_feedback consumed as payment proof is one a settlement through this facilitator confirmed for the entry's paymentToken and paymentAmount; false when that transaction was read and it named no such receipt; absent while it is not read yet, or when the settlement store cannot be read within 250 ms.",
        },
      },
    )
    .get(
      "/agents/:id/services",
      async ({ params, query }) => {
        const nftMint = knownId(params.id);
        const filter = parseServicesQuery(query);
        const services = await available(index.listServices(nftMint, filter));
        if (!services) throw agentNotFound();
        return services.map(present.service);
      },
      {
        params: AgentIdParams,
        query: ServicesQuery,
        response: { 200: ServiceListView, ...errorResponses([400, 404, 500, 503], NOT_FOUND) },
        detail: { operationId: "listServices", tags: ["agents"], summary: "An agent's services (mcp, a2a, api, web), by type and status" },
      },
    );
}

/** How long the feedback list waits for the settlement store before leaving `settledHere` out. */
const SETTLED_HERE_WAIT_MS = 250;

/** Receipts named by `entries` that were settled here; null (unknown) when the store does not answer, or not in time. */
async function receiptsSettledHere(payments: AgentPayments, entries: readonly FeedbackRecord[]): Promise<SettledByReceipt | null> {
  const receipts = entries.flatMap((e) => (e.paymentReceipt ? [e.paymentReceipt] : []));
  if (receipts.length === 0) return new Map();
  // A stalled store must not hold the list: past the wait it is served without `settledHere`.
  return answerWithin(payments.settledReceipts(receipts).catch(() => null), SETTLED_HERE_WAIT_MS, () => null);
}

type SettledByReceipt = ReadonlyMap<string, readonly SettledReceipt[]>;

/**
 * `settledHere` is said only when both the receipt (or its absence) and the store's answer are known.
 * SECURITY: the receipt's address alone is not enough: its PDA comes from the payment id only, so
 * once closed (give_feedback closes it) the same address can hold another payment's receipt. The
 * settlement must also have paid the entry's token and amount (a receipt settlement here records
 * the requirement's asset and amount, which the receipt's token_mint and gross amount must equal;
 * the program copies those into the entry). The payee is not compared: a payment requirement's
 * pay_to is any wallet the agent chose, not necessarily its owner, and the entry does not hold it.
 */
function withSettledHere(view: FeedbackView, entry: FeedbackRecord, settled: SettledByReceipt | null): FeedbackView {
  if (entry.paymentReceipt === undefined || settled === null) return view;
  const receipt = entry.paymentReceipt;
  const { paymentToken, paymentAmount } = entry.entry;
  const here = receipt !== null && (settled.get(receipt) ?? []).some((s) => s.asset === paymentToken && s.amount === paymentAmount.toString());
  return { ...view, settledHere: here };
}

/** The store not answering the counts is a 503 (the filter cannot be applied), not a 500. */
async function paymentCounts(payments: AgentPayments): Promise<ReadonlyMap<string, number>> {
  try {
    return await payments.countsByOwner();
  } catch {
    throw new HttpError(503, "payment counts are unavailable; retry shortly");
  }
}

function paymentsView(summary: PaymentsSummary) {
  return { scope: "settled through this facilitator" as const, ...summary, volume: [...summary.volume], last30Days: { ...summary.last30Days, volume: [...summary.last30Days.volume] } };
}

/** A malformed id cannot name an agent: it is a 404 like an unknown one. */
function knownId(id: string): string {
  if (!isBase58Address(id)) throw agentNotFound();
  return id;
}

function agentNotFound(): HttpError {
  return new HttpError(404, "agent not found");
}

/** Before the first successful load there is nothing to serve: 503, not a generic 500. */
async function available<T>(promise: Promise<T>): Promise<T> {
  try {
    return await promise;
  } catch (error) {
    if (isCoded(error, "REGISTRY_INDEX_UNAVAILABLE")) throw new HttpError(503, "registry index is not available yet; retry shortly");
    throw error;
  }
}
