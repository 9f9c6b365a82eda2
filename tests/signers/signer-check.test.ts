import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { getPublicKeyAsync } from "@noble/ed25519";
import { getAddressDecoder, getBase58Decoder } from "@solana/kit";
import { loadOrCreateDevKeypair } from "../../src/infrastructure/signers/dev-keypair.ts";
import { runSignerCheck } from "../../src/tools/signer-check.ts";
import { type FakeKms, startFakeKms } from "../../fixtures/fake-kms-server.ts";

const seed = Uint8Array.from({ length: 32 }, (_, i) => i + 11);
const privateKey = getBase58Decoder().decode(seed);
const address = getAddressDecoder().decode(await getPublicKeyAsync(seed));

// A DATA_DIR as the service leaves it on the embedded defaults: both development keys.
const devDataDir = mkdtempSync(join(tmpdir(), "signer-check-dev-"));
const devFeePayer = (await loadOrCreateDevKeypair(join(devDataDir, "fee-payer.json"))).signer.address;
const devConfigAuthority = (await loadOrCreateDevKeypair(join(devDataDir, "config-authority.json"))).signer.address;
afterAll(() => rmSync(devDataDir, { recursive: true, force: true }));

async function check(env: Record<string, string>, extra: Parameters<typeof runSignerCheck>[2] = {}) {
  const lines: string[] = [];
  const code = await runSignerCheck(env, (line) => lines.push(line), extra);
  return { code, output: lines.join("\n") };
}

describe("signer:check (real local and mock AWS KMS endpoint, real SDK)", () => {
  let kms: FakeKms;
  beforeAll(async () => {
    kms = await startFakeKms();
  });
  afterAll(async () => {
    await kms.stop();
  });

  test("prints role, kind and address of each signer and exits 0 when all test signatures verify", async () => {
    const { code, output } = await check(
      {
        FEE_PAYER_SIGNER: "aws-kms",
        FEE_PAYER_KMS_KEY_ID: kms.keyId,
        FEE_PAYER_KMS_REGION: "us-east-1",
        FEE_PAYER_KMS_ENDPOINT: kms.endpoint,
        CONFIG_AUTHORITY_PRIVATE_KEY: privateKey,
      },
      { kms: { credentials: { accessKeyId: "AKIATEST", secretAccessKey: "test" } } },
    );
    expect(code).toBe(0);
    expect(output).toContain(`fee-payer aws-kms (FEE_PAYER_) ${getAddressDecoder().decode(kms.publicKey)} OK`);
    expect(output).toContain(`config-authority local (CONFIG_AUTHORITY_) ${address} OK`);
    expect(output).not.toContain(privateKey);
  });

  test("exits non-zero when a signer fails, naming the setting but not the secret", async () => {
    const broken = `${privateKey.slice(0, -3)}0OI`;
    const { code, output } = await check({ FEE_PAYER_PRIVATE_KEY: privateKey, CONFIG_AUTHORITY_PRIVATE_KEY: broken });
    expect(code).toBe(1);
    expect(output).toContain(`fee-payer local (FEE_PAYER_) ${address} OK`);
    expect(output).toContain("CONFIG_AUTHORITY_PRIVATE_KEY");
    expect(output).not.toContain(broken);
    expect(output).not.toContain(privateKey);
  });

  test("exits non-zero when a backend is unreachable at boot", async () => {
    kms.script("GetPublicKey", { error: "AccessDeniedException" });
    const { code, output } = await check(
      { FEE_PAYER_SIGNER: "aws-kms", FEE_PAYER_KMS_KEY_ID: kms.keyId, FEE_PAYER_KMS_REGION: "us-east-1", FEE_PAYER_KMS_ENDPOINT: kms.endpoint },
      { kms: { credentials: { accessKeyId: "AKIATEST", secretAccessKey: "test" } } },
    );
    expect(code).toBe(1);
    expect(output).toContain("ACCESS_DENIED");
  });

  test("with nothing configured against a real RPC, or in production, it says so and exits non-zero", async () => {
    const settings: Record<string, string>[] = [{ SOLANA_RPC_URL: "https://rpc.example" }, { NODE_ENV: "production", DATA_DIR: devDataDir }];
    for (const env of settings) {
      const { code, output } = await check(env);
      expect(code).toBe(1);
      expect(output).toContain("no signer configured");
    }
  });

  test("runs as its own entry point (real bun subprocess) with the exit code as the verdict", async () => {
    const tool = resolve(import.meta.dir, "../../src/tools/signer-check.ts");
    const run = Bun.spawn([process.execPath, tool], {
      env: { PATH: process.env.PATH ?? "", FEE_PAYER_PRIVATE_KEY: privateKey },
      stdout: "pipe",
      stderr: "pipe",
    });
    const [stdout, exitCode] = await Promise.all([new Response(run.stdout).text(), run.exited]);
    expect(exitCode).toBe(0);
    expect(stdout).toContain(`${address} OK`);
  });
});

