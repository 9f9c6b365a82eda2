import { describe, expect, test } from "bun:test";
import type { Address } from "@solana/kit";
import { getMintEncoder as getSplMintEncoder, TOKEN_PROGRAM_ADDRESS } from "@solana-program/token";
import {
  AccountState,
  type ExtensionArgs,
  extension,
  findAssociatedTokenPda,
  getMintEncoder,
  getTokenEncoder,
  getTransferCheckedInstruction,
  getTransferCheckedWithFeeInstruction,
  TOKEN_2022_PROGRAM_ADDRESS,
} from "@solana-program/token-2022";
import { checkMintPolicy, DEFAULT_TOKEN_2022_POLICY, type Token2022Policy } from "../../../src/domain/token/mint-policy.ts";
import { decodeMintAccount, type MintView } from "../../../src/domain/token/mint-view.ts";
import { certainFee, feeUnder } from "../../../src/domain/token/transfer-fee.ts";
import { createAtaDeriver } from "../../../src/domain/payment/associated-token-account.ts";
import { verifyPaymentTransaction } from "../../../src/domain/verification/verify-transaction.ts";
import { DEFAULT_VERIFICATION_POLICY } from "../../../src/domain/verification/verification-policy.ts";
import { buildTransaction, computeLimit, computePrice, createActors, memoInstruction, requirementsFor } from "../../../fixtures/payment-builder.ts";

const MINT = "9ijBxK1bMz1FNfGwQ4yFcD9vBrCzdHZFjCZkmsdXnZfq" as Address;
const OTHER = "BPFLoaderUpgradeab1e11111111111111111111111" as Address;
const UNSET = "11111111111111111111111111111111" as Address;

/** Real Token-2022 mint bytes (base mint, padding, account type, TLV extensions), as kit's codec writes them. */
function token2022Mint(extensions: ExtensionArgs[], decimals = 6): Uint8Array {
  return new Uint8Array(getMintEncoder().encode({ mintAuthority: null, supply: 1_000_000n, decimals, isInitialized: true, freezeAuthority: null, extensions }));
}

function mintView(extensions: ExtensionArgs[]): MintView {
  const view = decodeMintAccount({ address: MINT, owner: TOKEN_2022_PROGRAM_ADDRESS, data: token2022Mint(extensions) });
  if (view === null) throw new Error("crafted mint did not decode");
  return view;
}

const fee = (bps: number, max: bigint) => ({ epoch: 0n, maximumFee: max, transferFeeBasisPoints: bps });
const transferFee = (bps: number, max = 1_000_000n, newer = fee(bps, max)): ExtensionArgs =>
  extension("TransferFeeConfig", { transferFeeConfigAuthority: OTHER, withdrawWithheldAuthority: OTHER, withheldAmount: 0n, olderTransferFee: fee(bps, max), newerTransferFee: newer });

const GROSS_UP: Token2022Policy = { transferFee: "gross-up", allowPermanentDelegate: new Set() };

describe("reading a mint (pure, crafted bytes)", () => {
  test("the owner decides the token program; decimals come from the bytes", () => {
    const spl = new Uint8Array(getSplMintEncoder().encode({ mintAuthority: null, supply: 0n, decimals: 2, isInitialized: true, freezeAuthority: null }));
    expect(decodeMintAccount({ address: MINT, owner: TOKEN_PROGRAM_ADDRESS, data: spl })).toEqual({ address: MINT, tokenProgram: TOKEN_PROGRAM_ADDRESS, decimals: 2, extensions: [] });
    expect(decodeMintAccount({ address: MINT, owner: TOKEN_2022_PROGRAM_ADDRESS, data: spl })).toMatchObject({ tokenProgram: TOKEN_2022_PROGRAM_ADDRESS, extensions: [] });
    expect(mintView([extension("NonTransferable", {})]).extensions.map((e) => e.__kind)).toEqual(["NonTransferable"]);
  });

  test("mint-shaped bytes owned by any other program, token accounts, uninitialized mints and unknown extensions are not mints", () => {
    const bytes = token2022Mint([extension("NonTransferable", {})]);
    expect(decodeMintAccount({ address: MINT, owner: OTHER, data: bytes })).toBeNull();
    expect(decodeMintAccount(null)).toBeNull();
    const account = new Uint8Array(getTokenEncoder().encode({ mint: MINT, owner: OTHER, amount: 5n, delegate: null, state: AccountState.Initialized, isNative: null, delegatedAmount: 0n, closeAuthority: null, extensions: [extension("ImmutableOwner", {})] }));
    expect(decodeMintAccount({ address: MINT, owner: TOKEN_2022_PROGRAM_ADDRESS, data: account })).toBeNull();
    const uninitialized = new Uint8Array(getMintEncoder().encode({ mintAuthority: null, supply: 0n, decimals: 6, isInitialized: false, freezeAuthority: null, extensions: null }));
    expect(decodeMintAccount({ address: MINT, owner: TOKEN_2022_PROGRAM_ADDRESS, data: uninitialized })).toBeNull();
    // Extension type 40 does not exist (yet): its effect on a transfer is unknown.
    const unknown = new Uint8Array([...bytes, 40, 0, 2, 0, 1, 2]);
    expect(decodeMintAccount({ address: MINT, owner: TOKEN_2022_PROGRAM_ADDRESS, data: unknown })).toBeNull();
    // A TransferHook entry (64 bytes) cut short: a hook we cannot read is not a hook we may ignore.
    const hook = token2022Mint([extension("TransferHook", { authority: OTHER, programId: OTHER })]);
    expect(decodeMintAccount({ address: MINT, owner: TOKEN_2022_PROGRAM_ADDRESS, data: hook.subarray(0, 200) })).toBeNull();
  });
});

