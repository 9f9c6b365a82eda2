import { test } from "bun:test";

/**
 * Whether the tests that need a real service (PostgreSQL, Redis, SoftHSM2, openssl, deno, ...)
 * run. A missing service skips them with the reason printed; under CI=true it fails them
 * instead, so a CI machine without the service cannot pass by skipping.
 */
export type Gate = Readonly<{ run: boolean; failInCi: string | null }>;

export function inCi(): boolean {
  return process.env["CI"] === "true" || process.env["CI"] === "1";
}

/** `missing` is null when the service is there, else why it is not. `what` names the skipped tests. */
export function gateOn(area: string, what: string, missing: string | null): Gate {
  if (missing === null) return { run: true, failInCi: null };
  if (inCi()) return { run: false, failInCi: `${missing}; CI requires it.` };
  console.warn(`[${area}] SKIPPING ${what}: ${missing}. They fail instead when CI=true.`);
  return { run: false, failInCi: null };
}

/** Registers one failing test named `title` when the gate fails under CI (so the summary counts it). */
export function failWhenRequired(gate: Gate, title: string): void {
  const reason = gate.failInCi;
  if (reason !== null) test(title, () => { throw new Error(reason); });
}
