/**
 * The x84 client's protocol-fee split (PROTOCOL_FEE_TREASURY, PROTOCOL_FEE_BPS) through the whole
 * service (buildService: embedded litesvm ledger with real SPL Token, PGlite, app.handle). Payments
 * are laid out as x84protocol/x402 src/client.ts (commit 01a86665) builds them: SetComputeUnitLimit
 * 40,000, SetComputeUnitPrice 500,000 µlamports, TransferChecked of amount - fee to payTo's ATA,
 * TransferChecked of fee = floor(amount × bps / 10,000) to the treasury's ATA, a hex nonce memo.
 * That package is not published, so the layout is rebuilt here with kit rather than imported.
 */
import { beforeAll, describe, expect, test } from "bun:test";
import { type Instruction, generateKeyPairSigner } from "@solana/kit";
import { usdcOf } from "../../fixtures/payments.ts";
import { postJson } from "../settlement/support/service-harness.ts";
import { type Actors, USDC, ataOf, computeLimit, computePrice, memoInstruction, transferInstruction } from "../../fixtures/payment-builder.ts";
import { startEmbeddedService, useEmbeddedService } from "./support/embedded-service.ts";
import { expectRefusedOnBoth, fundedActors, paymentOn } from "./support/payments.ts";

const AMOUNT = 1_000_000n;
const BPS = 300;
const FEE = (AMOUNT * BigInt(BPS)) / 10_000n; // 30,000
const PAYEE = AMOUNT - FEE;

const treasury = (await generateKeyPairSigner()).address;
const rig = useEmbeddedService({ PROTOCOL_FEE_TREASURY: treasury, PROTOCOL_FEE_BPS: String(BPS) });
beforeAll(async () => {
  await rig.ledger.setTokenAccount(treasury, USDC, { amount: 0n });
});

const parties = (fund = AMOUNT): Promise<Actors> => fundedActors(rig.ledger, fund);

const nonce = () => memoInstruction([...crypto.getRandomValues(new Uint8Array(16))].map((b) => b.toString(16).padStart(2, "0")).join(""));

/** The x84 layout with the given transfers in place of the two. */
const x84Layout = (transfers: Instruction[]): Instruction[] => [computeLimit(40_000), computePrice(500_000n), ...transfers, nonce()];

async function x84Body(actors: Actors, transfers: Instruction[], extra: Record<string, unknown> = { treasury, protocolFeeBps: BPS }) {
  return (await paymentOn(rig, actors, x84Layout(transfers), { amount: AMOUNT, extra })).body;
}

const toPayee = (actors: Actors, amount = PAYEE) => transferInstruction(actors, { amount });
const toTreasury = async (actors: Actors, amount = FEE) => transferInstruction(actors, { amount, destination: await ataOf(treasury) });

/** Refused with `reason` on /verify and /settle alike; the /verify message, for the tests that read it. */
async function expectRefused(body: Readonly<Record<string, unknown>>, reason: string): Promise<string> {
  const [verified] = await expectRefusedOnBoth(rig.service.facilitatorApp, body, reason);
  return String(verified.body["invalidMessage"]);
}

