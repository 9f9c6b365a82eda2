import type { Address } from "@solana/kit";
import { CodedError } from "../../domain/coded-error.ts";
import { decodeProtocolConfig, type ProtocolConfig } from "../../domain/registry/protocol-config.ts";
import { findConfigPda } from "../../domain/registry/pdas.ts";
import type { Clock } from "../ports/clock.ts";
import type { Ledger } from "../ports/ledger.ts";
import { createRefreshingSnapshot } from "./refreshing-snapshot.ts";

/** What registration reads from the program's singleton config: null when the account is missing. */
export type ProtocolConfigSource = Readonly<{ get(): Promise<ProtocolConfig | null> }>;

/**
 * Thrown when the config could never be read (the ledger is down and nothing is cached). A
 * CodedError PROTOCOL_CONFIG_UNAVAILABLE; the subclass only keeps the name its log lines carry.
 */
export class ProtocolConfigUnavailableError extends CodedError<"PROTOCOL_CONFIG_UNAVAILABLE"> {
  override readonly name = "ProtocolConfigUnavailableError";
  constructor(message: string) {
    super("PROTOCOL_CONFIG_UNAVAILABLE", message);
  }
}

/**
 * The `ProtocolConfig` account (PDA `["config"]`), decoded per the IDL and cached for `ttlMs`:
 * registration needs its collection, fee treasury, authority and pause flag on every request, and
 * they change only by governance. An account that is not owned by the program, or does not decode,
 * counts as missing.
 */
export function createProtocolConfigSource(
  deps: Readonly<{ ledger: Ledger; programId: Address; clock: Clock; ttlMs: number }>,
): ProtocolConfigSource {
  const snapshot = createRefreshingSnapshot<ProtocolConfig | null>({
    clock: deps.clock,
    ttlMs: deps.ttlMs,
    retryMs: 2_000,
    unavailable: (cause) => new ProtocolConfigUnavailableError(cause instanceof Error ? cause.message : "the ledger did not answer"),
    load: async () => {
      const [address] = await findConfigPda(deps.programId);
      const account = await deps.ledger.getAccount(address);
      if (account === null || account.owner !== deps.programId) return null;
      const decoded = decodeProtocolConfig(account.data);
      return decoded.ok ? decoded.value : null;
    },
  });
  return Object.freeze({ get: () => snapshot.get() });
}
