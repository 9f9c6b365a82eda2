import { MODE_NAMES, type ModeName, type SettlementMode } from "../../domain/settlement/settlement-mode.ts";
import type { ModePolicy } from "./mode-policy.ts";
import { atomicModePolicy } from "./modes/atomic-mode-policy.ts";
import { attestationModePolicy } from "./modes/attestation-mode-policy.ts";
import { delegatedModePolicy } from "./modes/delegated-mode-policy.ts";
import type { ExtensionModePolicy } from "./modes/extension-mode.ts";
import { standardModePolicy } from "./standard-mode-policy.ts";

/**
 * Every settlement mode, standard included, one policy each. Typed by the closed list of mode
 * names, so a name without a policy (or a policy without a name) does not compile. Adding a mode:
 * see docs/settlement-modes.md, "Adding a mode".
 */
export const MODE_POLICIES: Readonly<Record<SettlementMode, ModePolicy>> = Object.freeze({
  standard: standardModePolicy,
  atomic: atomicModePolicy,
  attestation: attestationModePolicy,
  delegated: delegatedModePolicy,
});

/** The modes named in `extensions.mode`, with their checks' full result (the mode tests read it). */
export const EXTENSION_MODE_POLICIES: Readonly<Record<ModeName, ExtensionModePolicy>> = Object.freeze({
  atomic: atomicModePolicy,
  attestation: attestationModePolicy,
  delegated: delegatedModePolicy,
});

/**
 * Extension identifiers advertised in /supported: every alias of every extension mode, family by
 * family in the order each policy lists them (the spec's `svc-*`, then the x84 docs' `x84-*`,
 * which x84's own client looks for), each family in the order of MODE_NAMES.
 */
export const MODE_EXTENSION_IDS: readonly string[] = Object.freeze(aliasFamilies());

function aliasFamilies(): string[] {
  const aliases = MODE_NAMES.map((name) => MODE_POLICIES[name].aliases);
  const families = Math.max(...aliases.map((list) => list.length));
  return Array.from({ length: families }, (_, family) => aliases.flatMap((list) => list[family] ?? [])).flat();
}

const BY_ALIAS: ReadonlyMap<string, ModeName> = new Map(MODE_NAMES.flatMap((name) => MODE_POLICIES[name].aliases.map((alias) => [alias, name] as const)));

/**
 * The spec's mode name for an alias (the extension id advertised in /supported, the x84 docs'
 * id); any other value is returned as is, for the mode checks to judge. Everything downstream
 * of the HTTP normalisation sees only the spec's names.
 */
export function canonicalModeName(value: unknown): unknown {
  return typeof value === "string" ? (BY_ALIAS.get(value) ?? value) : value;
}
