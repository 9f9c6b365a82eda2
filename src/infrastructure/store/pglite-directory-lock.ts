import { mkdirSync, openSync, readFileSync, rmSync, writeSync, closeSync } from "node:fs";
import { dirname, resolve } from "node:path";

export type DirectoryLock = Readonly<{ release(): void }>;

/** Directories this process holds, so a second open in the same process is refused too. */
const heldInThisProcess = new Set<string>();

/**
 * Claims exclusive use of a PGlite data directory for this process.
 *
 * SECURITY: PGlite is a single-process database with no lock of its own; two processes
 * (or two replicas pointed at one volume) writing the same files corrupt it silently and
 * could lose settlement claims, i.e. allow a double submission. The lock turns that
 * misconfiguration into a startup error. A lock left by a crashed process is taken over
 * once its pid is no longer alive.
 */
export function acquireDirectoryLock(directory: string): DirectoryLock {
  const path = resolve(directory);
  if (heldInThisProcess.has(path)) {
    throw new Error(`PGlite data directory ${path} is already open in this process; close the other store first`);
  }
  const lockPath = `${path}.lock`;
  mkdirSync(dirname(lockPath), { recursive: true });
  if (!tryCreateLockFile(lockPath)) {
    const holder = readHolderPid(lockPath);
    if (holder !== null && holder !== process.pid && isProcessAlive(holder)) {
      throw new Error(
        `PGlite data directory ${path} is in use by process ${holder}. PGlite serves one process only; ` +
          "set DATABASE_URL to share a PostgreSQL server between processes",
      );
    }
    // Stale lock: its owner is gone (or is a previous life of this pid after a restart).
    rmSync(lockPath, { force: true });
    if (!tryCreateLockFile(lockPath)) {
      throw new Error(`PGlite data directory ${path} was locked by another process while starting`);
    }
  }
  heldInThisProcess.add(path);
  let released = false;
  return Object.freeze({
    release() {
      if (released) return;
      released = true;
      heldInThisProcess.delete(path);
      if (readHolderPid(lockPath) === process.pid) rmSync(lockPath, { force: true });
    },
  });
}

function tryCreateLockFile(lockPath: string): boolean {
  let fd: number;
  try {
    fd = openSync(lockPath, "wx", 0o600);
  } catch (error) {
    if (typeof error === "object" && error !== null && "code" in error && error.code === "EEXIST") return false;
    throw error;
  }
  try {
    writeSync(fd, String(process.pid));
  } finally {
    closeSync(fd);
  }
  return true;
}

function readHolderPid(lockPath: string): number | null {
  try {
    const pid = Number.parseInt(readFileSync(lockPath, "utf8").trim(), 10);
    return Number.isSafeInteger(pid) && pid > 0 ? pid : null;
  } catch {
    return null;
  }
}

function isProcessAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: the process exists but belongs to another user.
    return typeof error === "object" && error !== null && "code" in error && error.code === "EPERM";
  }
}
