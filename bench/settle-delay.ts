import { type FaultRule, firstSignature } from "../fixtures/ledger-proxy.ts";

/**
 * Status reads say "not found" until `ms` after the send, like a cluster that takes that long
 * to confirm. The transaction itself executes at once; only its visibility is delayed.
 */
export function delayConfirmation(ms: number): FaultRule {
  const sentAt = new Map<string, number>();
  return async (call, forward) => {
    if (call.method === "sendTransaction") {
      const answer = await forward();
      sentAt.set(firstSignature(call.params[0]), performance.now());
      return answer;
    }
    if (call.method !== "getSignatureStatuses") return forward();
    const answer = (await (await forward()).json()) as { result?: { value: unknown[] } };
    const asked = Array.isArray(call.params[0]) ? (call.params[0] as unknown[]) : [];
    if (answer.result) {
      const now = performance.now();
      answer.result.value = answer.result.value.map((status, i) => {
        const sent = sentAt.get(String(asked[i]));
        return sent === undefined || now - sent < ms ? null : status;
      });
    }
    return Response.json(answer);
  };
}
