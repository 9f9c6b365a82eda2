/**
 * POST /agents/register as the registry app mounts it (error layer + register routes, through
 * `app.handle`) over the real embedded ledger, with a config authority that records every message
 * it is asked to sign: a test can prove a refusal came before any signature. The metadata document
 * comes from a hand-written fetcher standing in for the public network.
 */
import { createHash } from "node:crypto";
import { type Address, generateKeyPairSigner, signBytes } from "@solana/kit";
import { Elysia } from "elysia";
import { systemClock } from "../../../src/application/ports/clock.ts";
import { silentLogger } from "../../../src/application/ports/logger.ts";
import type { Signer } from "../../../src/application/ports/signer.ts";
import { createProtocolConfigSource } from "../../../src/application/registry/protocol-config-source.ts";
import type { RegisterAgentDeps } from "../../../src/application/registry/register-agent.ts";
import { DEFAULT_CATEGORY_NAMES, createCategoryCatalog } from "../../../src/domain/registry/categories.ts";
import { findConfigPda } from "../../../src/domain/registry/pdas.ts";
import { encodeProtocolConfig } from "../../../src/domain/registry/protocol-config.ts";
import { APP_CONFIG } from "../../../src/http/app-config.ts";
import { errorLayer } from "../../../src/http/error-layer.ts";
import { registerRoutes } from "../../../src/http/registry/register-routes.ts";
import { type LocalLedger, createLocalLedger } from "../../../src/infrastructure/ledger/local-ledger.ts";

export const RIG_PROGRAM_ID = "X84XXXZsWXpanM5UzshMKZH4wUbeFNcxPWnFyTBgRP5" as Address;
const DOCUMENT = new TextEncoder().encode(JSON.stringify({ name: "Weather agent" }));

export type Reply = Readonly<{ status: number; body: Record<string, unknown> }>;

export type RegistrationRig = Readonly<{
  ledger: LocalLedger;
  /** What the route hands the use case, for calling `registerAgent` past the HTTP checks. */
  deps: RegisterAgentDeps;
  authority: Address;
  collection: Address;
  feeTreasury: Address;
  /** Messages the config authority has been asked to sign so far. */
  signatureRequests(): number;
  /** URIs the metadata fetcher has been asked for so far. */
  fetches(): number;
  register(body: unknown): Promise<Reply>;
}>;

export async function createRegistrationRig(): Promise<RegistrationRig> {
  const ledger = createLocalLedger();
  const [authorityKey, collection, feeTreasury] = await Promise.all([generateKeyPairSigner(), generateKeyPairSigner(), generateKeyPairSigner()]);
  let signatureRequests = 0;
  let fetches = 0;
  const configAuthority: Signer = {
    address: authorityKey.address,
    kind: "local",
    async signMessages(messages) {
      signatureRequests += messages.length;
      return Promise.all(messages.map((message) => signBytes(authorityKey.keyPair.privateKey, message)));
    },
  };
  const [config, bump] = await findConfigPda(RIG_PROGRAM_ID);
  ledger.setAccount(config, {
    lamports: 5_000_000n,
    owner: RIG_PROGRAM_ID,
    data: encodeProtocolConfig({
      authority: authorityKey.address,
      collection: collection.address,
      registrationFee: 50_000_000n,
      settlementFeeBps: 300,
      feeTreasury: feeTreasury.address,
      facilitator: authorityKey.address,
      pauseIdentity: false,
      pauseReputation: false,
      pauseValidation: false,
      pauseDelegation: false,
      pausePayments: false,
      bump,
    }),
  });
  const deps: RegisterAgentDeps = {
    ledger,
    programId: RIG_PROGRAM_ID,
    configAuthority,
    protocolConfig: createProtocolConfigSource({ ledger, programId: RIG_PROGRAM_ID, clock: systemClock, ttlMs: 0 }),
    fetchMetadata: async () => {
      fetches += 1;
      return { sha256: new Uint8Array(createHash("sha256").update(DOCUMENT).digest()) };
    },
    categories: createCategoryCatalog(DEFAULT_CATEGORY_NAMES),
  };
  const app = new Elysia(APP_CONFIG)
    .use(errorLayer(silentLogger))
    .use(registerRoutes({ registration: deps, rateLimit: { allow: async () => true }, trustForwardedFor: false }));
  return Object.freeze({
    ledger,
    deps,
    authority: authorityKey.address,
    collection: collection.address,
    feeTreasury: feeTreasury.address,
    signatureRequests: () => signatureRequests,
    fetches: () => fetches,
    async register(body: unknown): Promise<Reply> {
      const response = await app.handle(
        new Request("http://registry.test/agents/register", { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) }),
      );
      return { status: response.status, body: (await response.json()) as Record<string, unknown> };
    },
  });
}
