import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

export type SelfSignedCert = Readonly<{ cert: string; key: string }>;

/** Names the throwaway certificate is valid for. */
export const CERT_NAMES = ["agents.test", "localhost"] as const;

/**
 * A throwaway self-signed certificate (P-256, one day) for `agents.test`, `localhost` and
 * 127.0.0.1, made with the `openssl` CLI at test time so no private key is committed. Returns
 * `{ missing }` with the reason when openssl is missing or fails.
 */
export function makeSelfSignedCert(): SelfSignedCert | { missing: string } {
  const dir = mkdtempSync(join(tmpdir(), "metadata-tls-"));
  try {
    const result = spawnSync(
      "openssl",
      [
        "req", "-x509", "-nodes", "-days", "1",
        "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1",
        "-keyout", join(dir, "key.pem"), "-out", join(dir, "cert.pem"),
        "-subj", "/CN=agents.test",
        "-addext", `subjectAltName=${CERT_NAMES.map((n) => `DNS:${n}`).join(",")},IP:127.0.0.1`,
      ],
      { encoding: "utf8" },
    );
    if (result.error !== undefined || result.status !== 0) {
      return { missing: `openssl could not make a certificate (${result.error?.message ?? result.stderr.trim().split("\n")[0]})` };
    }
    return { cert: readFileSync(join(dir, "cert.pem"), "utf8"), key: readFileSync(join(dir, "key.pem"), "utf8") };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Skips locally with the reason printed; fails under CI=true, like the PostgreSQL and Redis gates. */
export function tlsGate(area: string): Readonly<{ cert: SelfSignedCert | null; failInCi: string | null }> {
  const made = makeSelfSignedCert();
  if ("cert" in made) return { cert: made, failInCi: null };
  if (process.env["CI"] === "true" || process.env["CI"] === "1") return { cert: null, failInCi: `${made.missing}; CI requires it.` };
  console.warn(`[${area}] SKIPPING the real TLS server tests: ${made.missing}. They fail instead when CI=true.`);
  return { cert: null, failInCi: null };
}
