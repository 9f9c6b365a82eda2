import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type Gate, gateOn } from "../../fixtures/gate.ts";

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

/** Whether the real TLS server tests run (see gate.ts); the certificate when they do. */
export function tlsGate(area: string): Gate & Readonly<{ cert: SelfSignedCert | null }> {
  const made = makeSelfSignedCert();
  const gate = gateOn(area, "the real TLS server tests", "cert" in made ? null : made.missing);
  return { ...gate, cert: "cert" in made ? made : null };
}
