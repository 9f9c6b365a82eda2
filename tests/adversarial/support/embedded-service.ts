/**
 * The whole service as the adversarial tests attack it (buildService: the embedded litesvm ledger
 * with real SPL Token, PGlite, app.handle): the service, its ledger to fund and inspect, and the
 * development fee payer whose lamports the attacks go after.
 */
import { afterAll, beforeAll } from "bun:test";
import type { Address } from "@solana/kit";
import type { LocalLedger } from "../../../src/infrastructure/ledger/local-ledger.ts";
import { type TestService, startService } from "../../settlement/support/service-harness.ts";

export type EmbeddedService = Readonly<{ service: TestService; ledger: LocalLedger; feePayer: Address }>;

/** Starts the service on the embedded ledger with `env` on top of the test defaults; the caller disposes `service`. */
export async function startEmbeddedService(env: Readonly<Record<string, string>> = {}): Promise<EmbeddedService> {
  const service = await startService(env);
  const ledger = service.embeddedLedger;
  const feePayer = service.feePayers.addresses[0];
  if (!ledger || !feePayer) {
    await service.dispose();
    throw new Error(ledger ? "expected a development fee payer" : "expected the embedded ledger");
  }
  return Object.freeze({ service, ledger, feePayer });
}

/**
 * One service for the enclosing file or describe block: started in beforeAll, disposed in
 * afterAll. Its fields read the running service, so use them inside tests and later hooks.
 */
export function useEmbeddedService(env: Readonly<Record<string, string>> = {}): EmbeddedService {
  let current: EmbeddedService | undefined;
  beforeAll(async () => {
    current = await startEmbeddedService(env);
  }, 30_000);
  afterAll(() => current?.service.dispose());
  const started = (): EmbeddedService => {
    if (!current) throw new Error("the embedded service starts in beforeAll");
    return current;
  };
  return Object.freeze({
    get service() {
      return started().service;
    },
    get ledger() {
      return started().ledger;
    },
    get feePayer() {
      return started().feePayer;
    },
  });
}
