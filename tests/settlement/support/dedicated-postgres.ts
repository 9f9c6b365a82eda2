/**
 * A PostgreSQL server of the test's own, so a test can stop and start it without disturbing
 * anything else that uses the machine's server: initdb into a temporary directory, pg_ctl on a
 * free port, Unix socket in that directory. As root the commands run as the `postgres` user
 * (initdb refuses root); otherwise as the current user.
 */
import { chownSync, existsSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir, userInfo } from "node:os";
import { join } from "node:path";
import { unusedPort } from "../../support/ports.ts";

export type DedicatedPostgres = Readonly<{
  url: string;
  /** pg_ctl stop -m fast: clients are disconnected, open transactions roll back. */
  stop(): Promise<void>;
  start(): Promise<void>;
  dispose(): Promise<void>;
}>;

export type DedicatedPostgresAvailability = Readonly<{ ok: true; bin: string } | { ok: false; reason: string }>;

/** Where initdb and pg_ctl are, or why a dedicated server cannot be made here. */
export function dedicatedPostgresAvailability(): DedicatedPostgresAvailability {
  const root = "/usr/lib/postgresql";
  const versions = existsSync(root) ? readdirSync(root).filter((v) => existsSync(join(root, v, "bin", "initdb"))) : [];
  const newest = versions.sort((a, b) => Number(b) - Number(a))[0];
  if (!newest) return { ok: false, reason: `no initdb under ${root}/*/bin` };
  if (userInfo().uid === 0 && !existsSync("/usr/sbin/runuser") && !existsSync("/sbin/runuser")) return { ok: false, reason: "running as root without runuser" };
  return { ok: true, bin: join(root, newest, "bin") };
}

export async function startDedicatedPostgres(bin: string): Promise<DedicatedPostgres> {
  const dir = mkdtempSync(join(tmpdir(), "dedicated-pg-"));
  const asRoot = userInfo().uid === 0;
  if (asRoot) {
    const ids = run(["id", "-u", "postgres"]).trim();
    const gid = run(["id", "-g", "postgres"]).trim();
    chownSync(dir, Number(ids), Number(gid));
  }
  const as = (command: string[]) => (asRoot ? ["runuser", "-u", "postgres", "--", ...command] : command);
  const data = join(dir, "data");
  const port = await unusedPort();
  run(as([join(bin, "initdb"), "-D", data, "-A", "trust", "-U", "postgres", "--no-sync"]));
  const pgCtl = (args: string[]) => run(as([join(bin, "pg_ctl"), "-D", data, "-w", "-t", "30", ...args]));
  const options = `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c max_connections=50`;
  const start = async () => void pgCtl(["-o", options, "-l", join(dir, "log"), "start"]);
  await start();
  return Object.freeze({
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    stop: async () => void pgCtl(["-m", "fast", "stop"]),
    start,
    async dispose() {
      try {
        pgCtl(["-m", "immediate", "stop"]);
      } catch {
        // Already stopped.
      }
      rmSync(dir, { recursive: true, force: true });
    },
  });
}

function run(command: string[]): string {
  const result = Bun.spawnSync(command, { stdout: "pipe", stderr: "pipe" });
  if (result.exitCode !== 0) throw new Error(`${command.join(" ")} exited ${result.exitCode}: ${result.stderr.toString().trim()}`);
  return result.stdout.toString();
}
