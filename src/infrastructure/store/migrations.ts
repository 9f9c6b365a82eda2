/**
 * The one schema, shared by PostgreSQL and PGlite, as an ordered list of migrations.
 * Append only: a released migration is never edited, because databases already at that
 * version would never see the change. Each runs inside the migration transaction.
 */
export type Migration = Readonly<{ version: number; name: string; sql: string }>;

const CREATE_SETTLEMENTS = `
CREATE TABLE settlements (
  key                     text PRIMARY KEY,
  -- Insertion order, so "oldest first" is total even when two rows share a timestamp.
  seq                     bigint GENERATED ALWAYS AS IDENTITY UNIQUE,
  payment_id              text,
  payer                   text NOT NULL,
  pay_to                  text NOT NULL,
  asset                   text NOT NULL,
  -- numeric(20,0) holds every u64 token amount exactly; read back as text, never a float.
  amount                  numeric(20,0) NOT NULL CHECK (amount >= 0),
  network                 text NOT NULL,
  mode                    text NOT NULL CHECK (mode IN ('standard', 'atomic', 'attestation', 'delegated')),
  signature               text NOT NULL,
  wire_transaction        text,
  last_valid_block_height bigint CHECK (last_valid_block_height >= 0),
  state                   text NOT NULL DEFAULT 'pending'
                          CHECK (state IN ('pending', 'submitted', 'settled', 'failed')),
  error                   text,
  attempts                integer NOT NULL DEFAULT 1 CHECK (attempts >= 1),
  created_at              timestamptz NOT NULL DEFAULT now(),
  updated_at              timestamptz NOT NULL DEFAULT now()
);
-- One settlement per paymentId, whatever its transaction: the second claim conflicts.
CREATE UNIQUE INDEX settlements_payment_id_key ON settlements (payment_id) WHERE payment_id IS NOT NULL;
CREATE INDEX settlements_signature_idx ON settlements (signature);
CREATE INDEX settlements_created_at_idx ON settlements (created_at);
-- Crash recovery scans only the few unresolved rows, oldest first.
CREATE INDEX settlements_unresolved_idx ON settlements (created_at, seq)
  WHERE state IN ('pending', 'submitted');
`;

/** Users and their single-use sign-in challenges (Sign-In With Solana, docs/auth.md). */
const CREATE_AUTH_TABLES = `
CREATE TABLE users (
  address         text PRIMARY KEY,
  created_at      timestamptz NOT NULL DEFAULT now(),
  last_sign_in_at timestamptz
);
CREATE TABLE auth_nonces (
  nonce      text PRIMARY KEY,
  address    text NOT NULL,
  message    text NOT NULL,
  expires_at timestamptz NOT NULL,
  used_at    timestamptz
);
CREATE INDEX auth_nonces_expires_at_idx ON auth_nonces (expires_at);
`;

/** Delegated payments charged to an on-chain Delegation, for its spending budget. */
const ADD_SETTLEMENT_DELEGATION = `
ALTER TABLE settlements ADD COLUMN delegation text;
CREATE INDEX settlements_delegation_idx ON settlements (delegation) WHERE delegation IS NOT NULL;
`;

/**
 * SECURITY: a paymentId is unique per payer, not globally: with one global namespace, anyone who
 * learned a pending id could claim it first with their own transaction and block the real payment.
 */
const SCOPE_PAYMENT_ID_TO_PAYER = `
DROP INDEX settlements_payment_id_key;
CREATE UNIQUE INDEX settlements_payer_payment_id_key ON settlements (payer, payment_id) WHERE payment_id IS NOT NULL;
`;

/** Lamports our fee payers spent per scope (a payer, a fee payer) and time window, shared by replicas. */
const CREATE_FEE_BUDGET_WINDOWS = `
CREATE TABLE fee_budget_windows (
  scope     text NOT NULL,
  window_id bigint NOT NULL,
  spent     numeric(20,0) NOT NULL,
  PRIMARY KEY (scope, window_id)
);
CREATE INDEX fee_budget_windows_window_idx ON fee_budget_windows (window_id);
`;

