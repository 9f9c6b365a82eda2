/**
 * The Bazaar discovery catalogue's entries (docs/discovery.md): what a resource server declared in
 * a payment settled through this facilitator, keyed so that no payee can overwrite another's.
 */

/** One accepted way to pay, in the x402 v2 requirements shape (amount as a decimal string). */
export type CatalogueAccept = Readonly<{
  scheme: string;
  network: string;
  asset: string;
  amount: string;
  payTo: string;
  maxTimeoutSeconds?: number;
  extra?: Readonly<Record<string, unknown>>;
}>;

/** A declaration that passed the Bazaar validators, with the requirement it was paid under. */
export type DiscoveryDeclaration = DeclaredResource & Readonly<{ accept: CatalogueAccept }>;

/** What a declaration says of its resource, kept as declared in the entry too. */
type DeclaredResource = Readonly<{
  /** The canonical URL (origin and path, or origin and routeTemplate). */
  resource: string;
  type: "http" | "mcp";
  /** HTTP method (http) or MCP tool name (mcp): with `resource`, what the resource is. */
  operation: string;
  x402Version: number;
  description?: string;
  mimeType?: string;
  serviceName?: string;
  tags?: readonly string[];
  iconUrl?: string;
  /** Only the `bazaar` extension is echoed: other extensions may carry signatures or payer data. */
  extensions: Readonly<Record<string, unknown>>;
}>;

/** What names an entry: the resource, what it is, and who is paid. */
export type CatalogueLocator = Readonly<{ type: "http" | "mcp"; operation: string; resource: string; payTo: string }>;

/** A stored entry: the declaration, the accepts seen for it, and when payments refreshed it. */
export type CatalogueEntry = DeclaredResource &
  Readonly<{
    key: string;
    payTo: string;
    accepts: readonly CatalogueAccept[];
    firstSettledAt: string;
    lastSettledAt: string;
    updatedAt: string;
  }>;

/** Accepts kept per entry: one per (scheme, network, asset), the latest first. */
export const MAX_ACCEPTS_PER_ENTRY = 4;

/**
 * SECURITY: the key holds the payee. Keyed by URL alone, anyone who settled one payment to
 * themselves naming a victim's URL would overwrite the victim's entry (its price, its payTo).
 */
export function catalogueKeyOf(locator: CatalogueLocator): string {
  return [locator.type, locator.operation, locator.resource, locator.payTo].join(" ");
}

/** The locator of a declaration. */
export function locatorOf(declaration: DiscoveryDeclaration): CatalogueLocator {
  return { type: declaration.type, operation: declaration.operation, resource: declaration.resource, payTo: declaration.accept.payTo };
}

/** The accepts after a payment under `latest`: it replaces its (scheme, network, asset) twin and goes first. */
export function mergeAccepts(previous: readonly CatalogueAccept[], latest: CatalogueAccept): readonly CatalogueAccept[] {
  const same = (a: CatalogueAccept) => a.scheme === latest.scheme && a.network === latest.network && a.asset === latest.asset;
  return [latest, ...previous.filter((a) => !same(a))].slice(0, MAX_ACCEPTS_PER_ENTRY);
}

/** Lower-case words a search matches: URL, operation, description, service name, tags, declared input description. */
export function searchTextOf(declaration: DiscoveryDeclaration): string {
  const bazaar = declaration.extensions["bazaar"] as { info?: { input?: { description?: unknown } } } | undefined;
  const inputDescription = typeof bazaar?.info?.input?.description === "string" ? bazaar.info.input.description : "";
  return [declaration.resource, declaration.operation, declaration.description ?? "", declaration.serviceName ?? "", ...(declaration.tags ?? []), inputDescription]
    .join(" ")
    .toLowerCase();
}

/** The words of a search query (at most 8, each at most 64 characters), lower-cased. */
export function queryWords(query: string): readonly string[] {
  return query
    .toLowerCase()
    .split(/\s+/)
    .filter((word) => word.length > 0)
    .slice(0, 8)
    .map((word) => word.slice(0, 64));
}
