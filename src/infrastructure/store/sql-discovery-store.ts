import { type CatalogueAccept, type CatalogueEntry, type CatalogueLocator, type DiscoveryDeclaration, catalogueKeyOf, locatorOf, mergeAccepts, searchTextOf } from "../../domain/discovery/catalogue-entry.ts";
import type { CatalogueFilter, CatalogueLimits, CataloguePage, DiscoveryStore } from "../../application/ports/discovery-store.ts";
import type { SqlParam, SqlQueryable, SqlRow } from "./sql-executor.ts";

const READ_ACCEPTS = "SELECT declaration FROM discovery_resources WHERE key = $1";

/**
 * One statement: a new key is inserted only while its payTo holds fewer than the limit of live
 * entries; an existing key is always refreshed. Two replicas inserting at once may pass the
 * limit by one each (the count is not locked): a bound, not an exact quota.
 */
const RECORD_SETTLED = `
  INSERT INTO discovery_resources (key, resource, type, pay_to, network, scheme, extension_keys, search_text, declaration,
                                   first_settled_at, last_settled_at, updated_at, expires_at)
  SELECT $1, $2, $3, $4, $5, $6, $7, $8, $9, now(), now(), now(), now() + make_interval(secs => $10::integer)
   WHERE EXISTS (SELECT 1 FROM discovery_resources WHERE key = $1)
      OR (SELECT count(*) FROM discovery_resources WHERE pay_to = $4 AND expires_at > now()) < $11::integer
  ON CONFLICT (key) DO UPDATE SET
    network = EXCLUDED.network, scheme = EXCLUDED.scheme, extension_keys = EXCLUDED.extension_keys,
    search_text = EXCLUDED.search_text, declaration = EXCLUDED.declaration,
    last_settled_at = now(), updated_at = now(), expires_at = EXCLUDED.expires_at
  RETURNING key`;

const REFRESH_SEEN = `
  UPDATE discovery_resources
     SET updated_at = now(), expires_at = now() + make_interval(secs => $2::integer)
   WHERE key = $1 AND expires_at > now()
  RETURNING key`;

/** The columns of one entry as stored: the declaration JSON holds what the list answers. */
type StoredDeclaration = Omit<CatalogueEntry, "key" | "firstSettledAt" | "lastSettledAt" | "updatedAt">;

/** The discovery_resources table (migration 12) on PostgreSQL or PGlite. */
export function createSqlDiscoveryStore(db: SqlQueryable): DiscoveryStore {
  async function storedAccepts(key: string): Promise<readonly CatalogueAccept[]> {
    const [row] = await db.query(READ_ACCEPTS, [key]);
    if (!row) return [];
    const stored = parseDeclaration(row["declaration"]);
    return stored?.accepts ?? [];
  }

  async function columnsOf(declaration: DiscoveryDeclaration) {
    const key = catalogueKeyOf(locatorOf(declaration));
    const accepts = mergeAccepts(await storedAccepts(key), declaration.accept);
    const { accept: _paid, ...described } = declaration;
    const stored: StoredDeclaration = { ...described, payTo: declaration.accept.payTo, accepts };
    return { key, stored: JSON.stringify(stored), searchText: searchTextOf(declaration), extensionKeys: Object.keys(declaration.extensions).join(",") };
  }

  return Object.freeze({
    async recordSettled(declaration: DiscoveryDeclaration, limits: CatalogueLimits) {
      const { key, stored, searchText, extensionKeys } = await columnsOf(declaration);
      const { accept } = declaration;
      const rows = await db.query(RECORD_SETTLED, [key, declaration.resource, declaration.type, accept.payTo, accept.network, accept.scheme, extensionKeys, searchText, stored, limits.ttlSeconds, limits.maxEntriesPerPayTo]);
      return rows.length > 0 ? "recorded" : "limited";
    },
    async refreshSeen(locator: CatalogueLocator, limits: CatalogueLimits) {
      const rows = await db.query(REFRESH_SEEN, [catalogueKeyOf(locator), limits.ttlSeconds]);
      return rows.length > 0;
    },
    async list(filter: CatalogueFilter, page: Readonly<{ limit: number; offset: number }>): Promise<CataloguePage> {
      const { where, params } = whereOf(filter);
      const countRows = await db.query(`SELECT count(*)::integer AS total FROM discovery_resources WHERE ${where}`, params);
      const rows = await db.query(
        `SELECT key, declaration, first_settled_at, last_settled_at, updated_at FROM discovery_resources WHERE ${where}
          ORDER BY updated_at DESC, key LIMIT $${params.length + 1}::integer OFFSET $${params.length + 2}::integer`,
        [...params, page.limit, page.offset],
      );
      return { items: rows.flatMap((row) => entryOf(row) ?? []), total: Number(countRows[0]?.["total"] ?? 0) };
    },
    async deleteExpired() {
      const rows = await db.query("DELETE FROM discovery_resources WHERE expires_at <= now() RETURNING key");
      return rows.length;
    },
  });
}

/** The WHERE clause of a filter, every value a parameter. */
function whereOf(filter: CatalogueFilter): Readonly<{ where: string; params: SqlParam[] }> {
  const params: SqlParam[] = [];
  const clauses = ["expires_at > now()"];
  const param = (value: SqlParam) => `$${params.push(value)}`;
  if (filter.type !== undefined) clauses.push(`type = ${param(filter.type)}`);
  if (filter.payTo !== undefined) clauses.push(`pay_to = ${param(filter.payTo)}`);
  if (filter.scheme !== undefined) clauses.push(`scheme = ${param(filter.scheme)}`);
  if (filter.network !== undefined) clauses.push(`network = ${param(filter.network)}`);
  if (filter.extensions !== undefined) clauses.push(`strpos(',' || extension_keys || ',', ',' || ${param(filter.extensions)} || ',') > 0`);
  if (filter.payees) {
    // JSON arrays in text parameters: no array literal is built by hand, and both drivers agree on text.
    clauses.push(
      `(pay_to IN (SELECT jsonb_array_elements_text(${param(JSON.stringify(filter.payees.payTos))}::text::jsonb))` +
        ` OR resource IN (SELECT jsonb_array_elements_text(${param(JSON.stringify(filter.payees.resources))}::text::jsonb)))`,
    );
  }
  for (const word of filter.words ?? []) clauses.push(`strpos(search_text, ${param(word)}) > 0`);
  return { where: clauses.join(" AND "), params };
}

function entryOf(row: SqlRow): CatalogueEntry | null {
  const stored = parseDeclaration(row["declaration"]);
  if (!stored) return null;
  return {
    ...stored,
    key: String(row["key"]),
    firstSettledAt: isoOf(row["first_settled_at"]),
    lastSettledAt: isoOf(row["last_settled_at"]),
    updatedAt: isoOf(row["updated_at"]),
  };
}

function parseDeclaration(value: unknown): StoredDeclaration | null {
  if (typeof value !== "string") return null;
  try {
    const parsed: unknown = JSON.parse(value);
    return typeof parsed === "object" && parsed !== null && Array.isArray((parsed as { accepts?: unknown }).accepts) ? (parsed as StoredDeclaration) : null;
  } catch {
    return null;
  }
}

function isoOf(value: unknown): string {
  return (value instanceof Date ? value : new Date(String(value))).toISOString();
}