describe("the Token-2022 extension policy (pure, one row of issue 24's table per test)", () => {
  const check = (extensions: ExtensionArgs[], amounts: readonly bigint[] = [1_000n], policy = DEFAULT_TOKEN_2022_POLICY) =>
    checkMintPolicy(mintView(extensions), amounts, policy)?.reason ?? null;

  test("transfer fee: refused unless the fee on this amount is 0; gross-up leaves it to the transaction", () => {
    expect(check([transferFee(100)])).toBe("TRANSFER_FEE_NOT_ALLOWED");
    expect(check([transferFee(0)])).toBeNull();
    expect(check([transferFee(100, 0n)])).toBeNull(); // a maximum fee of 0
    expect(check([transferFee(0, 0n, fee(50, 10n))])).toBe("TRANSFER_FEE_NOT_ALLOWED"); // the newer schedule charges
    expect(check([transferFee(100)], [1_000n, 10n])).toBe("TRANSFER_FEE_NOT_ALLOWED"); // the protocol fee's transfer too
    expect(check([transferFee(100)], [1_000n], GROSS_UP)).toBeNull();
  });

  test("transfer hook: refused when a program is set, fine when unset", () => {
    expect(check([extension("TransferHook", { authority: OTHER, programId: OTHER })])).toBe("TRANSFER_HOOK_NOT_ALLOWED");
    expect(check([extension("TransferHook", { authority: OTHER, programId: UNSET })])).toBeNull();
  });

  test("permanent delegate: refused unless the mint is in TOKEN_2022_ALLOW_PERMANENT_DELEGATE", () => {
    const delegate = [extension("PermanentDelegate", { delegate: OTHER })];
    expect(check(delegate)).toBe("PERMANENT_DELEGATE_NOT_ALLOWED");
    expect(check(delegate, [1_000n], { transferFee: "refuse", allowPermanentDelegate: new Set([MINT]) })).toBeNull();
    expect(check([extension("PermanentDelegate", { delegate: UNSET })])).toBeNull();
  });

  test("non-transferable, default-frozen and paused mints are not transferable; default-initialized and resumed ones are", () => {
    expect(check([extension("NonTransferable", {})])).toBe("MINT_NOT_TRANSFERABLE");
    expect(check([extension("DefaultAccountState", { state: AccountState.Frozen })])).toBe("MINT_NOT_TRANSFERABLE");
    expect(check([extension("DefaultAccountState", { state: AccountState.Initialized })])).toBeNull();
    expect(check([extension("PausableConfig", { authority: OTHER, paused: true })])).toBe("MINT_NOT_TRANSFERABLE");
    expect(check([extension("PausableConfig", { authority: OTHER, paused: false })])).toBeNull();
  });

  test("confidential transfer: a mint that merely allows it is fine", () => {
    expect(check([extension("ConfidentialTransferMint", { authority: null, autoApproveNewAccounts: true, auditorElgamalPubkey: null })])).toBeNull();
  });

  test("interest-bearing, metadata pointer, metadata, group pointer and mint close authority change nothing", () => {
    expect(
      check([
        extension("MintCloseAuthority", { closeAuthority: OTHER }),
        extension("InterestBearingConfig", { rateAuthority: OTHER, initializationTimestamp: 0n, preUpdateAverageRate: 500, lastUpdateTimestamp: 0n, currentRate: 500 }),
        extension("MetadataPointer", { authority: null, metadataAddress: MINT }),
        extension("GroupPointer", { authority: null, groupAddress: MINT }),
        extension("TokenMetadata", { updateAuthority: null, mint: MINT, name: "Coin", symbol: "C", uri: "", additionalMetadata: new Map() }),
      ]),
    ).toBeNull();
  });

  test("an account-level extension inside a mint is refused (deny by default)", () => {
    expect(check([extension("ImmutableOwner", {})])).toBe("UNSUPPORTED_ASSET");
  });

  test("Token-2022's fee arithmetic: ceiling of amount x bps / 10,000, capped; a fee the two schedules disagree on is uncertain", () => {
    expect(feeUnder(fee(100, 1_000n), 1_000n)).toBe(10n);
    expect(feeUnder(fee(1, 1_000n), 1n)).toBe(1n); // rounds up
    expect(feeUnder(fee(5_000, 7n), 1_000n)).toBe(7n);
    expect(certainFee({ older: fee(0, 0n), newer: fee(100, 100n) }, 1_000n)).toBeNull();
    expect(certainFee(null, 1_000n)).toBe(0n);
  });
});

