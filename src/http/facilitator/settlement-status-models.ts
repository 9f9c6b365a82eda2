import { t } from "elysia";
import { SETTLEMENT_MODES } from "../../domain/settlement/settlement-mode.ts";
import { enumSchema } from "../enum-schema.ts";
import { ERROR_PHRASE } from "../validation-messages.ts";
import { EXAMPLE_ASSET, EXAMPLE_NETWORK, EXAMPLE_PAYER, EXAMPLE_PAY_TO, EXAMPLE_SIGNATURE } from "./examples.ts";

/** Base58 of a 64-byte ed25519 signature is 64 to 88 characters; the route checks it decodes to 64 bytes. */
const SIGNATURE_PATTERN = "^[1-9A-HJ-NP-Za-km-z]{64,88}$";

export const SettlementTransactionParams = t.Object({
  transaction: t.String({
    pattern: SIGNATURE_PATTERN,
    [ERROR_PHRASE]: "must be a base58 transaction signature",
    description: "the settlement's transaction signature (base58), as /settle answered it in `transaction`",
    examples: [EXAMPLE_SIGNATURE],
  }),
});

export const SettlementPaymentIdQuery = t.Object(
  {
    paymentId: t.String({
      pattern: "^[A-Za-z0-9._:-]{1,128}$",
      [ERROR_PHRASE]: 'must be 1 to 128 characters of A-Z, a-z, 0-9, ".", "_", ":" or "-"',
      description: "the paymentId the settlement was made with (extensions.paymentId)",
      examples: ["order-2026-0042"],
    }),
  },
  { additionalProperties: true },
);

const Timestamp = (description: string) => t.Union([t.String({ format: "date-time" }), t.Null()], { description });

const EXAMPLE_VIEW = {
  transaction: EXAMPLE_SIGNATURE,
  state: "confirmed",
  reason: null,
  network: EXAMPLE_NETWORK,
  payer: EXAMPLE_PAYER,
  payTo: EXAMPLE_PAY_TO,
  asset: EXAMPLE_ASSET,
  amount: "10000",
  mode: "standard",
  paymentId: "order-2026-0042",
  slot: "361204557",
  attempts: 1,
  replayed: false,
  corrected: false,
  timestamps: {
    received: "2026-11-27T01:40:00.120Z",
    submitted: "2026-11-27T01:40:00.180Z",
    pending: null,
    confirmed: "2026-11-27T01:40:00.610Z",
    failed: null,
    corrected: null,
    replayed: null,
    updated: "2026-11-27T01:40:00.610Z",
  },
};

export const SettlementViewModel = t.Object(
  {
    transaction: t.String({ description: "the transaction signature (base58)" }),
    state: enumSchema(["received", "submitted", "pending", "confirmed", "failed"] as const, {
      description:
        "received: claimed and co-signed, the send under way; submitted: the ledger acknowledged the send (recorded by earlier releases); pending: a settle answered settlement_pending and confirmation goes on; confirmed; failed (see reason)",
    }),
    reason: t.Union([t.String(), t.Null()], { description: "why it failed; null unless failed" }),
    network: t.String({ description: "CAIP-2 id of the network" }),
    payer: t.String({ description: "payer wallet (base58)" }),
    payTo: t.String({ description: "recipient wallet (base58)" }),
    asset: t.String({ description: "token mint (base58)" }),
    amount: t.String({ description: "base units, as a decimal string" }),
    mode: enumSchema(SETTLEMENT_MODES, { description: "settlement mode" }),
    paymentId: t.Union([t.String(), t.Null()], { description: "the paymentId the payment was settled with, if any" }),
    slot: t.Union([t.String(), t.Null()], { description: "slot the transaction landed in (decimal string), when the ledger reported it" }),
    attempts: t.Integer({ description: "attempts the record took (a failed payment may be settled again)" }),
    replayed: t.Boolean({ description: "the settled payment was presented again (an idempotent replay or a refused duplicate)" }),
    corrected: t.Boolean({ description: "recorded as failed, then found landed on the ledger by the reconciler" }),
    timestamps: t.Object(
      {
        received: t.String({ format: "date-time", description: "when the settlement was claimed" }),
        submitted: Timestamp("when the ledger acknowledged the send (recorded with the next write)"),
        pending: Timestamp("when a settle answered settlement_pending"),
        confirmed: Timestamp("when it was confirmed (for a corrected record: when it was corrected)"),
        failed: Timestamp("when it failed (kept after a correction)"),
        corrected: Timestamp("when the reconciler corrected a failed record to confirmed"),
        replayed: Timestamp("when the settled payment was first presented again"),
        updated: t.String({ format: "date-time", description: "the record's last change" }),
      },
      { additionalProperties: false },
    ),
  },
  {
    title: "Settlement",
    additionalProperties: false,
    description: "a settlement record as GET /settlements answers it and as webhook events carry it in `data`",
    examples: [EXAMPLE_VIEW],
  },
);

export const SettlementListModel = t.Object(
  { settlements: t.Array(SettlementViewModel, { description: "one per payer that used this paymentId, newest first" }) },
  { title: "SettlementList", additionalProperties: false, examples: [{ settlements: [EXAMPLE_VIEW] }] },
);
