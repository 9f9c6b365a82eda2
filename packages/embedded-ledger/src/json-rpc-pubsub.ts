import type { Address } from "@solana/kit";
import { type EmbeddedLedger, FINALITY_SLOTS } from "./embedded-ledger.ts";
import { checkAccountConfig, encodeAccount, parseFilters } from "./json-rpc-account-methods.ts";
import { addressParam, configParam, invalidParams, isRpcError, RPC_ERRORS, RpcError, signatureParam, toJson } from "./json-rpc-protocol.ts";
import { silentLogger, type Logger } from "./ports.ts";
import type { SignatureNotice } from "./signature-subscriptions.ts";
import { MS_PER_SLOT } from "./slot-clock.ts";

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

/** programSubscribe subscriptions one connection may hold; past it programSubscribe is refused. */
export const MAX_SUBSCRIPTIONS_PER_CONNECTION = 64;
/**
 * signatureSubscribe subscriptions one connection may hold at once. Larger than the program cap: a
 * facilitator watches every settlement in flight (a thousand at once in bench/settle.ts), and one
 * costs a map entry, not a filter pass per write. Each ends with its notice.
 */
export const MAX_SIGNATURE_SUBSCRIPTIONS_PER_CONNECTION = 16_384;
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
 *
 * `signatureSubscribe` (params: the signature, then `{ commitment }`) answers a subscription id;
 * when the transaction lands (or at once if it already has) one `signatureNotification`
 * (`{ result: { context: { slot }, value: { err } }, subscription }`, err null when it
 * succeeded) is pushed and the subscription ends, as on a real node. At `finalized` the notice
 * waits until the transaction reads finalized (32 slots). `signatureUnsubscribe` answers true.
 * `enableReceivedNotification` is refused: this ledger has no "received" step to tell.
 */
export function createLedgerPubsub(ledger: EmbeddedLedger, options: Readonly<{ logger?: Logger }> = {}): LedgerPubsub {
  const logger = options.logger ?? silentLogger;
  let nextSubscription = 0;

  function open(peer: PubsubPeer): PubsubSession {
    const subscriptions = new Map<number, () => void>();
    const signatureSubscriptions = new Map<number, () => void>();
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

    function signatureSubscribe(params: readonly unknown[]): number {
      const signature = signatureParam(params[0]);
      const config = configParam(params, 1);
      const commitment = config["commitment"] ?? "finalized";
      if (typeof commitment !== "string" || !COMMITMENTS.has(commitment)) throw invalidParams("Invalid param: commitment must be processed, confirmed or finalized");
      if (config["enableReceivedNotification"] === true) throw invalidParams("Invalid param: enableReceivedNotification is not supported by the embedded ledger");
      // SECURITY: each costs memory until its transaction lands; a connection cannot pile them up.
      if (signatureSubscriptions.size >= MAX_SIGNATURE_SUBSCRIPTIONS_PER_CONNECTION) {
        throw new RpcError(RPC_ERRORS.invalidRequest, `Too many signature subscriptions on this connection (at most ${MAX_SIGNATURE_SUBSCRIPTIONS_PER_CONNECTION})`);
      }
      const id = nextSubscription++;
      let timer: ReturnType<typeof setTimeout> | null = null;
      const notify = (notice: SignatureNotice): void => {
        timer = null;
        if (closed || !signatureSubscriptions.has(id)) return;
        const toFinality = FINALITY_SLOTS - (ledger.getSlot() - notice.slot);
        if (commitment === "finalized" && toFinality > 0n) {
          timer = setTimeout(() => notify(notice), Number(toFinality) * MS_PER_SLOT);
          return;
        }
        signatureSubscriptions.delete(id);
        peer.send(toJson({ jsonrpc: "2.0", method: "signatureNotification", params: { result: { context: { slot: notice.slot }, value: { err: notice.err } }, subscription: id } }));
      };
      const unsubscribe = ledger.subscribeSignature(signature, notify);
      signatureSubscriptions.set(id, () => {
        unsubscribe();
        if (timer !== null) clearTimeout(timer);
      });
      return id;
    }

    function signatureUnsubscribe(params: readonly unknown[]): boolean {
      const id = params[0];
      const stop = typeof id === "number" ? signatureSubscriptions.get(id) : undefined;
      if (stop === undefined) throw invalidParams("Invalid subscription id.");
      stop();
      signatureSubscriptions.delete(id as number);
      return true;
    }

    const methods: Readonly<Record<string, (params: readonly unknown[]) => unknown>> = { programSubscribe, programUnsubscribe, signatureSubscribe, signatureUnsubscribe };

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
        for (const stop of signatureSubscriptions.values()) stop();
        signatureSubscriptions.clear();
      },
    });
  }

  return Object.freeze({ open });
}
