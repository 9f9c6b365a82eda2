/**
 * Issue 24: Token-2022 mints whose extensions make a payment go wrong for the payee or for our fee
 * payer, one test per refused row of the table, through the whole service (buildService: embedded
 * litesvm ledger running the real Token-2022 program, PGlite, app.handle). Each mint is created by
 * real InitializeMint + extension instructions and the payer really holds the tokens; /verify and
 * /settle both refuse before anything is signed, and no balance moves.
 */
import { beforeAll, describe, expect, test } from "bun:test";
import { generateKeyPairSigner } from "@solana/kit";
import { getMintToCheckedInstruction, getPauseInstruction, getThawAccountInstruction, TOKEN_PROGRAM_ADDRESS } from "@solana-program/token-2022";
import { mintToken2022 } from "@x84/embedded-ledger";
import { DEVNET_USDC_MINT } from "../../src/domain/networks.ts";
import { DECIMALS, EXTENSIONS, type PlannedMint, balanceOn, createMintOn, fundedOn, planMint, t22Body, t22Transfer, t22TransferWithFee } from "../support/token-2022-rig.ts";
import { useEmbeddedService } from "./support/embedded-service.ts";
import { expectRefusedOnBoth } from "./support/payments.ts";

const AMOUNT = 100_000n;
const FUND = 1_000_000n;

const mints = {
  fee: await planMint(),
  hook: await planMint(),
  delegate: await planMint(),
  nonTransferable: await planMint(),
  frozen: await planMint(),
  paused: await planMint(),
  plain: await planMint(),
};
const rig = useEmbeddedService({ USDC_MINT: [DEVNET_USDC_MINT, ...Object.values(mints).map((m) => m.address)].join(",") });
const hookProgram = (await generateKeyPairSigner()).address;

beforeAll(async () => {
  const { ledger } = rig;
  await createMintOn(ledger, mints.fee, [EXTENSIONS.transferFee(mints.fee.authority.address, 100)]);
  await createMintOn(ledger, mints.hook, [EXTENSIONS.transferHook(mints.hook.authority.address, hookProgram)]);
  await createMintOn(ledger, mints.delegate, [EXTENSIONS.permanentDelegate(mints.delegate.authority.address)]);
  await createMintOn(ledger, mints.nonTransferable, [EXTENSIONS.nonTransferable()]);
  await createMintOn(ledger, mints.paused, [EXTENSIONS.pausable(mints.paused.authority.address)]);
  await createMintOn(ledger, mints.plain, []);
  await createMintOn(ledger, mints.frozen, [EXTENSIONS.defaultFrozen()], mints.frozen.authority.address);
}, 30_000);

/** A funded payer pays AMOUNT of `planned` with TransferChecked through Token-2022; both endpoints refuse with `reason`, and nothing moves. */
async function refusedWith(planned: PlannedMint, reason: string, before?: () => Promise<void>): Promise<void> {
  const actors = await fundedOn(rig.ledger, planned, FUND);
  await before?.();
  const body = await t22Body(rig, actors, planned.address, AMOUNT, await t22Transfer(actors, planned.address, AMOUNT));
  await expectRefusedOnBoth(rig.service.facilitatorApp, body, reason);
  expect(await balanceOn(rig.ledger, actors.payer.address, planned.address)).toBe(FUND);
  expect(await balanceOn(rig.ledger, actors.payTo.address, planned.address)).toBe(0n);
}

