import type { PaymentRequest } from "../payment/payment-request.ts";

/**
 * The resource a payment is for: `paymentRequirements.resource` when set, else
 * `paymentPayload.resource.url`; null when neither is (then the receipt's resource is not
 * compared). An empty string counts as not set.
 */
export function expectedResourceOf(request: PaymentRequest): string | null {
  const fromRequirements = request.paymentRequirements.resource;
  if (typeof fromRequirements === "string" && fromRequirements !== "") return fromRequirements;
  const fromPayload = request.paymentPayload.resource?.url;
  return typeof fromPayload === "string" && fromPayload !== "" ? fromPayload : null;
}

/** The path of an absolute URL (WHATWG parser: percent-encoded, "/" for none), or null when `text` is not one. */
function pathnameOf(text: string): string | null {
  if (!URL.canParse(text)) return null;
  return new URL(text).pathname;
}

/**
 * Whether the receipt's `resource` names the expected resource: an exact match, or, because
 * x84 receipts hold the endpoint path (e.g. "/a2a"), a receipt path equal to the pathname of an
 * absolute expected URL ("https://agent.example/a2a?x=1" -> "/a2a"; query and host are not
 * part of what the receipt records).
 */
export function receiptResourceMatches(receiptResource: string, expected: string): boolean {
  if (receiptResource === expected) return true;
  if (!receiptResource.startsWith("/")) return false;
  return pathnameOf(expected) === receiptResource;
}
