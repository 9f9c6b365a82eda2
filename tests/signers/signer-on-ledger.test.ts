import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { getPublicKeyAsync } from "@noble/ed25519";
import {
  address,
  appendTransactionMessageInstructions,
  blockhash,
  createTransactionMessage,
  generateKeyPairSigner,
  getTransactionEncoder,
  pipe,
  setTransactionMessageFeePayerSigner,
  setTransactionMessageLifetimeUsingBlockhash,
  signTransactionMessageWithSigners,
} from "@solana/kit";
import { getTransferCheckedInstruction } from "@solana-program/token";
import type { Signer } from "../../src/application/ports/signer.ts";
import { DEVNET_USDC_MINT, USDC_DECIMALS } from "../../src/domain/networks.ts";
import { createLocalLedger, type LocalLedger } from "../../src/infrastructure/ledger/local-ledger.ts";
import { createSigner, createLocalSigner, parseSignerConfigs, toKitPartialSigner } from "../../src/infrastructure/signers/index.ts";
import { type FakeKms, startFakeKms } from "../../fixtures/fake-kms-server.ts";
import { fakeKmsCredentials, kmsSignerEnv } from "../support/kms-rig.ts";
import { failWhenRequired } from "../../fixtures/gate.ts";
import { createSoftHsmToken, softHsmGate, type SoftHsmToken } from "../../fixtures/softhsm.ts";

const USDC = address(DEVNET_USDC_MINT);
const { module: softHsmModule, ...softHsm } = softHsmGate("tests/signers", "PKCS#11 ledger settlement");

/**
 * The x402 settlement shape: the client's key authorises a USDC TransferChecked, the
 * adapter under test is the fee payer and signs through toKitPartialSigner, and the
 * embedded ledger (real SPL Token in litesvm) executes it.
 */
async function settleThrough(ledger: LocalLedger, feePayer: Signer): Promise<void> {
  const payer = await generateKeyPairSigner();
  const recipient = await generateKeyPairSigner();
  await ledger.airdrop(feePayer.address, 1_000_000_000n);
  const source = await ledger.setTokenAccount(payer.address, USDC, { amount: 5_000_000n });
  const destination = await ledger.setTokenAccount(recipient.address, USDC, { amount: 0n });
  const latest = await ledger.getLatestBlockhash();
  const feePayerBefore = ledger.getBalance(feePayer.address);

  const message = pipe(
    createTransactionMessage({ version: 0 }),
    (m) => setTransactionMessageFeePayerSigner(toKitPartialSigner(feePayer), m),
    (m) =>
      setTransactionMessageLifetimeUsingBlockhash(
        { blockhash: blockhash(latest.blockhash), lastValidBlockHeight: latest.lastValidBlockHeight },
        m,
      ),
    (m) =>
      appendTransactionMessageInstructions(
        [
          getTransferCheckedInstruction({
            source,
            mint: USDC,
            destination,
            authority: payer,
            amount: 1_250_000n,
            decimals: USDC_DECIMALS,
          }),
        ],
        m,
      ),
  );
  const transaction = await signTransactionMessageWithSigners(message);
  const wire = new Uint8Array(getTransactionEncoder().encode(transaction));
  const signature = await ledger.sendTransaction(wire);

  const [status] = await ledger.getSignatureStatuses([signature]);
  expect(status?.err).toBeNull();
  expect(["confirmed", "finalized"]).toContain(status?.confirmationStatus ?? "missing");
  expect(ledger.getTokenAccountBalance(destination)?.amount).toBe(1_250_000n);
  expect(ledger.getTokenAccountBalance(source)?.amount).toBe(3_750_000n);
  // The fee came out of the adapter's account, proving its signature was the fee payer's.
  expect(ledger.getBalance(feePayer.address)).toBeLessThan(feePayerBefore);
}

describe("a settlement signed by each adapter confirms on the embedded ledger (real litesvm SPL Token)", () => {
  let ledger: LocalLedger;
  let kms: FakeKms;
  let token: SoftHsmToken | null = null;
  const opened: Signer[] = [];

  beforeAll(async () => {
    ledger = createLocalLedger();
    kms = await startFakeKms();
    if (softHsmModule !== null) {
      token = createSoftHsmToken(softHsmModule, {
        tokenLabel: "ledger-tests",
        pin: "13579",
        keys: [{ label: "fee-payer", idHex: "01" }],
      });
    }
  });
  afterAll(async () => {
    await Promise.all(opened.map((s) => s.close?.()));
    await kms.stop();
    token?.cleanup();
  });

  async function boot(env: Record<string, string>, deps: Parameters<typeof createSigner>[1]): Promise<Signer> {
    const parsed = parseSignerConfigs(env, "FEE_PAYER_");
    if (!parsed.ok) throw new Error(parsed.errors.join("; "));
    const [config] = parsed.configs;
    if (config === undefined) throw new Error("nothing parsed");
    const signer = await createSigner(config, deps);
    opened.push(signer);
    return signer;
  }

  test("local keypair", async () => {
    const seed = crypto.getRandomValues(new Uint8Array(32));
    const signer = await createLocalSigner(new Uint8Array([...seed, ...(await getPublicKeyAsync(seed))]), "test key");
    await settleThrough(ledger, signer);
  });

  test("AWS KMS (mock AWS KMS endpoint, real SDK)", async () => {
    const env = kmsSignerEnv(kms);
    const signer = await boot(env, { env, kms: { credentials: fakeKmsCredentials() } });
    await settleThrough(ledger, signer);
    expect(kms.requests.some((r) => r.target === "TrentService.Sign")).toBe(true);
  });

  failWhenRequired(softHsm, "PKCS#11 (SoftHSM2 required under CI)");
  if (softHsmModule === null) {
    if (!softHsm.failInCi) test.skip("PKCS#11 HSM (real SoftHSM2 token)", () => {});
  } else {
    test("PKCS#11 HSM (real SoftHSM2 token)", async () => {
      if (token === null) throw new Error("token was not created");
      const env = {
        FEE_PAYER_SIGNER: "pkcs11",
        FEE_PAYER_PKCS11_MODULE: token.module,
        FEE_PAYER_PKCS11_TOKEN_LABEL: token.tokenLabel,
        FEE_PAYER_PKCS11_KEY_LABEL: "fee-payer",
        FEE_PAYER_PKCS11_PIN: token.pin,
      };
      const signer = await boot(env, { env });
      await settleThrough(ledger, signer);
    });
  }
});