describe("signer:check on the embedded defaults (no FEE_PAYER_*): the development keys in DATA_DIR", () => {
  test("checks DATA_DIR/fee-payer.json and DATA_DIR/config-authority.json and exits 0", async () => {
    const { code, output } = await check({ DATA_DIR: devDataDir });
    expect(code).toBe(0);
    expect(output).toContain(`fee-payer local (development key DATA_DIR/fee-payer.json) ${devFeePayer} OK: test signature verifies`);
    expect(output).toContain(`config-authority local (development key DATA_DIR/config-authority.json) ${devConfigAuthority} OK`);
    expect(output).toContain("all 2 signer(s) OK");
  });

  test("a configured role is checked from its settings; only the other falls back to its development key", async () => {
    const { code, output } = await check({ DATA_DIR: devDataDir, CONFIG_AUTHORITY_PRIVATE_KEY: privateKey });
    expect(code).toBe(0);
    expect(output).toContain(`fee-payer local (development key DATA_DIR/fee-payer.json) ${devFeePayer} OK`);
    expect(output).toContain(`config-authority local (CONFIG_AUTHORITY_) ${address} OK`);
    expect(output).not.toContain(devConfigAuthority);
  });

  test("before the service's first start there is no key yet: it says so and exits 0, creating nothing", async () => {
    const empty = mkdtempSync(join(tmpdir(), "signer-check-empty-"));
    try {
      const { code, output } = await check({ DATA_DIR: empty });
      expect(code).toBe(0);
      expect(output).toContain("the development key DATA_DIR/fee-payer.json does not exist yet");
      expect(await Bun.file(join(empty, "fee-payer.json")).exists()).toBe(false);
    } finally {
      rmSync(empty, { recursive: true, force: true });
    }
  });

  test("a damaged development key fails naming its file, without echoing the file", async () => {
    const damaged = mkdtempSync(join(tmpdir(), "signer-check-damaged-"));
    try {
      writeFileSync(join(damaged, "fee-payer.json"), "[1,2,3,secretjunk]");
      const { code, output } = await check({ DATA_DIR: damaged });
      expect(code).toBe(1);
      expect(output).toContain("DATA_DIR/fee-payer.json");
      expect(output).not.toContain("secretjunk");
    } finally {
      rmSync(damaged, { recursive: true, force: true });
    }
  });

  test("runs as its own entry point on the embedded defaults (real bun subprocess)", async () => {
    const run = Bun.spawn([process.execPath, resolve(import.meta.dir, "../../src/tools/signer-check.ts")], {
      env: { PATH: process.env.PATH ?? "", DATA_DIR: devDataDir },
      stdout: "pipe",
      stderr: "pipe",
    });
    const [stdout, exitCode] = await Promise.all([new Response(run.stdout).text(), run.exited]);
    expect(exitCode).toBe(0);
    expect(stdout).toContain(`${devFeePayer} OK`);
  });
});
