import type { CatalogueEntry, CatalogueLocator, DiscoveryDeclaration } from "../../domain/discovery/catalogue-entry.ts";

/** Filters of GET /discovery/resources and /discovery/search, already checked. */
export type CatalogueFilter = Readonly<{
  type?: string;
  payTo?: string;
  scheme?: string;
  network?: string;
  /** An extension key the entry carries (only `bazaar` is kept). */
  extensions?: string;
  /** The registry join: entries paid to one of `payTos` or at one of `resources` (empty lists: none). */
  payees?: Readonly<{ payTos: readonly string[]; resources: readonly string[] }>;
  /** Search: every word must occur in the entry's text. */
  words?: readonly string[];
}>;

export type CataloguePage = Readonly<{ items: readonly CatalogueEntry[]; total: number }>;

export type CatalogueLimits = Readonly<{ ttlSeconds: number; maxEntriesPerPayTo: number }>;

/**
 * The discovery catalogue, in the store so every replica lists the same entries. Timestamps are
 * the database's, so replicas with skewed clocks agree on what has expired.
 */
export type DiscoveryStore = Readonly<{
  /**
   * After a settlement: creates the entry or refreshes it (declaration, accepts, expiry).
   * `limited` when it is new and its payTo already holds `maxEntriesPerPayTo` live entries.
   */
  recordSettled(declaration: DiscoveryDeclaration, limits: CatalogueLimits): Promise<"recorded" | "limited">;
  /** After a valid /verify: extends the expiry of an entry a settlement created; false when there is none. */
  refreshSeen(locator: CatalogueLocator, limits: CatalogueLimits): Promise<boolean>;
  /** Live entries, most recently refreshed first. */
  list(filter: CatalogueFilter, page: Readonly<{ limit: number; offset: number }>): Promise<CataloguePage>;
  /** Deletes expired entries; how many. */
  deleteExpired(): Promise<number>;
}>;
