/** A user as the registry knows them: created at first sign-in, touched at every one. */
export type UserRecord = Readonly<{
  address: string;
  /** ISO-8601 UTC. */
  createdAt: string;
  lastSignInAt: string;
}>;

/** A challenge as issued: the exact message text is what a sign-in must present again. */
export type IssuedChallenge = Readonly<{ nonce: string; address: string; message: string; expiresAtMs: number }>;

export type SignInAttempt = Readonly<{ nonce: string; address: string; message: string; atMs: number }>;

/**
 * Sign-In With Solana state shared by every replica: issued challenges (nonces) and users.
 * Times come from the caller's clock, so the expiry rules are testable and one clock decides.
 */
export type SignInStore = Readonly<{
  saveChallenge(challenge: IssuedChallenge): Promise<void>;
  /**
   * Uses the challenge once and records the sign-in, atomically: the challenge must exist for this
   * address with exactly this message, be unused and unexpired at `atMs`. Of any number of
   * concurrent calls with one nonce, across replicas, at most one returns a user; the others null.
   */
  completeSignIn(attempt: SignInAttempt): Promise<UserRecord | null>;
  findUser(address: string): Promise<UserRecord | null>;
  /** Deletes challenges that expired before `beforeMs` (used or not); returns how many. */
  deleteExpiredChallenges(beforeMs: number): Promise<number>;
}>;
