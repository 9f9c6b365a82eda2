import type { CatalogueLocator, DiscoveryDeclaration } from "../../domain/discovery/catalogue-entry.ts";

/**
 * What a /verify or /settle body declares for the Bazaar catalogue: nothing, a declaration that
 * failed the Bazaar validators (with why), one left unchecked, or a valid one.
 */
export type DeclarationReading =
  | Readonly<{ kind: "absent" }>
  | Readonly<{ kind: "invalid"; reason: string }>
  /** Not checked: the validator's queue was full (counted, never recorded). */
  | Readonly<{ kind: "dropped" }>
  | Readonly<{ kind: "valid"; declaration: DiscoveryDeclaration }>;

/** Reads the bazaar extension of a /verify or /settle request body (unchecked JSON). */
export type DeclarationReader = Readonly<{
  /** The declaration, validated in full (the schema check costs tens of ms of CPU, off the event loop: only after a settlement). */
  read(body: unknown): Promise<DeclarationReading>;
  /** Which entry the body names, without validating the declaration (cheap: for a /verify refresh); null when none. */
  locate(body: unknown): CatalogueLocator | null;
}>;
