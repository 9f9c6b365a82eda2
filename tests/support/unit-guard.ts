/**
 * Preloaded by `npm run test:unit`: a unit test that starts a process or opens a socket fails
 * at once, naming what it tried, instead of quietly making the fast suite slow. (Integration
 * tests, under the other folders of tests/, run without it.)
 */
import { mock } from "bun:test";
import * as childProcess from "node:child_process";
import * as net from "node:net";

function refuse(what: string): never {
  throw new Error(`${what} in a unit test: move the test out of tests/unit (unit tests open no socket and start no process)`);
}

const bun = Bun as unknown as Record<string, unknown>;
for (const name of ["spawn", "spawnSync", "serve", "listen", "connect", "udpSocket"]) {
  bun[name] = () => refuse(`Bun.${name}`);
}
// Named imports bind to the module's own exports, so the node modules are replaced, not patched.
const refusing = (module: Record<string, unknown>, names: readonly string[], prefix: string) =>
  ({ ...module, ...Object.fromEntries(names.map((name) => [name, () => refuse(`${prefix}.${name}`)])) });
const CHILD_PROCESS = ["spawn", "spawnSync", "exec", "execSync", "execFile", "execFileSync", "fork"] as const;
const NET = ["createServer", "connect", "createConnection"] as const;
for (const id of ["node:child_process", "child_process"]) mock.module(id, () => refusing(childProcess as never, CHILD_PROCESS, "child_process"));
for (const id of ["node:net", "net"]) mock.module(id, () => refusing(net as never, NET, "net"));