describe("Token-2022 extension attacks (whole service, embedded ledger, real Token-2022)", () => {
  test("transfer fee: the payee would receive less than the amount: TRANSFER_FEE_NOT_ALLOWED", async () => {
    await refusedWith(mints.fee, "TRANSFER_FEE_NOT_ALLOWED");
  });

  test("TransferCheckedWithFee, grossed up, without TOKEN_2022_TRANSFER_FEE=gross-up: still TRANSFER_FEE_NOT_ALLOWED", async () => {
    const actors = await fundedOn(rig.ledger, mints.fee, FUND);
    const body = await t22Body(rig, actors, mints.fee.address, AMOUNT, await t22TransferWithFee(actors, mints.fee.address, 101_011n, 1_011n));
    await expectRefusedOnBoth(rig.service.facilitatorApp, body, "TRANSFER_FEE_NOT_ALLOWED");
  });

  test("transfer hook: an arbitrary program would run inside our fee-paid transaction: TRANSFER_HOOK_NOT_ALLOWED", async () => {
    await refusedWith(mints.hook, "TRANSFER_HOOK_NOT_ALLOWED");
  });

  test("permanent delegate not in TOKEN_2022_ALLOW_PERMANENT_DELEGATE: PERMANENT_DELEGATE_NOT_ALLOWED", async () => {
    await refusedWith(mints.delegate, "PERMANENT_DELEGATE_NOT_ALLOWED");
  });

  test("non-transferable mint: MINT_NOT_TRANSFERABLE", async () => {
    await refusedWith(mints.nonTransferable, "MINT_NOT_TRANSFERABLE");
  });

  test("paused mint (paused by its authority after the payer was funded): MINT_NOT_TRANSFERABLE", async () => {
    await refusedWith(mints.paused, "MINT_NOT_TRANSFERABLE", async () => {
      await rig.ledger.execute(() => [getPauseInstruction({ mint: mints.paused.address, authority: mints.paused.authority })]);
    });
  });

  test("SECURITY: TransferChecked through SPL Token for a Token-2022 mint: DISALLOWED_PROGRAM, whatever the client claims", async () => {
    const actors = await fundedOn(rig.ledger, mints.plain, FUND);
    const body = await t22Body(rig, actors, mints.plain.address, AMOUNT, await t22Transfer(actors, mints.plain.address, AMOUNT, TOKEN_PROGRAM_ADDRESS));
    await expectRefusedOnBoth(rig.service.facilitatorApp, body, "DISALLOWED_PROGRAM");
  });
});

describe("/supported says which assets are refused and why (whole service)", () => {
  test("the hook mint is declared with TRANSFER_HOOK_NOT_ALLOWED", async () => {
    const reply = await rig.service.facilitatorApp.handle(new Request("http://facilitator.test/supported"));
    const body = (await reply.json()) as { kinds: { extra: { assetPolicies: { asset: string }[] } }[] };
    expect(body.kinds[0]?.extra.assetPolicies.find((entry) => entry.asset === mints.hook.address)).toMatchObject({ extensions: ["TransferHook"], refusedWith: "TRANSFER_HOOK_NOT_ALLOWED" });
  });
});

describe("default-frozen accounts (whole service, embedded ledger, real Token-2022)", () => {
  test("a mint whose new accounts start frozen: MINT_NOT_TRANSFERABLE, even when the issuer thawed the payer's account", async () => {
    const { ledger } = rig;
    const { authority } = mints.frozen;
    // Default-frozen needs a freeze authority (the mint is made in beforeAll); the payer's account is
    // thawed and funded by it, the payee's stays frozen.
    const [payer, payTo] = await Promise.all([generateKeyPairSigner(), generateKeyPairSigner()]);
    const source = await mintToken2022(ledger.execute, { mint: mints.frozen.address, owner: payer.address, amount: 0n, decimals: DECIMALS, authority });
    await mintToken2022(ledger.execute, { mint: mints.frozen.address, owner: payTo.address, amount: 0n, decimals: DECIMALS, authority });
    await ledger.execute(() => [
      getThawAccountInstruction({ account: source, mint: mints.frozen.address, owner: authority }),
      getMintToCheckedInstruction({ mint: mints.frozen.address, token: source, mintAuthority: authority, amount: FUND, decimals: DECIMALS }),
    ]);
    const actors = { payer, payTo, feePayer: payer };
    const body = await t22Body(rig, actors, mints.frozen.address, AMOUNT, await t22Transfer(actors, mints.frozen.address, AMOUNT));
    await expectRefusedOnBoth(rig.service.facilitatorApp, body, "MINT_NOT_TRANSFERABLE");
    expect(await balanceOn(ledger, payer.address, mints.frozen.address)).toBe(FUND);
  });
});
