import { existsSync } from "node:fs";
import { resolve } from "node:path";

export const ROOT = resolve(import.meta.dir, "../../..");
/** The binary the `deno` npm package (devDependency) installs. */
export const DENO = resolve(ROOT, "node_modules/.bin/deno");

/**
 * Whether the tests that need the real deno binary run. Without it they are skipped with the
 * reason printed, and fail instead under CI=true, like the PostgreSQL and Redis gates.
 */
export function denoGate(area: string): Readonly<{ run: boolean; failInCi: string | null }> {
  if (existsSync(DENO)) return { run: true, failInCi: null };
  const missing = `no deno binary at node_modules/.bin/deno (npm ci installs it with the deno devDependency)`;
  if (process.env["CI"] === "true" || process.env["CI"] === "1") return { run: false, failInCi: `${missing}; CI requires it.` };
  console.warn(`[${area}] SKIPPING the Deno tests: ${missing}. They fail instead when CI=true.`);
  return { run: false, failInCi: null };
}

/** The environment a deno child needs: no update check, no colours in its messages. */
export function denoEnv(extra: Record<string, string>): Record<string, string> {
  return {
    PATH: process.env["PATH"] ?? "",
    HOME: process.env["HOME"] ?? "",
    DENO_NO_UPDATE_CHECK: "1",
    NO_COLOR: "1",
    ...extra,
  };
}
