import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { resolve } from "node:path";
import { getPublicKeyAsync } from "@noble/ed25519";
import { getAddressDecoder, getBase58Decoder } from "@solana/kit";
import { runSignerCheck } from "../../src/tools/signer-check.ts";
import { type FakeKms, startFakeKms } from "./support/fake-kms-server.ts";

const seed = Uint8Array.from({ length: 32 }, (_, i) => i + 11);
const privateKey = getBase58Decoder().decode(seed);
const address = getAddressDecoder().decode(await getPublicKeyAsync(seed));

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

  test("with nothing configured it says so and exits non-zero", async () => {
    const { code, output } = await check({});
    expect(code).toBe(1);
    expect(output).toContain("no signer configured");
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
