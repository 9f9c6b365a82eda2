import type { DiscoveryDeclaration } from "../../domain/discovery/catalogue-entry.ts";

/**
 * What a /verify or /settle body declares for the Bazaar catalogue: nothing, a declaration that
 * failed the Bazaar validators (with why), or a valid one.
 */
export type DeclarationReading =
  | Readonly<{ kind: "absent" }>
  | Readonly<{ kind: "invalid"; reason: string }>
  | Readonly<{ kind: "valid"; declaration: DiscoveryDeclaration }>;

/** Reads the bazaar extension of a /verify or /settle request body (unchecked JSON). */
export type DeclarationReader = (body: unknown) => DeclarationReading;