/**
 * The `detail_uri` of each feedback entry, read once from the give_feedback transaction that created
 * it (the account does not store it, and it never changes), so it is fetched from the RPC only once.
 */
const CREATE_FEEDBACK_DETAIL_URIS = `
CREATE TABLE feedback_detail_uris (
  address    text PRIMARY KEY,
  detail_uri text NOT NULL,
  signature  text NOT NULL,
  fetched_at timestamptz NOT NULL DEFAULT now()
);
`;

/**
 * What each settlement attempt charged to the fee budgets (JSON: payer, feePayer, lamports as a
 * string, window), so recovery can give the charge back when the transaction never landed.
 */
const ADD_SETTLEMENT_FEE_CHARGE = `
ALTER TABLE settlements ADD COLUMN fee_charge text;
`;

/**
 * Two environments may share one database, so each reconciler reads only its own network's
 * records (docs/settlement.md): the open-record index leads with the network, and a second one
 * serves the re-check of records that failed recently, which the ledger may still show landed.
 */
const INDEX_SETTLEMENTS_BY_NETWORK = `
DROP INDEX settlements_unresolved_idx;
CREATE INDEX settlements_unresolved_idx ON settlements (network, created_at, seq)
  WHERE state IN ('pending', 'submitted');
CREATE INDEX settlements_recently_failed_idx ON settlements (network, updated_at) WHERE state = 'failed';
`;

/**
 * The registry index's accounts (the bytes each account's fields took) and, per kind, when a full
 * read of the ledger was last saved to the end, so a restart serves from here and only catches up.
 * Rows carry the slot they are from: a replica never overwrites a later state with an earlier one.
 */
const CREATE_REGISTRY_ACCOUNTS = `
CREATE TABLE registry_accounts (
  program text NOT NULL,
  kind    text NOT NULL CHECK (kind IN ('agents', 'feedback', 'services')),
  address text NOT NULL,
  slot    bigint NOT NULL CHECK (slot >= 0),
  data    bytea NOT NULL,
  PRIMARY KEY (program, kind, address)
);
CREATE TABLE registry_index_state (
  program     text NOT NULL,
  kind        text NOT NULL,
  complete_at timestamptz NOT NULL,
  PRIMARY KEY (program, kind)
);
`;

/**
 * What GET /settlements answers (docs/settlement.md#status-lookups): which API key submitted a
 * record (its name, never the key; null without one), the slot it landed in, when each transition
 * happened and whether the payment was presented again after it settled. Written by the statements
 * that already change the record (claim, finish, settle-landed), so no settlement pays a new round
 * trip; the pending mark and the replay mark are written only when those happen. A lookup by
 * paymentId alone (any payer) gets its own index: the per-payer unique index leads with the payer.
 */
const ADD_SETTLEMENT_STATUS = `
ALTER TABLE settlements
  ADD COLUMN api_key      text,
  ADD COLUMN slot         bigint CHECK (slot >= 0),
  ADD COLUMN submitted_at timestamptz,
  ADD COLUMN pending_at   timestamptz,
  ADD COLUMN finished_at  timestamptz,
  ADD COLUMN corrected_at timestamptz,
  ADD COLUMN replayed_at  timestamptz,
  ADD COLUMN replays      integer NOT NULL DEFAULT 0 CHECK (replays >= 0);
CREATE INDEX settlements_payment_id_idx ON settlements (payment_id) WHERE payment_id IS NOT NULL;
`;

/**
 * The webhook outbox (docs/settlement.md#webhooks): one row per event and subscribed webhook,
 * inserted by the very statement that changes the record, so an event exists exactly when its
 * change committed. `record` is the record as that statement left it (JSON of the settlement
 * columns), so a retry sends the same body. Delivery leases a row by moving next_attempt_at past
 * the lease: a replica that dies mid-delivery leaves a row the others take up once the lease ends,
 * under the same id (the webhook-id).
 */
