import { answerWithin } from "./answer-within.ts";

export type CheckStatus = "ok" | "degraded" | "down";
export type HealthCheck = Readonly<{ status: CheckStatus; detail?: string }>;
/** A probe answers for one dependency; it may throw, which counts as `down`. */
export type HealthProbe = () => Promise<HealthCheck>;

export type CheckName = "ledger" | "store" | "signer" | "counters";

/**
 * The probes of one interface. `readiness` names the checks whose `down` takes the interface out
 * of rotation (GET /health/ready); absent means all of them. Each role chooses its own list — see
 * FACILITATOR_READINESS and REGISTRY_READINESS — because a dependency one role cannot serve
 * without is only a feature switch for the other. `counters` is there only when the shared window
 * counters have a store of their own (Redis); in the database they are the `store` check.
 *
 * `failuresBeforeDown` (READINESS_FAILURE_THRESHOLD, default 1 here) is how many consecutive
 * probes of a check must fail before readiness reports it down: a short stall of a dependency
 * every replica shares must not take every replica out of rotation at once.
 */
export type HealthProbes = Readonly<{
  ledger: HealthProbe;
  store: HealthProbe;
  signer: HealthProbe;
  counters?: HealthProbe;
  readiness?: readonly CheckName[];
  failuresBeforeDown?: number;
}>;

export type HealthReport = Readonly<{
  status: CheckStatus;
  version: string;
  checks: Readonly<{ ledger: HealthCheck; store: HealthCheck; signer: HealthCheck; counters?: HealthCheck }>;
}>;

/** GET /health/ready: the worst of the checks this interface needs, and only those checks. */
export type ReadinessReport = Readonly<{
  status: CheckStatus;
  version: string;
  checks: Readonly<Partial<Record<CheckName, HealthCheck>>>;
}>;

/** Deadline of every probe; a Kubernetes probe's timeoutSeconds must be longer (tests/deploy checks it). */
export const PROBE_TIMEOUT_MS = 2000;

const CHECK_NAMES: readonly CheckName[] = Object.freeze(["ledger", "store", "signer", "counters"]);

/**
 * The facilitator cannot verify without the ledger, cannot settle exactly once without the store,
 * and cannot settle without a working signer or the fee budget's counters (the budget fails
 * closed). Its probes report `degraded`, not `down`, for what it survives: no fee-payer key
 * (verify still works), some signers unhealthy, a low balance.
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
export const REGISTRY_READINESS: readonly CheckName[] = Object.freeze(["ledger", "counters"]);

const SEVERITY: Readonly<Record<CheckStatus, number>> = { ok: 0, degraded: 1, down: 2 };

/**
 * Runs every probe concurrently with a deadline, so one hung dependency cannot hang the
 * orchestrator's probe. The overall status is the worst of the checks.
 */
export async function checkHealth(probes: HealthProbes, version: string, timeoutMs = PROBE_TIMEOUT_MS): Promise<HealthReport> {
  const [ledger, store, signer, counters] = await Promise.all([
    runProbe(probes.ledger, timeoutMs),
    runProbe(probes.store, timeoutMs),
    runProbe(probes.signer, timeoutMs),
    probes.counters ? runProbe(probes.counters, timeoutMs) : null,
  ]);
  const checks = { ledger, store, signer, ...(counters ? { counters } : {}) };
  return { status: worstOf(Object.values(checks)), version, checks };
}

/**
 * Runs only the probes this interface needs (`probes.readiness`, all by default), with the same
 * deadline; `down` means the interface should receive no traffic. Stateless: each call judges one
 * round of probes (see createReadinessCheck for the consecutive-failure rule). The process itself
 * being alive is GET /health/live, which runs no probe.
 */
export async function checkReadiness(probes: HealthProbes, version: string, timeoutMs = PROBE_TIMEOUT_MS): Promise<ReadinessReport> {
  const results = await Promise.all(readinessProbes(probes).map(async ([name, probe]) => [name, await runProbe(probe, timeoutMs)] as const));
  return { status: worstOf(results.map(([, check]) => check)), version, checks: Object.fromEntries(results) };
}

/**
 * GET /health/ready with memory: a check is reported `down` only once its probe has failed
 * `probes.failuresBeforeDown` times in a row; until then it is `degraded`, its detail saying how
 * many failures in a row it has had (readiness stays 200, the pod keeps its traffic and keeps
 * answering x402 requests itself). One success clears the count. Concurrent calls share one round
 * of probes, so a second prober cannot make a check reach the threshold faster.
 */
export function createReadinessCheck(probes: HealthProbes, version: string, timeoutMs = PROBE_TIMEOUT_MS): () => Promise<ReadinessReport> {
  const threshold = Math.max(1, probes.failuresBeforeDown ?? 1);
  const failuresInARow = new Map<CheckName, number>();
  let round: Promise<ReadinessReport> | null = null;

  async function runRound(): Promise<ReadinessReport> {
    const raw = await checkReadiness(probes, version, timeoutMs);
    const checks = Object.fromEntries(
      Object.entries(raw.checks).map(([name, check]) => [name, tolerated(name as CheckName, check)] as const),
    ) as ReadinessReport["checks"];
    return { status: worstOf(Object.values(checks)), version, checks };
  }

  function tolerated(name: CheckName, check: HealthCheck): HealthCheck {
    if (check.status !== "down") {
      failuresInARow.delete(name);
      return check;
    }
    const failures = (failuresInARow.get(name) ?? 0) + 1;
    failuresInARow.set(name, failures);
    if (failures >= threshold) return check;
    const why = check.detail ?? "probe failed";
    return { status: "degraded", detail: `${why} (failed ${failures} time${failures === 1 ? "" : "s"} in a row; down after ${threshold})` };
  }

  return () => {
    round ??= runRound().finally(() => {
      round = null;
    });
    return round;
  };
}

function readinessProbes(probes: HealthProbes): (readonly [CheckName, HealthProbe])[] {
  const names = probes.readiness ?? CHECK_NAMES;
  return names.flatMap((name) => {
    const probe = probes[name];
    return probe ? [[name, probe] as const] : [];
  });
}

function worstOf(checks: readonly HealthCheck[]): CheckStatus {
  return checks.reduce<CheckStatus>((acc, c) => (SEVERITY[c.status] > SEVERITY[acc] ? c.status : acc), "ok");
}

async function runProbe(probe: HealthProbe, timeoutMs: number): Promise<HealthCheck> {
  try {
    return await answerWithin(probe(), timeoutMs, (): HealthCheck => ({ status: "down", detail: `no answer within ${timeoutMs} ms` }));
  } catch (error) {
    return { status: "down", detail: error instanceof Error ? error.message : "probe failed" };
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
