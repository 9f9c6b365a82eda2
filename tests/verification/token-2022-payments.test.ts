/**
 * Issue 24: Token-2022 payments through the whole service (buildService: the embedded litesvm ledger
 * running the real Token-2022 and ATA programs, PGlite, app.handle). One mint per accepted row of
 * the extension table, created by real InitializeMint + extension instructions; each is paid through
 * /verify and /settle and the balances are read back from the ledger. The refused rows are in
 * tests/adversarial/token-2022-extension-attacks.test.ts.
 */
import { beforeAll, describe, expect, test } from "bun:test";
import { ExtensionType, getEnableMemoTransfersInstruction, getReallocateInstruction } from "@solana-program/token-2022";
import { postJson } from "../settlement/support/service-harness.ts";
import { computeLimit, computePrice, memoInstruction } from "../../fixtures/payment-builder.ts";
import { useEmbeddedService } from "../adversarial/support/embedded-service.ts";
import { DEVNET_USDC_MINT } from "../../src/domain/networks.ts";
import {
  EXTENSIONS,
  type PlannedMint,
  balanceOn,
  createMintOn,
  fundedOn,
  planMint,
  t22AtaOf,
  t22Body,
  t22Transfer,
  t22TransferWithFee,
} from "../support/token-2022-rig.ts";

const AMOUNT = 250_000n;
const FUND = 1_000_000n;

const mints = {
  plain: await planMint(),
  zeroFee: await planMint(),
  pausable: await planMint(),
  confidential: await planMint(),
  memo: await planMint(),
  neutral: await planMint(),
  allowedDelegate: await planMint(),
};
const rig = useEmbeddedService({
  USDC_MINT: [DEVNET_USDC_MINT, ...Object.values(mints).map((m) => m.address)].join(","),
  TOKEN_2022_ALLOW_PERMANENT_DELEGATE: mints.allowedDelegate.address,
});

beforeAll(async () => {
  const { ledger } = rig;
  await createMintOn(ledger, mints.plain, []);
  await createMintOn(ledger, mints.zeroFee, [EXTENSIONS.transferFee(mints.zeroFee.authority.address, 0)]);
  await createMintOn(ledger, mints.pausable, [EXTENSIONS.pausable(mints.pausable.authority.address)]);
  await createMintOn(ledger, mints.confidential, [EXTENSIONS.confidential()]);
  await createMintOn(ledger, mints.memo, []);
  await createMintOn(ledger, mints.neutral, EXTENSIONS.neutral(mints.neutral.authority.address));
  await createMintOn(ledger, mints.allowedDelegate, [EXTENSIONS.permanentDelegate(mints.allowedDelegate.authority.address)]);
}, 30_000);

/** Verifies, settles and checks the ledger: payTo got exactly the amount, the payer lost exactly it. */
async function paysThrough(planned: PlannedMint, build: Parameters<typeof t22Body>[5] = undefined, prepare?: (payTo: import("@solana/kit").KeyPairSigner) => Promise<void>) {
  const actors = await fundedOn(rig.ledger, planned, FUND);
  if (prepare) await prepare(actors.payTo);
  const body = await t22Body(rig, actors, planned.address, AMOUNT, await t22Transfer(actors, planned.address, AMOUNT), build);
  const verified = await postJson(rig.service.facilitatorApp, "/verify", body);
  expect(verified.body).toMatchObject({ isValid: true, payer: actors.payer.address });
  const settled = await postJson(rig.service.facilitatorApp, "/settle", body);
  expect(settled.body).toMatchObject({ success: true, payer: actors.payer.address });
  expect(await balanceOn(rig.ledger, actors.payTo.address, planned.address)).toBe(AMOUNT);
  expect(await balanceOn(rig.ledger, actors.payer.address, planned.address)).toBe(FUND - AMOUNT);
}