const CREATE_WEBHOOK_OUTBOX = `
CREATE TABLE webhook_outbox (
  id              bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  webhook         text NOT NULL,
  settlement_key  text NOT NULL,
  event_type      text NOT NULL,
  record          text NOT NULL,
  created_at      timestamptz NOT NULL DEFAULT now(),
  next_attempt_at timestamptz NOT NULL DEFAULT now(),
  attempts        integer NOT NULL DEFAULT 0 CHECK (attempts >= 0),
  last_error      text,
  delivered_at    timestamptz,
  given_up_at     timestamptz
);
-- The worker's scan: undelivered rows only, in id order.
CREATE INDEX webhook_outbox_due_idx ON webhook_outbox (webhook, next_attempt_at, id)
  WHERE delivered_at IS NULL AND given_up_at IS NULL;
-- Order per settlement: is an earlier event of this settlement still undelivered to this webhook?
CREATE INDEX webhook_outbox_order_idx ON webhook_outbox (webhook, settlement_key, id)
  WHERE delivered_at IS NULL AND given_up_at IS NULL;
`;

/**
 * The Bazaar discovery catalogue (docs/discovery.md): one row per declared resource and payTo,
 * written only after a settlement through this facilitator, shared by replicas. `declaration`
 * is the JSON the list answers (bounded in size before it is written); `expires_at` drops entries
 * no payment refreshed. The settlements index serves "payments settled to an owner" (registry
 * `payments`, `settledHere`) without a scan.
 */
const CREATE_DISCOVERY_RESOURCES = `
CREATE TABLE discovery_resources (
  key               text PRIMARY KEY,
  resource          text NOT NULL,
  type              text NOT NULL,
  pay_to            text NOT NULL,
  network           text NOT NULL,
  scheme            text NOT NULL,
  extension_keys    text NOT NULL DEFAULT '',
  search_text       text NOT NULL DEFAULT '',
  declaration       text NOT NULL,
  first_settled_at  timestamptz NOT NULL,
  last_settled_at   timestamptz NOT NULL,
  updated_at        timestamptz NOT NULL,
  expires_at        timestamptz NOT NULL
);
CREATE INDEX discovery_resources_pay_to_idx ON discovery_resources (pay_to);
CREATE INDEX discovery_resources_listing_idx ON discovery_resources (updated_at DESC, key);
CREATE INDEX discovery_resources_expires_idx ON discovery_resources (expires_at);
CREATE INDEX settlements_settled_pay_to_idx ON settlements (pay_to, network, updated_at) WHERE state = 'settled';
`;

/**
 * Which feedback was paid through this facilitator (docs/registry.md#settled-here): a receipt-mode
 * settlement keeps the PaymentReceipt it was proven by (written by the claim statement itself, so
 * settling costs no extra round trip), and a feedback entry keeps the receipt its give_feedback
 * consumed, read with its detail URI. `payment_receipt_read` tells "no receipt" (NULL, read) from a
 * row saved before receipts were read, which the reader reads again once.
 */
const ADD_PAYMENT_RECEIPTS = `
ALTER TABLE settlements ADD COLUMN receipt text;
CREATE INDEX settlements_receipt_idx ON settlements (receipt) WHERE receipt IS NOT NULL;
ALTER TABLE feedback_detail_uris
  ADD COLUMN payment_receipt      text,
  ADD COLUMN payment_receipt_read boolean NOT NULL DEFAULT false;
`;

/**
 * A snapshot of the built agent index, per program and kind, written by the elected writer: the
 * decoded agents in list order, in chunks of a few thousand (a compact binary layout, see
 * agent-snapshot-codec.ts), so a restart reads a few hundred blobs instead of a million rows and
 * decodes no account. `generation` names the chunks of one snapshot: the new one's chunks go in
 * first, then the head row points at them in one statement (never back to a lower slot), then the
 * old chunks go. `taken_at` is the database's clock before the index was walked; registry_accounts
 * rows now carry when their bytes last changed (`saved_at`), so a restart applies the accounts
 * saved since the snapshot over it (rows written again unchanged keep their time).
 */
