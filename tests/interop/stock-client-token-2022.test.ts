/**
 * Issue 24: the stock `@x402/svm` exact client (ExactSvmScheme, as published) pays with a Token-2022
 * mint through this facilitator end to end. The client reads the mint over the embedded ledger's
 * JSON-RPC (real Token-2022 in litesvm) and builds its own transaction; the whole service
 * (buildService, PGlite, app.handle) verifies and settles it, and the balances are read back.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { ExactSvmScheme } from "@x402/svm/exact/client";
import { DEVNET_USDC_MINT, SOLANA_DEVNET } from "../../src/domain/networks.ts";
import { serveLocalLedgerRpc } from "../../src/infrastructure/ledger/local-ledger.ts";
import { useEmbeddedService } from "../adversarial/support/embedded-service.ts";
import { postJson } from "../settlement/support/service-harness.ts";
import { EXTENSIONS, balanceOn, createMintOn, fundedOn, planMint } from "../support/token-2022-rig.ts";

const AMOUNT = 10_000n;
const FUND = 1_000_000n;
const plain = await planMint();
const neutral = await planMint();
const rig = useEmbeddedService({ USDC_MINT: [DEVNET_USDC_MINT, plain.address, neutral.address].join(",") });
let rpc: ReturnType<typeof serveLocalLedgerRpc> | undefined;

beforeAll(async () => {
  await createMintOn(rig.ledger, plain, []);
  await createMintOn(rig.ledger, neutral, EXTENSIONS.neutral(neutral.authority.address));
  rpc = serveLocalLedgerRpc(rig.ledger, { port: 0 });
}, 30_000);
afterAll(() => rpc?.stop());

describe("interop: the stock @x402/svm client pays with Token-2022 (whole service, embedded ledger JSON-RPC)", () => {
  for (const [name, planned] of [["no extensions", plain], ["metadata pointer, interest-bearing, group pointer, close authority", neutral]] as const) {
    test(`a Token-2022 mint with ${name}: the client's payment verifies and settles`, async () => {
      const actors = await fundedOn(rig.ledger, planned, FUND);
      const requirements = { scheme: "exact", network: SOLANA_DEVNET, asset: planned.address, amount: AMOUNT.toString(), payTo: actors.payTo.address, maxTimeoutSeconds: 60, extra: { feePayer: rig.feePayer } } as const;
      const client = new ExactSvmScheme(actors.payer, { rpcUrl: rpc?.url ?? "" });
      const created = await client.createPaymentPayload(2, { ...requirements });
      const body = { x402Version: 2, paymentPayload: { ...created, accepted: requirements }, paymentRequirements: requirements };
      expect((await postJson(rig.service.facilitatorApp, "/verify", body)).body).toMatchObject({ isValid: true, payer: actors.payer.address });
      expect((await postJson(rig.service.facilitatorApp, "/settle", body)).body).toMatchObject({ success: true, payer: actors.payer.address });
      expect(await balanceOn(rig.ledger, actors.payTo.address, planned.address)).toBe(AMOUNT);
      expect(await balanceOn(rig.ledger, actors.payer.address, planned.address)).toBe(FUND - AMOUNT);
    });
  }
});
