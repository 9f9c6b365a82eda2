/**
 * Composition of agent registration: the config authority's signer (CONFIG_AUTHORITY_*, the same
 * signer code as the fee payer), the cached ProtocolConfig, the metadata fetcher and the per-address
 * rate limit. With the embedded ledger and no configured key, a development config authority is
 * generated in DATA_DIR and a ProtocolConfig naming it is written to the ledger, so registration
 * builds and signs on a laptop (the x84 program itself runs only when LEDGER_PROGRAMS loads it).
 */
import { join } from "node:path";
import { type Address, generateKeyPairSigner } from "@solana/kit";
import type { Clock } from "../application/ports/clock.ts";
import type { Ledger } from "../application/ports/ledger.ts";
import type { Logger } from "../application/ports/logger.ts";
import type { MetadataFetcher } from "../application/ports/metadata-fetcher.ts";
import type { Signer } from "../application/ports/signer.ts";
import type { WindowCounters } from "../application/ports/window-counters.ts";
import { createRateLimiter, type RateLimiter } from "../application/rate-limit.ts";
import { createProtocolConfigSource } from "../application/registry/protocol-config-source.ts";
import type { RegisterAgentDeps } from "../application/registry/register-agent.ts";
import type { CategoryCatalog } from "../domain/registry/categories.ts";
import { findConfigPda } from "../domain/registry/pdas.ts";
import { encodeProtocolConfig } from "../domain/registry/protocol-config.ts";
import { metadataLoopbackAllowed } from "../infrastructure/config/app-config.ts";
import type { ServiceConfig } from "../infrastructure/config/service-config.ts";
import type { LocalLedger } from "../infrastructure/ledger/local-ledger.ts";
import { createMetadataFetcher } from "../infrastructure/metadata/metadata-fetcher.ts";
import { createSigner, loadOrCreateDevKeypair } from "../infrastructure/signers/index.ts";

/** The registration fee a development ProtocolConfig charges (the program's default, 0.05 SOL). */
const DEV_REGISTRATION_FEE = 50_000_000n;
const DEV_SETTLEMENT_FEE_BPS = 300;

type Env = Readonly<Record<string, string | undefined>>;

export type Registration = Readonly<{
  /** Null when no config authority is configured: POST /agents/register answers 503. */
  deps: RegisterAgentDeps | null;
  rateLimit: RateLimiter;
  configAuthority: Signer | null;
  /** Whether http://127.0.0.1 and http://localhost metadata URIs are accepted (METADATA_ALLOW_LOOPBACK). */
  allowLoopbackMetadata: boolean;
  close(): Promise<void>;
}>;

export type RegistrationInputs = Readonly<{
  config: ServiceConfig;
  /** Where a signer reads a secret its settings name (CONFIG_AUTHORITY_PRIVATE_KEY...), when it is built. */
  env: Env;
  ledger: Ledger;
  embeddedLedger: LocalLedger | null;
  categories: CategoryCatalog;
  counters: WindowCounters;
  clock: Clock;
  logger: Logger;
  /** The facilitator key named in a development ProtocolConfig. */
  facilitator: Address | undefined;
  /** Tests replace the fetcher, which needs the public network. */
  metadataFetcher?: MetadataFetcher;
}>;

export async function createRegistration(inputs: RegistrationInputs): Promise<Registration> {
  const { config, ledger, embeddedLedger, logger } = inputs;
  const programId = config.REGISTRY_PROGRAM_ID as Address;
  const configAuthority = await configAuthoritySigner(inputs);
  if (configAuthority && embeddedLedger) await seedDevProtocolConfig(embeddedLedger, programId, configAuthority.address, inputs.facilitator);
  if (configAuthority) logger.info("config authority ready", { address: configAuthority.address, kind: configAuthority.kind });
  const allowLoopbackHttp = metadataLoopbackAllowed(config);
  if (allowLoopbackHttp) logger.info("registration fetches metadata from http://127.0.0.1 and http://localhost too (METADATA_ALLOW_LOOPBACK)");
  const fetcher = inputs.metadataFetcher ?? createMetadataFetcher({ gatewayUrl: config.IPFS_GATEWAY_URL, timeoutMs: config.METADATA_FETCH_TIMEOUT_MS, allowLoopbackHttp });
  const deps: RegisterAgentDeps | null = configAuthority
    ? Object.freeze({
        ledger,
        programId,
        configAuthority,
        protocolConfig: createProtocolConfigSource({ ledger, programId, clock: inputs.clock, ttlMs: config.REGISTRY_CACHE_TTL_SECONDS * 1000 }),
        fetchMetadata: (uri: string) => fetcher.fetchMetadata(uri),
        categories: inputs.categories,
        ...(config.REGISTRY_COLLECTION ? { collection: config.REGISTRY_COLLECTION as Address } : {}),
        ...(config.REGISTRY_FEE_TREASURY ? { feeTreasury: config.REGISTRY_FEE_TREASURY as Address } : {}),
      })
    : null;
  return Object.freeze({
    deps,
    configAuthority,
    allowLoopbackMetadata: allowLoopbackHttp,
    rateLimit: createRateLimiter(inputs.counters, { limit: config.REGISTER_RATE_LIMIT_PER_MINUTE, windowSeconds: 60 }, inputs.clock),
    close: async () => void (await configAuthority?.close?.()),
  });
}

async function configAuthoritySigner(inputs: RegistrationInputs): Promise<Signer | null> {
  const configured = inputs.config.signers.configAuthority;
  if (configured) return createSigner(configured, { env: inputs.env });
  if (!inputs.embeddedLedger) return null;
  const dev = await loadOrCreateDevKeypair(join(inputs.config.DATA_DIR, "config-authority.json"));
  inputs.logger.info(dev.created ? "generated development config authority" : "using development config authority", { address: dev.signer.address });
  return dev.signer;
}

/** A ProtocolConfig naming the development config authority, unless the ledger already has one. */
async function seedDevProtocolConfig(ledger: LocalLedger, programId: Address, authority: Address, facilitator: Address | undefined): Promise<void> {
  const [address] = await findConfigPda(programId);
  if ((await ledger.getAccount(address)) !== null) return;
  const [collection, treasury] = await Promise.all([generateKeyPairSigner(), generateKeyPairSigner()]);
  const data = encodeProtocolConfig({
    authority,
    collection: collection.address,
    registrationFee: DEV_REGISTRATION_FEE,
    settlementFeeBps: DEV_SETTLEMENT_FEE_BPS,
    feeTreasury: treasury.address,
    facilitator: facilitator ?? authority,
    pauseIdentity: false,
    pauseReputation: false,
    pauseValidation: false,
    pauseDelegation: false,
    pausePayments: false,
    bump: (await findConfigPda(programId))[1],
  });
  ledger.setAccount(address, { lamports: 5_000_000n, owner: programId, data });
}