describe("a Token-2022 transaction against its mint (pure)", async () => {
  const actors = await createActors();
  const ata = async (owner: Address, program: Address = TOKEN_2022_PROGRAM_ADDRESS) => (await findAssociatedTokenPda({ owner, mint: MINT, tokenProgram: program }))[0];
  const requirements = requirementsFor(actors, { asset: MINT, amount: 1_000n });
  const verify = (transaction: string, extensions: ExtensionArgs[] = [], policy = DEFAULT_TOKEN_2022_POLICY) =>
    verifyPaymentTransaction({ transaction, requirements, feePayers: [actors.feePayer.address], policy: DEFAULT_VERIFICATION_POLICY, assetDecimals: 6, atas: createAtaDeriver(), mint: mintView(extensions), token2022: policy });
  const plain = async (options: Readonly<{ program?: Address; destination?: Address; amount?: bigint }> = {}) =>
    getTransferCheckedInstruction(
      { source: await ata(actors.payer.address), mint: MINT, destination: options.destination ?? (await ata(actors.payTo.address)), authority: actors.payer, amount: options.amount ?? 1_000n, decimals: 6 },
      { programAddress: (options.program ?? TOKEN_2022_PROGRAM_ADDRESS) as typeof TOKEN_2022_PROGRAM_ADDRESS },
    );
  const withFee = async (amount: bigint, stated: bigint) =>
    getTransferCheckedWithFeeInstruction({ source: await ata(actors.payer.address), mint: MINT, destination: await ata(actors.payTo.address), authority: actors.payer, amount, decimals: 6, fee: stated });
  const tx = async (transfer: Awaited<ReturnType<typeof plain>> | Awaited<ReturnType<typeof withFee>>) =>
    buildTransaction(actors, { instructions: [computeLimit(20_000), computePrice(1n), transfer, memoInstruction()] });

  test("TransferChecked through Token-2022 to payTo's Token-2022 associated account passes", async () => {
    expect(await verify(await tx(await plain()))).toMatchObject({ ok: true });
  });

  test("SECURITY: the transfer must call the mint's own program (SPL Token for a Token-2022 mint: DISALLOWED_PROGRAM)", async () => {
    expect(await verify(await tx(await plain({ program: TOKEN_PROGRAM_ADDRESS })))).toMatchObject({ ok: false, rejection: { reason: "DISALLOWED_PROGRAM" } });
  });

  test("SECURITY: the destination is payTo's associated account for Token-2022, not the SPL Token one", async () => {
    const splAta = await ata(actors.payTo.address, TOKEN_PROGRAM_ADDRESS);
    expect(await verify(await tx(await plain({ destination: splAta })))).toMatchObject({ ok: false, rejection: { reason: "RECIPIENT_MISMATCH" } });
  });

  test("TransferCheckedWithFee is refused unless TOKEN_2022_TRANSFER_FEE=gross-up", async () => {
    expect(await verify(await tx(await withFee(1_011n, 11n)), [transferFee(100)])).toMatchObject({ ok: false, rejection: { reason: "UNEXPECTED_TOKEN_INSTRUCTION" } });
  });

  test("gross-up: the payee must receive the amount, and the stated fee must be the mint's", async () => {
    // 1% of 1,011 rounds up to 11: the payee receives 1,000.
    expect(await verify(await tx(await withFee(1_011n, 11n)), [transferFee(100)], GROSS_UP)).toMatchObject({ ok: true });
    expect(await verify(await tx(await withFee(1_000n, 10n)), [transferFee(100)], GROSS_UP)).toMatchObject({ ok: false, rejection: { reason: "AMOUNT_MISMATCH" } });
    expect(await verify(await tx(await withFee(1_010n, 10n)), [transferFee(100)], GROSS_UP)).toMatchObject({ ok: false, rejection: { reason: "AMOUNT_MISMATCH" } });
    // A plain TransferChecked of a fee-bearing mint still leaves the payee short.
    expect(await verify(await tx(await plain()), [transferFee(100)], GROSS_UP)).toMatchObject({ ok: false, rejection: { reason: "TRANSFER_FEE_NOT_ALLOWED" } });
    // No fee configured: nothing to gross up.
    expect(await verify(await tx(await withFee(1_000n, 0n)), [], GROSS_UP)).toMatchObject({ ok: false, rejection: { reason: "UNEXPECTED_TOKEN_INSTRUCTION" } });
  });

  test("the transfer's decimals are the mint's own", async () => {
    const mint = decodeMintAccount({ address: MINT, owner: TOKEN_2022_PROGRAM_ADDRESS, data: token2022Mint([], 2) });
    const verdict = await verifyPaymentTransaction({ transaction: await tx(await plain()), requirements, feePayers: [actors.feePayer.address], policy: DEFAULT_VERIFICATION_POLICY, assetDecimals: 6, atas: createAtaDeriver(), ...(mint ? { mint } : {}) });
    expect(verdict).toMatchObject({ ok: false, rejection: { reason: "AMOUNT_MISMATCH" } });
  });
});

