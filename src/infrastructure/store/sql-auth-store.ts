import type { IssuedChallenge, SignInAttempt, SignInStore, UserRecord } from "../../application/ports/sign-in-store.ts";
import type { SqlExecutor, SqlRow } from "./sql-executor.ts";

// Times are sent as ISO-8601 text and cast, which both drivers pass through unchanged, and read
// back as ISO text, so neither driver's Date handling is involved.
const ISO = `'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'`;
const USER_COLUMNS = `address,
  to_char(created_at AT TIME ZONE 'UTC', ${ISO}) AS created_at,
  to_char(coalesce(last_sign_in_at, created_at) AT TIME ZONE 'UTC', ${ISO}) AS last_sign_in_at`;

const INSERT_CHALLENGE = `
  INSERT INTO auth_nonces (nonce, address, message, expires_at)
  VALUES ($1, $2, $3, $4::timestamptz)`;

// The WHERE clause is the whole check and the whole lock: PostgreSQL re-evaluates it after waiting
// for a concurrent writer of the row, so of several uses of one nonce exactly one matches.
const USE_CHALLENGE = `
  UPDATE auth_nonces SET used_at = $4::timestamptz
   WHERE nonce = $1 AND address = $2 AND message = $3
     AND used_at IS NULL AND expires_at > $4::timestamptz
  RETURNING nonce`;

const UPSERT_USER = `
  INSERT INTO users (address, created_at, last_sign_in_at) VALUES ($1, $2::timestamptz, $2::timestamptz)
  ON CONFLICT (address) DO UPDATE SET last_sign_in_at = EXCLUDED.last_sign_in_at
  RETURNING ${USER_COLUMNS}`;

const SELECT_USER = `SELECT ${USER_COLUMNS} FROM users WHERE address = $1`;

const DELETE_EXPIRED = `
  WITH deleted AS (DELETE FROM auth_nonces WHERE expires_at < $1::timestamptz RETURNING 1)
  SELECT count(*)::int AS deleted FROM deleted`;

/**
 * The SignInStore port over any SqlExecutor (PostgreSQL or PGlite), on the `auth_nonces` and
 * `users` tables of migration 2. See docs/auth.md for why using a nonce is atomic.
 */
export function createSqlSignInStore(db: SqlExecutor): SignInStore {
  return Object.freeze({
    async saveChallenge(challenge: IssuedChallenge): Promise<void> {
      await db.query(INSERT_CHALLENGE, [challenge.nonce, challenge.address, challenge.message, iso(challenge.expiresAtMs)]);
    },
    completeSignIn: (attempt: SignInAttempt) =>
      // One transaction: a used challenge always has its sign-in recorded, and a failed upsert
      // leaves the challenge unused.
      db.transaction(async (tx): Promise<UserRecord | null> => {
        const at = iso(attempt.atMs);
        const used = await tx.query(USE_CHALLENGE, [attempt.nonce, attempt.address, attempt.message, at]);
        if (used[0] === undefined) return null;
        const [row] = await tx.query(UPSERT_USER, [attempt.address, at]);
        if (row === undefined) throw new Error("user upsert returned no row");
        return userFromRow(row);
      }),
    async findUser(address: string): Promise<UserRecord | null> {
      const [row] = await db.query(SELECT_USER, [address]);
      return row === undefined ? null : userFromRow(row);
    },
    async deleteExpiredChallenges(beforeMs: number): Promise<number> {
      const [row] = await db.query(DELETE_EXPIRED, [iso(beforeMs)]);
      return Number(row?.["deleted"] ?? 0);
    },
  });
}

function iso(ms: number): string {
  return new Date(ms).toISOString();
}

function userFromRow(row: SqlRow): UserRecord {
  return Object.freeze({
    address: String(row["address"]),
    createdAt: String(row["created_at"]),
    lastSignInAt: String(row["last_sign_in_at"]),
  });
}
