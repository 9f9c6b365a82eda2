import type { Address } from "@solana/kit";
import type { EmbeddedLedger } from "./embedded-ledger.ts";
import { checkAccountConfig, encodeAccount, parseFilters } from "./json-rpc-account-methods.ts";
import { addressParam, configParam, invalidParams, isRpcError, RPC_ERRORS, RpcError, toJson } from "./json-rpc-protocol.ts";
import { silentLogger, type Logger } from "./ports.ts";

/** One WebSocket connection as the listener hands it over. */
export type PubsubPeer = Readonly<{
  send(text: string): void;
  close(code?: number, reason?: string): void;
}>;

/** What the listener calls for a connection's messages and its end. */
export type PubsubSession = Readonly<{
  message(text: string): void;
  closed(): void;
}>;

export type LedgerPubsub = Readonly<{ open(peer: PubsubPeer): PubsubSession }>;

/** Subscriptions one connection may hold; past it programSubscribe is refused. */
export const MAX_SUBSCRIPTIONS_PER_CONNECTION = 64;
/** Largest request message read; a subscribe request is a few hundred bytes. */
export const MAX_PUBSUB_MESSAGE_BYTES = 64 * 1024;

type Id = string | number | null;

const COMMITMENTS = new Set(["processed", "confirmed", "finalized"]);

/**
 * Solana's WebSocket pubsub for the embedded ledger, as a real node speaks it: `programSubscribe`
 * (params: program id, then `{ encoding, filters, commitment, dataSlice }`) answers a subscription
 * id, each write of a matching account is pushed as a `programNotification`
 * (`{ result: { context: { slot }, value: { pubkey, account } }, subscription }`) and
 * `programUnsubscribe` (params: the id) answers true. Every write is final at once on this ledger, so
 * all commitments see the same notices. As on a real node, an account that leaves the program
 * (closed, reassigned) is not notified.
 */
export function createLedgerPubsub(ledger: EmbeddedLedger, options: Readonly<{ logger?: Logger }> = {}): LedgerPubsub {
  const logger = options.logger ?? silentLogger;
  let nextSubscription = 0;

  function open(peer: PubsubPeer): PubsubSession {
    const subscriptions = new Map<number, () => void>();
    let closed = false;

    function reply(id: Id, body: { result: unknown } | { error: RpcError }): void {
      if (closed) return;
      const payload = "result" in body
        ? { jsonrpc: "2.0", result: body.result, id }
        : { jsonrpc: "2.0", error: body.error.data === undefined ? { code: body.error.rpcCode, message: body.error.message } : { code: body.error.rpcCode, message: body.error.message, data: body.error.data }, id };
      peer.send(toJson(payload));
    }

    function programSubscribe(params: readonly unknown[]): number {
      const program: Address = addressParam(params, 0, "program id");
      const config = configParam(params, 1);
      const commitment = config["commitment"];
      if (commitment !== undefined && (typeof commitment !== "string" || !COMMITMENTS.has(commitment))) throw invalidParams("Invalid param: commitment must be processed, confirmed or finalized");
      checkAccountConfig(config);
      const filters = parseFilters(config);
      // SECURITY: each subscription costs a filter pass per write; a connection cannot pile them up.
      if (subscriptions.size >= MAX_SUBSCRIPTIONS_PER_CONNECTION) throw new RpcError(RPC_ERRORS.invalidRequest, `Too many subscriptions on this connection (at most ${MAX_SUBSCRIPTIONS_PER_CONNECTION})`);
      const id = nextSubscription++;
      const unsubscribe = ledger.subscribeProgramAccounts(program, filters, (notice) => {
        if (closed) return;
        peer.send(
          toJson({
            jsonrpc: "2.0",
            method: "programNotification",
            params: { result: { context: { slot: notice.slot }, value: { pubkey: notice.address, account: encodeAccount(notice, config) } }, subscription: id },
          }),
        );
      });
      subscriptions.set(id, unsubscribe);
      return id;
    }

    function programUnsubscribe(params: readonly unknown[]): boolean {
      const id = params[0];
      const unsubscribe = typeof id === "number" ? subscriptions.get(id) : undefined;
      if (unsubscribe === undefined) throw invalidParams("Invalid subscription id.");
      unsubscribe();
      subscriptions.delete(id as number);
      return true;
    }

    const methods: Readonly<Record<string, (params: readonly unknown[]) => unknown>> = { programSubscribe, programUnsubscribe };

    function message(text: string): void {
      if (text.length > MAX_PUBSUB_MESSAGE_BYTES) return reply(null, { error: new RpcError(RPC_ERRORS.invalidRequest, "Request too large") });
      let request: unknown;
      try {
        request = JSON.parse(text);
      } catch {
        return reply(null, { error: new RpcError(RPC_ERRORS.parse, "Parse error") });
      }
      if (typeof request !== "object" || request === null || Array.isArray(request)) return reply(null, { error: new RpcError(RPC_ERRORS.invalidRequest, "Invalid request") });
      const call = request as Record<string, unknown>;
      const rawId = call["id"];
      const id: Id = typeof rawId === "string" || (typeof rawId === "number" && Number.isFinite(rawId)) ? rawId : null;
      const name = call["method"];
      const params = call["params"] ?? [];
      if (call["jsonrpc"] !== "2.0" || typeof name !== "string") return reply(id, { error: new RpcError(RPC_ERRORS.invalidRequest, "Invalid request") });
      const method = Object.hasOwn(methods, name) ? methods[name] : undefined;
      if (!method) return reply(id, { error: new RpcError(RPC_ERRORS.methodNotFound, "Method not found") });
      if (!Array.isArray(params)) return reply(id, { error: invalidParams("Invalid params: expected an array") });
      try {
        reply(id, { result: method(params) });
      } catch (error) {
        if (isRpcError(error)) return reply(id, { error });
        logger.error("ledger pubsub method failed", { method: name, error: error instanceof Error ? error.message : String(error) });
        reply(id, { error: new RpcError(RPC_ERRORS.internal, "Internal error") });
      }
    }

    return Object.freeze({
      message,
      closed() {
        closed = true;
        for (const unsubscribe of subscriptions.values()) unsubscribe();
        subscriptions.clear();
      },
    });
  }

  return Object.freeze({ open });
}