describe("Token-2022 payments the policy accepts (whole service, embedded ledger, real Token-2022)", () => {
  test("a mint without extensions: TransferChecked through Token-2022 into payTo's Token-2022 associated account", async () => {
    await paysThrough(mints.plain);
  });

  test("transfer fee configured at 0 bps: nothing is withheld, so the payment is accepted", async () => {
    await paysThrough(mints.zeroFee);
  });

  test("pausable but not paused", async () => {
    await paysThrough(mints.pausable);
  });

  test("confidential transfers allowed beside plain ones: a plain transfer is fine", async () => {
    await paysThrough(mints.confidential);
  });

  test("a destination that requires memos: accepted when the memo instruction comes right before the transfer", async () => {
    const memoFirst = (transfer: Parameters<NonNullable<Parameters<typeof t22Body>[5]>>[0]) => [computeLimit(40_000), computePrice(1n), memoInstruction(crypto.randomUUID()), transfer];
    await paysThrough(mints.memo, memoFirst, async (payTo) => {
      const token = await t22AtaOf(payTo.address, mints.memo.address);
      await rig.ledger.execute((faucet) => [
        getReallocateInstruction({ token, payer: faucet, owner: payTo, newExtensionTypes: [ExtensionType.MemoTransfer] }),
        getEnableMemoTransfersInstruction({ token, owner: payTo }),
      ]);
    });
  });

  test("interest-bearing, metadata pointer, group pointer and mint close authority change nothing", async () => {
    await paysThrough(mints.neutral);
  });

  test("a permanent delegate on a mint listed in TOKEN_2022_ALLOW_PERMANENT_DELEGATE", async () => {
    await paysThrough(mints.allowedDelegate);
  });
});

describe("/supported declares each asset's token program and extensions (whole service)", () => {
  test("SPL Token USDC and the Token-2022 mints, read from the ledger; a listed permanent delegate is not a refusal", async () => {
    const reply = await rig.service.facilitatorApp.handle(new Request("http://facilitator.test/supported"));
    const body = (await reply.json()) as { kinds: { extra: { assetPolicies: unknown[] } }[] };
    const policies = body.kinds[0]?.extra.assetPolicies;
    expect(policies).toContainEqual({ asset: DEVNET_USDC_MINT, tokenProgram: "TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA", decimals: 6, extensions: [], transferFee: "none", refusedWith: null });
    expect(policies).toContainEqual({ asset: mints.zeroFee.address, tokenProgram: "TokenzQdBNbLqP5VEhdkAS6EPFLC1PHnBqCXEpPxuEb", decimals: 6, extensions: ["TransferFeeConfig"], transferFee: "refuse", refusedWith: null });
    expect(policies).toContainEqual({ asset: mints.allowedDelegate.address, tokenProgram: "TokenzQdBNbLqP5VEhdkAS6EPFLC1PHnBqCXEpPxuEb", decimals: 6, extensions: ["PermanentDelegate"], transferFee: "none", refusedWith: null });
  });
});

describe("TOKEN_2022_TRANSFER_FEE=gross-up (whole service, embedded ledger, real Token-2022)", () => {
  const feeMint = { planned: undefined as PlannedMint | undefined };
  const grossUp = useEmbeddedService({ TOKEN_2022_TRANSFER_FEE: "gross-up", USDC_MINT: [DEVNET_USDC_MINT, mints.plain.address].join(",") });
  beforeAll(async () => {
    // The fee mint must be an accepted asset of this second service: reuse the planned plain mint's address there.
    feeMint.planned = mints.plain;
    await createMintOn(grossUp.ledger, mints.plain, [EXTENSIONS.transferFee(mints.plain.authority.address, 100)]);
  }, 30_000);

  test("TransferCheckedWithFee grossed up settles: the payee receives exactly the amount, the mint withholds the fee", async () => {
    const planned = feeMint.planned as PlannedMint;
    const actors = await fundedOn(grossUp.ledger, planned, FUND);
    // 1% of 252,526 rounds up to 2,526: the payee receives 250,000.
    const body = await t22Body(grossUp, actors, planned.address, AMOUNT, await t22TransferWithFee(actors, planned.address, 252_526n, 2_526n));
    expect((await postJson(grossUp.service.facilitatorApp, "/verify", body)).body).toMatchObject({ isValid: true });
    expect((await postJson(grossUp.service.facilitatorApp, "/settle", body)).body).toMatchObject({ success: true });
    expect(await balanceOn(grossUp.ledger, actors.payTo.address, planned.address)).toBe(AMOUNT);
    expect(await balanceOn(grossUp.ledger, actors.payer.address, planned.address)).toBe(FUND - 252_526n);
  });

  test("a plain TransferChecked of the fee-bearing mint is still refused: TRANSFER_FEE_NOT_ALLOWED", async () => {
    const planned = feeMint.planned as PlannedMint;
    const actors = await fundedOn(grossUp.ledger, planned, FUND);
    const body = await t22Body(grossUp, actors, planned.address, AMOUNT, await t22Transfer(actors, planned.address, AMOUNT));
    expect((await postJson(grossUp.service.facilitatorApp, "/verify", body)).body).toMatchObject({ isValid: false, invalidReason: "TRANSFER_FEE_NOT_ALLOWED" });
  });
});
