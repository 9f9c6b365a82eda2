/**
 * `npm run ledger` (src/tools/ledger.ts) as a child process: the embedded ledger's JSON-RPC alone,
 * as the production-shape tests run it (the service then reaches it through SOLANA_RPC_URL, as it
 * would a real node). Resolves once the tool logs `ledger ready` with its URL.
 */
import { resolve } from "node:path";

const ROOT = resolve(import.meta.dir, "../..");

export type LedgerTool = Readonly<{ url: string; pid: number; output(): string; stop(): Promise<number> }>;

export async function startLedgerTool(env: Readonly<Record<string, string>> = {}): Promise<LedgerTool> {
  const child = Bun.spawn([process.execPath, "src/tools/ledger.ts"], {
    cwd: ROOT,
    env: { PATH: process.env["PATH"] ?? "", LOCAL_LEDGER_PORT: "0", LOG_LEVEL: "info", ...env },
    stdout: "pipe",
    stderr: "pipe",
  });
  let output = "";
  let url: string | null = null;
  const ready = new Promise<string>((resolveUrl, reject) => {
    const read = async (stream: ReadableStream<Uint8Array>) => {
      const decoder = new TextDecoder();
      const reader = stream.getReader();
      for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read()) {
        output += decoder.decode(chunk.value, { stream: true });
        for (const line of output.split("\n")) {
          if (url !== null || !line.includes('"ledger ready"')) continue;
          url = (JSON.parse(line) as { url: string }).url;
          resolveUrl(url);
        }
      }
    };
    void read(child.stdout);
    void read(child.stderr);
    void child.exited.then((code) => reject(new Error(`the ledger tool exited (${code}) before it was ready:\n${output}`)));
  });
  const timeout = setTimeout(() => child.kill("SIGKILL"), 30_000);
  try {
    await ready;
  } finally {
    clearTimeout(timeout);
  }
  return Object.freeze({
    url: url!,
    pid: child.pid,
    output: () => output,
    async stop() {
      child.kill("SIGTERM");
      const code = await Promise.race([child.exited, Bun.sleep(5_000).then(() => null)]);
      if (code !== null) return code;
      child.kill("SIGKILL");
      return child.exited;
    },
  });
}