describe("protocol-fee split (whole service, embedded ledger, real SPL Token)", () => {
  test("the x84 client's payment verifies and settles: payTo gets amount - fee, the treasury the fee, the payer pays the amount", async () => {
    const actors = await parties();
    const treasuryBefore = await usdcOf(rig.ledger, treasury);
    const body = await x84Body(actors, [await toPayee(actors), await toTreasury(actors)]);
    expect((await postJson(rig.service.facilitatorApp, "/verify", body)).body).toMatchObject({ isValid: true, payer: actors.payer.address });
    expect((await postJson(rig.service.facilitatorApp, "/settle", body)).body).toMatchObject({ success: true, payer: actors.payer.address });
    expect(await usdcOf(rig.ledger, actors.payTo.address)).toBe(PAYEE);
    expect((await usdcOf(rig.ledger, treasury)) - treasuryBefore).toBe(FEE);
    expect(await usdcOf(rig.ledger, actors.payer.address)).toBe(0n);
  });

  test("requirements naming another treasury, or another bps, get no split: two transfers are PROTOCOL_FEE_MISMATCH, saying which split is expected (issue 25)", async () => {
    const actors = await parties();
    const transfers = [await toPayee(actors), await toTreasury(actors)];
    const otherTreasury = (await generateKeyPairSigner()).address;
    const expected = `expected extra.treasury "${treasury}" and extra.protocolFeeBps ${BPS}`;
    const wrongTreasury = await expectRefused(await x84Body(actors, transfers, { treasury: otherTreasury, protocolFeeBps: BPS }), "PROTOCOL_FEE_MISMATCH");
    expect(wrongTreasury).toContain(expected);
    expect(wrongTreasury).toContain(`extra.treasury "${otherTreasury}"`);
    const wrongBps = await expectRefused(await x84Body(actors, transfers, { treasury, protocolFeeBps: 299 }), "PROTOCOL_FEE_MISMATCH");
    expect(wrongBps).toContain("extra.protocolFeeBps 299");
    expect(wrongBps).toContain(expected);
    // The x84 client's built-in treasury and 300 bps when `extra` is silent: nobody agreed to them.
    expect(await expectRefused(await x84Body(actors, transfers, {}), "PROTOCOL_FEE_MISMATCH")).toContain("extra.treasury absent and extra.protocolFeeBps absent");
  });

  test("a wrong split: a smaller payment is AMOUNT_MISMATCH; the right payment with a fee off the bps is PROTOCOL_FEE_MISMATCH", async () => {
    const actors = await parties();
    await expectRefused(await x84Body(actors, [await toPayee(actors, PAYEE - 1n), await toTreasury(actors, FEE + 1n)]), "AMOUNT_MISMATCH");
    await expectRefused(await x84Body(actors, [await toTreasury(actors), await toPayee(actors)]), "AMOUNT_MISMATCH");
    const smallFee = await expectRefused(await x84Body(actors, [await toPayee(actors), await toTreasury(actors, FEE - 1n)]), "PROTOCOL_FEE_MISMATCH");
    expect(smallFee).toContain(`expected a protocol fee of ${FEE} (${BPS} bps of ${AMOUNT})`);
    expect(smallFee).toContain(`received ${FEE - 1n}`);
  });

  test("three transfers, or the payment alone, are TRANSFER_INSTRUCTION_COUNT", async () => {
    const actors = await parties();
    await expectRefused(await x84Body(actors, [await toPayee(actors), await toTreasury(actors), await toTreasury(actors, 1n)]), "TRANSFER_INSTRUCTION_COUNT");
    await expectRefused(await x84Body(actors, [await toPayee(actors, AMOUNT)]), "TRANSFER_INSTRUCTION_COUNT");
  });

  test("the fee going to payTo (or anywhere but the treasury's token account) is PROTOCOL_FEE_MISMATCH, naming the treasury's account", async () => {
    const actors = await parties();
    const message = await expectRefused(await x84Body(actors, [await toPayee(actors), await toPayee(actors, FEE)]), "PROTOCOL_FEE_MISMATCH");
    expect(message).toContain(`treasury ${treasury}'s token account ${await ataOf(treasury)}`);
  });

  test("a fee paid from another source is refused", async () => {
    const actors = await parties();
    const other = await parties();
    const feeFromOther = await transferInstruction({ ...actors, payer: other.payer }, { amount: FEE, destination: await ataOf(treasury) });
    const body = await x84Body(actors, [await toPayee(actors), feeFromOther]);
    expect((await postJson(rig.service.facilitatorApp, "/settle", body)).body).toMatchObject({ success: false, transaction: "" });
  });

  test("funds are checked for the whole amount, fee included, before signing", async () => {
    const actors = await parties(AMOUNT - 1n);
    await expectRefused(await x84Body(actors, [await toPayee(actors), await toTreasury(actors)]), "INSUFFICIENT_FUNDS");
  });
});

describe("protocol-fee split not configured (the default)", () => {
  test("the x84 client's two transfers are refused as PROTOCOL_FEE_MISMATCH: the spec allows exactly one, and no fee is configured (issue 25)", async () => {
    const plain = await startEmbeddedService();
    try {
      const actors = await fundedActors(plain.ledger, AMOUNT);
      const transfers = [await toPayee(actors), await toTreasury(actors)];
      const { body } = await paymentOn(plain, actors, x84Layout(transfers), { amount: AMOUNT, extra: { treasury, protocolFeeBps: BPS } });
      const verified = (await postJson(plain.service.facilitatorApp, "/verify", body)).body;
      expect(verified).toMatchObject({ isValid: false, invalidReason: "PROTOCOL_FEE_MISMATCH" });
      expect(verified["invalidMessage"]).toContain(`this facilitator takes no protocol fee: expected exactly 1 TransferChecked of ${AMOUNT} to payTo`);
      expect((await postJson(plain.service.facilitatorApp, "/settle", body)).body).toMatchObject({ success: false, errorReason: "PROTOCOL_FEE_MISMATCH" });
    } finally {
      await plain.service.dispose();
    }
  });
});