const CREATE_REGISTRY_SNAPSHOTS = `
CREATE TABLE registry_snapshots (
  program    text NOT NULL,
  kind       text NOT NULL,
  generation bigint NOT NULL,
  slot       bigint NOT NULL CHECK (slot >= 0),
  chunks     integer NOT NULL CHECK (chunks >= 0),
  taken_at   timestamptz NOT NULL,
  PRIMARY KEY (program, kind)
);
CREATE TABLE registry_snapshot_chunks (
  program    text NOT NULL,
  kind       text NOT NULL,
  generation bigint NOT NULL,
  chunk      integer NOT NULL,
  data       bytea NOT NULL,
  PRIMARY KEY (program, kind, generation, chunk)
);
ALTER TABLE registry_accounts ADD COLUMN saved_at timestamptz NOT NULL DEFAULT '-infinity';
CREATE INDEX registry_accounts_saved_idx ON registry_accounts (program, kind, saved_at);
`;

/**
 * Accounts closed (their registry_accounts row deleted), with when: a restart that serves the
 * snapshot drops the agents closed after it was taken before it serves them, instead of until the
 * first full read. Rows older than a kind's snapshot (or, for a kind without one, than the newest
 * snapshot written) go when a snapshot is committed.
 */
const CREATE_REGISTRY_ACCOUNT_CLOSURES = `
CREATE TABLE registry_account_closures (
  program   text NOT NULL,
  kind      text NOT NULL,
  address   text NOT NULL,
  slot      bigint NOT NULL CHECK (slot >= 0),
  closed_at timestamptz NOT NULL,
  PRIMARY KEY (program, kind, address)
);
CREATE INDEX registry_account_closures_closed_idx ON registry_account_closures (program, kind, closed_at);
`;

export const MIGRATIONS: readonly Migration[] = Object.freeze([
  Object.freeze({ version: 1, name: "settlements", sql: CREATE_SETTLEMENTS }),
  Object.freeze({ version: 2, name: "users_and_auth_nonces", sql: CREATE_AUTH_TABLES }),
  Object.freeze({ version: 3, name: "settlement_delegation", sql: ADD_SETTLEMENT_DELEGATION }),
  Object.freeze({ version: 4, name: "payment_id_per_payer", sql: SCOPE_PAYMENT_ID_TO_PAYER }),
  Object.freeze({ version: 5, name: "fee_budget_windows", sql: CREATE_FEE_BUDGET_WINDOWS }),
  Object.freeze({ version: 6, name: "feedback_detail_uris", sql: CREATE_FEEDBACK_DETAIL_URIS }),
  Object.freeze({ version: 7, name: "settlement_fee_charge", sql: ADD_SETTLEMENT_FEE_CHARGE }),
  Object.freeze({ version: 8, name: "settlements_by_network", sql: INDEX_SETTLEMENTS_BY_NETWORK }),
  // 8 is taken by another branch (settlements_by_network); 9 keeps both mergeable in any order.
  Object.freeze({ version: 9, name: "registry_accounts", sql: CREATE_REGISTRY_ACCOUNTS }),
  Object.freeze({ version: 10, name: "settlement_status", sql: ADD_SETTLEMENT_STATUS }),
  Object.freeze({ version: 11, name: "webhook_outbox", sql: CREATE_WEBHOOK_OUTBOX }),
  Object.freeze({ version: 12, name: "discovery_resources", sql: CREATE_DISCOVERY_RESOURCES }),
  Object.freeze({ version: 13, name: "payment_receipts", sql: ADD_PAYMENT_RECEIPTS }),
  // 14 is reserved for another branch; a gap is harmless (applied versions are looked up one by one).
  Object.freeze({ version: 15, name: "registry_snapshots", sql: CREATE_REGISTRY_SNAPSHOTS }),
  Object.freeze({ version: 16, name: "registry_account_closures", sql: CREATE_REGISTRY_ACCOUNT_CLOSURES }),
]);

/** The schema version a fully migrated database reports. */
export const LATEST_SCHEMA_VERSION: number = MIGRATIONS.reduce((latest, m) => Math.max(latest, m.version), 0);
