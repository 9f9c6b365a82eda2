import { existsSync } from "node:fs";
import { resolve } from "node:path";
import { type Gate, gateOn } from "../../../fixtures/gate.ts";

export const ROOT = resolve(import.meta.dir, "../../..");
/** The binary the `deno` npm package (devDependency) installs. */
export const DENO = resolve(ROOT, "node_modules/.bin/deno");

/** Whether the tests that need the real deno binary run (see fixtures/gate.ts). */
export function denoGate(area: string): Gate {
  const missing = `no deno binary at node_modules/.bin/deno (npm ci installs it with the deno devDependency)`;
  return gateOn(area, "the Deno tests", existsSync(DENO) ? null : missing);
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
