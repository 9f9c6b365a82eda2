/**
 * `bun run signer:check`: reads the signer settings the service would read, builds each
 * signer, signs a test message and verifies it, so operators can check a deployment (KMS
 * permissions, HSM PIN and key label) before it takes traffic. Exit code 0 only if every
 * configured signer signed correctly. Prints addresses and kinds, never secrets.
 */
import { verifyAsync } from "@noble/ed25519";
import { getAddressEncoder } from "@solana/kit";
import type { Signer } from "../application/ports/signer.ts";
import { type SignerDeps, createSigner } from "../infrastructure/signers/create-signer.ts";
import { parseSignerConfigs } from "../infrastructure/signers/parse-signer-configs.ts";
import { ROLE_PREFIXES, type SignerConfig, type SignerRole } from "../infrastructure/signers/signer-config.ts";
import { SignerError } from "../infrastructure/signers/signer-error.ts";

type Env = Readonly<Record<string, string | undefined>>;
type Print = (line: string) => void;

export async function runSignerCheck(env: Env, print: Print, deps: Partial<SignerDeps> = {}): Promise<number> {
  let failures = 0;
  let checked = 0;
  for (const [role, prefix] of Object.entries(ROLE_PREFIXES) as [SignerRole, (typeof ROLE_PREFIXES)[SignerRole]][]) {
    const parsed = parseSignerConfigs(env, prefix, deps.readFile);
    if (!parsed.ok) {
      for (const error of parsed.errors) print(`${role}: configuration error: ${error}`);
      failures += parsed.errors.length;
      continue;
    }
    for (const config of parsed.configs) {
      checked += 1;
      const ok = await checkOne(config, { ...deps, env }, print);
      if (!ok) failures += 1;
    }
  }
  if (checked === 0 && failures === 0) {
    print("no signer configured (set FEE_PAYER_SIGNER / CONFIG_AUTHORITY_SIGNER; see docs/signers.md)");
    return 1;
  }
  print(failures === 0 ? `all ${checked} signer(s) OK` : `${failures} problem(s) found`);
  return failures === 0 ? 0 : 1;
}

async function checkOne(config: SignerConfig, deps: SignerDeps, print: Print): Promise<boolean> {
  const label = `${config.role} ${config.kind} (${config.origin.replace(/\.$/, "")})`;
  let signer: Signer | null = null;
  try {
    signer = await createSigner(config, deps);
    const message = new TextEncoder().encode(`x402 facilitator signer check ${signer.address} ${new Date().toISOString()}`);
    const [signature] = await signer.signMessages([message]);
    const publicKey = new Uint8Array(getAddressEncoder().encode(signer.address));
    const valid = signature !== undefined && (await verifyAsync(signature, message, publicKey));
    print(`${label} ${signer.address} ${valid ? "OK: test signature verifies" : "FAILED: test signature does not verify"}`);
    return valid;
  } catch (error) {
    // SignerError messages are written to name settings only; anything else is reduced to its type.
    const reason = error instanceof SignerError ? `${error.code}: ${error.message}` : `unexpected ${errorName(error)}`;
    print(`${label} FAILED: ${reason}`);
    return false;
  } finally {
    await signer?.close?.();
  }
}

function errorName(error: unknown): string {
  return error instanceof Error ? error.name : typeof error;
}

if (import.meta.main) {
  const code = await runSignerCheck(process.env, (line) => console.log(line));
  process.exit(code);
}
