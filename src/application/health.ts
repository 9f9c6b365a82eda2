export type CheckStatus = "ok" | "degraded" | "down";
export type HealthCheck = Readonly<{ status: CheckStatus; detail?: string }>;
/** A probe answers for one dependency; it may throw, which counts as `down`. */
export type HealthProbe = () => Promise<HealthCheck>;

export type HealthProbes = Readonly<{ ledger: HealthProbe; store: HealthProbe; signer: HealthProbe }>;

export type HealthReport = Readonly<{
  status: CheckStatus;
  version: string;
  checks: Readonly<{ ledger: HealthCheck; store: HealthCheck; signer: HealthCheck }>;
}>;

const SEVERITY: Readonly<Record<CheckStatus, number>> = { ok: 0, degraded: 1, down: 2 };

/**
 * Runs every probe concurrently with a deadline, so one hung dependency cannot hang the
 * orchestrator's probe. The overall status is the worst of the checks.
 */
export async function checkHealth(probes: HealthProbes, version: string, timeoutMs = 2000): Promise<HealthReport> {
  const [ledger, store, signer] = await Promise.all([
    runProbe(probes.ledger, timeoutMs),
    runProbe(probes.store, timeoutMs),
    runProbe(probes.signer, timeoutMs),
  ]);
  const worst = [ledger, store, signer].reduce<CheckStatus>(
    (acc, c) => (SEVERITY[c.status] > SEVERITY[acc] ? c.status : acc),
    "ok",
  );
  return { status: worst, version, checks: { ledger, store, signer } };
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
