export type CheckStatus = "ok" | "degraded" | "down";
export type HealthCheck = Readonly<{ status: CheckStatus; detail?: string }>;
/** A probe answers for one dependency; it may throw, which counts as `down`. */
export type HealthProbe = () => Promise<HealthCheck>;

export type CheckName = "ledger" | "store" | "signer";

/**
 * The probes of one interface. `readiness` names the checks whose `down` takes the interface out
 * of rotation (GET /health/ready); absent means all three. Each role chooses its own list — see
 * FACILITATOR_READINESS and REGISTRY_READINESS — because a dependency one role cannot serve
 * without is only a feature switch for the other.
 */
export type HealthProbes = Readonly<{ ledger: HealthProbe; store: HealthProbe; signer: HealthProbe; readiness?: readonly CheckName[] }>;

export type HealthReport = Readonly<{
  status: CheckStatus;
  version: string;
  checks: Readonly<{ ledger: HealthCheck; store: HealthCheck; signer: HealthCheck }>;
}>;

/** GET /health/ready: the worst of the checks this interface needs, and only those checks. */
export type ReadinessReport = Readonly<{
  status: CheckStatus;
  version: string;
  checks: Readonly<Partial<Record<CheckName, HealthCheck>>>;
}>;

/** Deadline of every probe; a Kubernetes probe's timeoutSeconds must be longer (tests/deploy checks it). */
export const PROBE_TIMEOUT_MS = 2000;

const CHECK_NAMES: readonly CheckName[] = Object.freeze(["ledger", "store", "signer"]);

/**
 * The facilitator cannot verify without the ledger, cannot settle exactly once without the store,
 * and cannot settle without a working signer. Its probes report `degraded`, not `down`, for what
 * it survives: no fee-payer key (verify still works), some signers unhealthy, a low balance.
 */
export const FACILITATOR_READINESS: readonly CheckName[] = CHECK_NAMES;

/**
 * The registry answers reads from its in-memory index, which keeps serving the last good model
 * when the RPC fails (its probe reports `degraded`, never `down`). The store (sign-in, feedback
 * detail URIs) and the config authority (registration) are features that switch off, not reasons
 * to stop serving reads: making every replica unready at once for a shared dependency would turn
 * a partial outage into a total one. So only a wedged index probe (no answer within the deadline)
 * makes the registry unready.
 */
export const REGISTRY_READINESS: readonly CheckName[] = Object.freeze(["ledger"]);

const SEVERITY: Readonly<Record<CheckStatus, number>> = { ok: 0, degraded: 1, down: 2 };

/**
 * Runs every probe concurrently with a deadline, so one hung dependency cannot hang the
 * orchestrator's probe. The overall status is the worst of the checks.
 */
export async function checkHealth(probes: HealthProbes, version: string, timeoutMs = PROBE_TIMEOUT_MS): Promise<HealthReport> {
  const [ledger, store, signer] = await Promise.all([
    runProbe(probes.ledger, timeoutMs),
    runProbe(probes.store, timeoutMs),
    runProbe(probes.signer, timeoutMs),
  ]);
  return { status: worstOf([ledger, store, signer]), version, checks: { ledger, store, signer } };
}

/**
 * Runs only the probes this interface needs (`probes.readiness`, all three by default), with the
 * same deadline; `down` means the interface should receive no traffic. The process itself being
 * alive is GET /health/live, which runs no probe.
 */
export async function checkReadiness(probes: HealthProbes, version: string, timeoutMs = PROBE_TIMEOUT_MS): Promise<ReadinessReport> {
  const names = probes.readiness ?? CHECK_NAMES;
  const results = await Promise.all(names.map(async (name) => [name, await runProbe(probes[name], timeoutMs)] as const));
  return { status: worstOf(results.map(([, check]) => check)), version, checks: Object.fromEntries(results) };
}

function worstOf(checks: readonly HealthCheck[]): CheckStatus {
  return checks.reduce<CheckStatus>((acc, c) => (SEVERITY[c.status] > SEVERITY[acc] ? c.status : acc), "ok");
}

async function runProbe(probe: HealthProbe, timeoutMs: number): Promise<HealthCheck> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const deadline = new Promise<HealthCheck>((resolve) => {
    timer = setTimeout(() => resolve({ status: "down", detail: `no answer within ${timeoutMs} ms` }), timeoutMs);
  });
  try {
    return await Promise.race([probe(), deadline]);
  } catch (error) {
    return { status: "down", detail: error instanceof Error ? error.message : "probe failed" };
  } finally {
    clearTimeout(timer);
  }
}

/** Turns a ping-style call into a probe: resolves → ok, throws → `failure` with the message. */
export function pingProbe(ping: () => Promise<void>, failure: CheckStatus = "down"): HealthProbe {
  return async () => {
    try {
      await ping();
      return { status: "ok" };
    } catch (error) {
      return { status: failure, detail: error instanceof Error ? error.message : "unreachable" };
    }
  };
}
