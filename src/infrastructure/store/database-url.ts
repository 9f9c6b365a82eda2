/**
 * What may be said about a DATABASE_URL in logs, health output or error messages.
 *
 * SECURITY: a DATABASE_URL usually carries the password (`postgres://user:pw@host/db`, or
 * `?password=` in the query). Logging it leaks the credential to anyone who reads logs, so
 * only host, port and database name ever leave this module.
 */
export function describeDatabaseUrl(databaseUrl: string): string {
  let url: URL;
  try {
    url = new URL(databaseUrl);
  } catch {
    // SECURITY: an unparsable URL may still embed a password; say nothing about it.
    return "postgres://<unparsable url>";
  }
  const port = url.port === "" ? "" : `:${url.port}`;
  return `${url.protocol}//${url.hostname}${port}${url.pathname}`;
}

/** Rejects values that are not PostgreSQL URLs before any driver sees them. */
export function assertPostgresUrl(databaseUrl: string): void {
  let protocol: string;
  try {
    protocol = new URL(databaseUrl).protocol;
  } catch {
    throw new Error("DATABASE_URL is not a valid URL (expected postgres://user:password@host:5432/database)");
  }
  if (protocol !== "postgres:" && protocol !== "postgresql:") {
    throw new Error(`DATABASE_URL must use postgres:// or postgresql://, not ${protocol}//`);
  }
}
