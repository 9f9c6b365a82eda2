import { describe, expect, test } from "bun:test";
import { Webhook } from "standardwebhooks";
import { parseWebhooks } from "../../../src/infrastructure/webhooks/webhooks-file.ts";

const SECRET = `whsec_${Buffer.alloc(32, 7).toString("base64")}`;
const DEV = { production: false };
const PROD = { production: true };
const entry = (overrides: Record<string, unknown> = {}) => ({ url: "https://shop.example.com/hooks", secret: SECRET, events: ["settlement.confirmed"], ...overrides });
const errorsOf = (value: unknown, rules = DEV, keys: readonly string[] | null = null) => {
  const parsed = parseWebhooks(JSON.stringify(value), rules, keys);
  return parsed.ok ? [] : parsed.errors;
};

describe("WEBHOOKS_FILE", () => {
  test("a valid file gives each webhook a stable id, its events and a signer of its secret", () => {
    const parsed = parseWebhooks(JSON.stringify([entry(), entry({ url: "http://127.0.0.1:8080/x", events: ["settlement.failed", "settlement.corrected"], apiKey: "shop-a" })]), DEV, ["shop-a"]);
    if (!parsed.ok) throw new Error(parsed.errors.join("; "));
    const [first, second] = parsed.webhooks;
    expect(first?.events).toEqual(["settlement.confirmed"]);
    expect(second?.apiKey).toBe("shop-a");
    expect(first?.id).not.toBe(second?.id);
    const again = parseWebhooks(JSON.stringify([entry()]), DEV, null);
    expect(again.ok && again.webhooks[0]?.id).toBe(first?.id);
    // The signer signs as a receiver holding the same secret verifies.
    const signature = first?.signer.sign("msg_1", new Date(), "{}") ?? "";
    expect(new Webhook(SECRET).verify("{}", { "webhook-id": "msg_1", "webhook-timestamp": String(Math.floor(Date.now() / 1000)), "webhook-signature": signature })).toEqual({});
  });

  test("every problem is listed, naming the entry and field, never the secret", () => {
    const errors = errorsOf([
      entry({ secret: "not-a-secret" }),
      entry({ secret: `whsec_${Buffer.alloc(8).toString("base64")}` }),
      entry({ events: [] }),
      entry({ events: ["settlement.settled"] }),
      entry({ url: "ftp://shop.example.com/" }),
      entry({ extra: 1 }),
      "nope",
    ]);
    expect(errors).toEqual([
      "WEBHOOKS_FILE: entry 1: secret must be a Standard Webhooks secret: whsec_ followed by base64",
      "WEBHOOKS_FILE: entry 2: secret must hold 24 to 64 bytes (whsec_ + base64 of random bytes)",
      "WEBHOOKS_FILE: entry 3: events must be a non-empty array of settlement.confirmed, settlement.failed, settlement.pending, settlement.corrected",
      "WEBHOOKS_FILE: entry 4: events must be a non-empty array of settlement.confirmed, settlement.failed, settlement.pending, settlement.corrected",
      "WEBHOOKS_FILE: entry 5: url must be https (http://127.0.0.1 only outside production)",
      'WEBHOOKS_FILE: entry 6: unknown field "extra"',
      "WEBHOOKS_FILE: entry 7 must be an object with url, secret and events",
    ]);
    expect(errors.join(" ")).not.toContain(SECRET.slice(6, 20));
    expect(errorsOf({})).toEqual(["WEBHOOKS_FILE must be a JSON array of webhooks"]);
    expect(parseWebhooks("{", DEV, null)).toEqual({ ok: false, errors: ["WEBHOOKS_FILE is not valid JSON"] });
  });

  test("SECURITY: the metadata fetch's address rules: no loopback, private, link-local or credentialed target; 127.0.0.1 over http outside production only", () => {
    for (const url of [
      "https://127.0.0.1/x",
      "https://10.0.0.5/x",
      "https://169.254.169.254/latest/meta-data",
      "https://[::1]/x",
      "https://localhost/x",
      "https://redis/x",
      "https://2130706433/x",
    ]) {
      expect(errorsOf([entry({ url })])).toEqual(["WEBHOOKS_FILE: entry 1: url is not a public internet address"]);
    }
    expect(errorsOf([entry({ url: "https://user:pw@shop.example.com/" })])).toEqual(["WEBHOOKS_FILE: entry 1: url may not contain credentials"]);
    expect(errorsOf([entry({ url: "https://shop.example.com:8443/" })])).toEqual(["WEBHOOKS_FILE: entry 1: url must use the default https port"]);
    expect(errorsOf([entry({ url: "http://127.0.0.2:8080/" })])).toEqual(["WEBHOOKS_FILE: entry 1: url must be https (http://127.0.0.1 only outside production)"]);
    expect(errorsOf([entry({ url: "http://127.0.0.1:8080/" })], PROD)).toEqual(["WEBHOOKS_FILE: entry 1: url: http://127.0.0.1 receivers are for development only (NODE_ENV=production)"]);
    expect(errorsOf([entry({ url: "http://127.0.0.1:8080/" })], DEV)).toEqual([]);
  });

  test("apiKey must name a configured API key; the same url and key twice is refused", () => {
    expect(errorsOf([entry({ apiKey: "shop-z" })], DEV, ["shop-a"])).toEqual(["WEBHOOKS_FILE: entry 1: apiKey names no key in FACILITATOR_API_KEYS_FILE"]);
    expect(errorsOf([entry({ apiKey: "shop-a" })], DEV, null)).toEqual([
      "WEBHOOKS_FILE: entry 1: apiKey needs FACILITATOR_API_KEYS_FILE (settlements are recorded with a key only when keys are configured)",
    ]);
    expect(errorsOf([entry(), entry()])).toEqual(["WEBHOOKS_FILE: entry 2: the same url is configured twice"]);
    expect(errorsOf([entry({ apiKey: "shop-a" }), entry()], DEV, ["shop-a"])).toEqual([]);
  });
});
