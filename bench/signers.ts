/**
 * `bun run bench:signers`: signatures per second and latency percentiles for each signer
 * backend: local (WebCrypto), PKCS#11 (a SoftHSM2 token in a temp dir, skipped when
 * SoftHSM2 is absent) and AWS KMS (the real SDK against the local fake KMS endpoint, so
 * it measures SDK + SigV4 + HTTP overhead, not AWS). Prints a table.
 * Options: BENCH_SIGNATURES (default 2000), BENCH_CONCURRENCY (default 16).
 */
import { getPublicKeyAsync } from "@noble/ed25519";
import type { Signer } from "../src/application/ports/signer.ts";
import { createLocalSigner, createSigner, parseSignerConfigs } from "../src/infrastructure/signers/index.ts";
import { startFakeKms } from "../fixtures/fake-kms-server.ts";
import { createSoftHsmToken, findSoftHsmModule, SOFTHSM_INSTALL_COMMAND } from "../fixtures/softhsm.ts";

const TOTAL = Number(process.env.BENCH_SIGNATURES ?? 2000);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 16);

type Row = Readonly<{ backend: string; perSecond: number; p50: number; p99: number; max: number }>;

/** A Solana-sized message (a typical x402 transfer message is ~300-400 bytes). */
const message = crypto.getRandomValues(new Uint8Array(350));

async function measure(backend: string, signer: Signer): Promise<Row> {
  await signer.signMessages([message]); // warm-up: connections, sessions, JIT
  const latencies: number[] = [];
  let next = 0;
  const worker = async () => {
    while (next < TOTAL) {
      next += 1;
      const start = performance.now();
      await signer.signMessages([message]);
      latencies.push(performance.now() - start);
    }
  };
  const started = performance.now();
  await Promise.all(Array.from({ length: CONCURRENCY }, worker));
  const elapsed = (performance.now() - started) / 1000;
  latencies.sort((a, b) => a - b);
  const at = (q: number) => latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))] ?? 0;
  return { backend, perSecond: latencies.length / elapsed, p50: at(0.5), p99: at(0.99), max: at(1) };
}

async function bootFromEnv(env: Record<string, string>, deps: Omit<Parameters<typeof createSigner>[1], "env"> = {}): Promise<Signer> {
  const parsed = parseSignerConfigs(env, "FEE_PAYER_");
  if (!parsed.ok) throw new Error(parsed.errors.join("; "));
  const [config] = parsed.configs;
  if (config === undefined) throw new Error("nothing parsed");
  return createSigner(config, { ...deps, env });
}

async function main(): Promise<void> {
  const rows: Row[] = [];
  const notes: string[] = [];

  const seed = crypto.getRandomValues(new Uint8Array(32));
  const local = await createLocalSigner(new Uint8Array([...seed, ...(await getPublicKeyAsync(seed))]), "bench key");
  rows.push(await measure("local (WebCrypto Ed25519)", local));

  const module = findSoftHsmModule();
  if (module === null) {
    notes.push(`pkcs11 skipped: SoftHSM2 not found (${SOFTHSM_INSTALL_COMMAND})`);
  } else {
    const token = createSoftHsmToken(module, { tokenLabel: "bench", pin: "1234", keys: [{ label: "bench", idHex: "01" }] });
    try {
      const hsm = await bootFromEnv({
        FEE_PAYER_SIGNER: "pkcs11",
        FEE_PAYER_PKCS11_MODULE: module,
        FEE_PAYER_PKCS11_TOKEN_LABEL: "bench",
        FEE_PAYER_PKCS11_KEY_LABEL: "bench",
        FEE_PAYER_PKCS11_PIN: "1234",
        FEE_PAYER_PKCS11_SESSIONS: String(Math.min(CONCURRENCY, 8)),
      });
      rows.push(await measure("pkcs11 (SoftHSM2, CKM_EDDSA)", hsm));
      await hsm.close?.();
    } finally {
      token.cleanup();
    }
  }

  const kms = await startFakeKms();
  try {
    const remote = await bootFromEnv(
      {
        FEE_PAYER_SIGNER: "aws-kms",
        FEE_PAYER_KMS_KEY_ID: kms.keyId,
        FEE_PAYER_KMS_REGION: "us-east-1",
        FEE_PAYER_KMS_ENDPOINT: kms.endpoint,
      },
      { kms: { credentials: { accessKeyId: "AKIABENCH", secretAccessKey: "bench" } } },
    );
    rows.push(await measure("aws-kms (real SDK, local fake endpoint)", remote));
    await remote.close?.();
  } finally {
    await kms.stop();
  }

  console.log(`signers: ${TOTAL} signatures per backend, ${CONCURRENCY} concurrent callers, ${message.length}-byte message\n`);
  console.log(`${"backend".padEnd(42)} ${"sig/s".padStart(9)} ${"p50 ms".padStart(8)} ${"p99 ms".padStart(8)} ${"max ms".padStart(8)}`);
  for (const row of rows) {
    console.log(
      `${row.backend.padEnd(42)} ${row.perSecond.toFixed(0).padStart(9)} ${row.p50.toFixed(2).padStart(8)} ${row.p99.toFixed(2).padStart(8)} ${row.max.toFixed(2).padStart(8)}`,
    );
  }
  for (const note of notes) console.log(`\nnote: ${note}`);
}

await main();
