import type { Address } from "@solana/kit";
import { CodedError } from "../domain/coded-error.ts";
import type { Clock } from "./ports/clock.ts";
import type { Signer } from "./ports/signer.ts";

export type SignerHealth = Readonly<{
  address: Address;
  kind: Signer["kind"];
  healthy: boolean;
  consecutiveFailures: number;
}>;

export type SignerPoolOptions = Readonly<{
  clock: Clock;
  /** Consecutive failures after which a signer is reported unhealthy. Default 3. */
  failureThreshold?: number;
  /** How long an unhealthy signer is skipped before it gets another chance. Default 30 s. */
  cooldownMs?: number;
}>;

/**
 * Several fee payers behind one object. Every address is advertised; a transaction names
 * the one it uses, so `get`/`sign` go to that signer, while `pickHealthy` serves code that
 * chooses (server-built transactions), preferring healthy signers in round robin.
 * Signers returned by the pool record each outcome, so health follows real traffic.
 */
export type SignerPool = Readonly<{
  addresses: readonly Address[];
  /** The signer for `address`, wrapped to record outcomes, or null if it is not ours. */
  get(address: string): Signer | null;
  /** Signs with the signer for `address`. Throws CodedError SIGNER_UNKNOWN if the address is not ours, or the signer's error. */
  sign(address: string, messages: readonly Uint8Array[]): Promise<readonly Uint8Array[]>;
  /** Next healthy signer in round robin; if none is healthy, the one that failed longest ago. Null when empty. */
  pickHealthy(): Signer | null;
  health(): readonly SignerHealth[];
  /** Closes every signer (HSM sessions, KMS clients). */
  close(): Promise<void>;
}>;

type HealthRecord = { consecutiveFailures: number; lastFailureAt: number };
/** A signer of the pool with its health record; `recording` is the signer handed out, which updates the record. */
type PooledSigner = Readonly<{ signer: Signer; record: HealthRecord; recording: Signer }>;


export function createSignerPool(signers: readonly Signer[], options: SignerPoolOptions): SignerPool {
  const failureThreshold = options.failureThreshold ?? 3;
  const cooldownMs = options.cooldownMs ?? 30_000;
  const { clock } = options;
  assertDistinct(signers);

  const pooled: PooledSigner[] = signers.map((signer) => {
    const record: HealthRecord = { consecutiveFailures: 0, lastFailureAt: 0 };
    return { signer, record, recording: recordingSigner(signer, record) };
  });
  const byAddress = new Map(pooled.map((member) => [member.signer.address as string, member]));
  let cursor = 0;

  function recordingSigner(signer: Signer, record: HealthRecord): Signer {
    return Object.freeze({
      address: signer.address,
      kind: signer.kind,
      signMessages: (messages: readonly Uint8Array[]) => signRecorded(signer, record, messages),
    });
  }

  async function signRecorded(
    signer: Signer,
    record: HealthRecord,
    messages: readonly Uint8Array[],
  ): Promise<readonly Uint8Array[]> {
    let signatures: readonly Uint8Array[];
    try {
      signatures = await signer.signMessages(messages);
    } catch (error) {
      recordFailure(record);
      throw error;
    }
    // A backend answering with the wrong shape is as broken as one that throws.
    if (signatures.length !== messages.length || signatures.some((s) => s.length !== 64)) {
      recordFailure(record);
      throw new Error(`${signer.kind} signer ${signer.address} returned malformed signatures`);
    }
    record.consecutiveFailures = 0;
    return signatures;
  }

  function recordFailure(record: HealthRecord): void {
    record.consecutiveFailures += 1;
    record.lastFailureAt = clock.now();
  }

  /** Below the threshold, or cooled down: a cooled-down signer is tried again and either recovers or re-trips. */
  function isHealthy({ record }: PooledSigner): boolean {
    return record.consecutiveFailures < failureThreshold || clock.now() - record.lastFailureAt >= cooldownMs;
  }

  function pickHealthy(): Signer | null {
    for (let i = 0; i < pooled.length; i++) {
      const member = pooled[(cursor + i) % pooled.length];
      if (member !== undefined && isHealthy(member)) {
        cursor = (cursor + i + 1) % pooled.length;
        return member.recording;
      }
    }
    const oldestFailure = pooled.reduce<PooledSigner | undefined>(
      (best, member) => (best === undefined || member.record.lastFailureAt < best.record.lastFailureAt ? member : best),
      undefined,
    );
    return oldestFailure?.recording ?? null;
  }

  return Object.freeze({
    addresses: Object.freeze(pooled.map((member) => member.signer.address)),
    get: (address: string) => byAddress.get(address)?.recording ?? null,
    async sign(address: string, messages: readonly Uint8Array[]) {
      const member = byAddress.get(address);
      if (member === undefined) throw new CodedError("SIGNER_UNKNOWN", `no signer for address ${address}`);
      return member.recording.signMessages(messages);
    },
    pickHealthy,
    health: () =>
      pooled.map((member) =>
        Object.freeze({
          address: member.signer.address,
          kind: member.signer.kind,
          healthy: isHealthy(member),
          consecutiveFailures: member.record.consecutiveFailures,
        }),
      ),
    async close() {
      await Promise.allSettled(pooled.map((member) => member.signer.close?.()));
    },
  });
}

/**
 * Summary for /health: ok when every signer is healthy, degraded when some are, down
 * when none are (or none is configured).
 */
export function summarizeSignerHealth(health: readonly SignerHealth[]): "ok" | "degraded" | "down" {
  const healthy = health.filter((h) => h.healthy).length;
  if (healthy === 0) return "down";
  return healthy === health.length ? "ok" : "degraded";
}

function assertDistinct(signers: readonly Signer[]): void {
  const seen = new Set<string>();
  for (const signer of signers) {
    // Two entries for one key would double its weight and split its health record.
    if (seen.has(signer.address)) throw new Error(`signer ${signer.address} is configured twice`);
    seen.add(signer.address);
  }
}
