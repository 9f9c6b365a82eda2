/**
 * SECURITY: what the config authority will sign (domain check, kit-built messages). The route never
 * lets a client choose these shapes; the check is the last guard before a KMS/HSM signature, so a
 * bug upstream can never make our key pay, or sign anything but one register_agent.
 */
import { describe, expect, test } from "bun:test";
import {
  AccountRole,
  type Address,
  type Instruction,
  appendTransactionMessageInstructions,
  compileTransaction,
  getCompiledTransactionMessageDecoder,
  getCompiledTransactionMessageEncoder,
  createTransactionMessage,
  generateKeyPairSigner,
  pipe,
  setTransactionMessageFeePayer,
  setTransactionMessageLifetimeUsingBlockhash,
  blockhash,
} from "@solana/kit";
import { registerAgentInstruction } from "../../../src/domain/registry/register-agent.ts";
import { checkRegistrationMessage } from "../../../src/domain/registry/registration-message-check.ts";
import { systemTransferInstruction } from "../../../fixtures/payment-builder.ts";

const PROGRAM_ID = "X84XXXZsWXpanM5UzshMKZH4wUbeFNcxPWnFyTBgRP5" as Address;

describe("checkRegistrationMessage (pure, kit-built messages)", async () => {
  const [owner, authority, asset, stranger, agent, collection, treasury, config] = await Promise.all(
    Array.from({ length: 8 }, () => generateKeyPairSigner()),
  );
  const expected = {
    programId: PROGRAM_ID,
    config: config!.address,
    configAuthority: authority!.address,
    agentIdentity: agent!.address,
    owner: owner!.address,
    asset: asset!.address,
    collection: collection!.address,
    feeTreasury: treasury!.address,
  };
  const register = (overrides: Partial<Record<"owner" | "configAuthority" | "collection" | "feeTreasury", Address>> = {}, name = "A") =>
    registerAgentInstruction(
      PROGRAM_ID,
      {
        config: config!.address,
        configAuthority: overrides.configAuthority ?? authority!.address,
        agentIdentity: agent!.address,
        owner: overrides.owner ?? owner!.address,
        asset: asset!.address,
        collection: overrides.collection ?? collection!.address,
        feeTreasury: overrides.feeTreasury ?? treasury!.address,
      },
      { name, metadataUri: "https://a.example/a.json", metadataHash: new Uint8Array(32), feedbackAuthority: owner!.address, tags: [] },
    );
  const message = (feePayer: Address, instructions: Instruction[], version: 0 | "legacy" = "legacy") =>
    compileTransaction(
      pipe(
        createTransactionMessage({ version }),
        (m) => setTransactionMessageFeePayer(feePayer, m),
        (m) => setTransactionMessageLifetimeUsingBlockhash({ blockhash: blockhash("EtWTRABZaYq6iMfeYKouRu166VU2xqa1wcuWFUBDuyi"), lastValidBlockHeight: 10n }, m),
        (m) => appendTransactionMessageInstructions(instructions, m),
      ),
    ).messageBytes;

  test("the one shape it signs: register_agent alone, paid by the owner (legacy or v0)", () => {
    expect(checkRegistrationMessage(message(owner!.address, [register()]), expected)).toBeNull();
    expect(checkRegistrationMessage(message(owner!.address, [register()], 0), expected)).toBeNull();
  });

  test("a fee payer other than the owner is refused: the config authority itself, or a third party", () => {
    expect(checkRegistrationMessage(message(authority!.address, [register()]), expected)).toContain("fee payer");
    expect(checkRegistrationMessage(message(stranger!.address, [register()]), expected)).toContain("fee payer");
  });

  test("an owner equal to the config authority is refused", () => {
    const same = { ...expected, owner: authority!.address };
    expect(checkRegistrationMessage(message(authority!.address, [register({ owner: authority!.address })]), same)).toContain("owner");
  });

  test("anything riding along is refused: a System transfer out of the config authority, a second register_agent", () => {
    const drain = systemTransferInstruction(authority!.address, stranger!.address, 1_000_000_000n);
    expect(checkRegistrationMessage(message(owner!.address, [register(), drain]), expected)).not.toBeNull();
    expect(checkRegistrationMessage(message(owner!.address, [drain]), expected)).not.toBeNull();
    expect(checkRegistrationMessage(message(owner!.address, [register(), register()]), expected)).not.toBeNull();
  });

  test("the config authority in any other account slot (as treasury, say) is refused", () => {
    const asTreasury = register({ feeTreasury: authority!.address });
    expect(checkRegistrationMessage(message(owner!.address, [asTreasury]), expected)).toContain("config authority");
  });

  test("another program, or data that is not register_agent, is refused", () => {
    const other: Instruction = { ...register(), programAddress: stranger!.address };
    expect(checkRegistrationMessage(message(owner!.address, [other]), expected)).toContain("registry program");
    const garbage: Instruction = { ...register(), data: new Uint8Array([1, 2, 3]) };
    expect(checkRegistrationMessage(message(owner!.address, [garbage]), expected)).toContain("register_agent");
  });

  test("an extra signer is refused", () => {
    const withSigner: Instruction = { ...register(), accounts: [...(register().accounts ?? []), { address: stranger!.address, role: AccountRole.READONLY_SIGNER }] };
    expect(checkRegistrationMessage(message(owner!.address, [withSigner]), expected)).not.toBeNull();
  });

  test("every slot must hold the expected address: a collection or treasury other than the config's is refused", () => {
    expect(checkRegistrationMessage(message(owner!.address, [register({ collection: stranger!.address })]), expected)).toContain("collection");
    expect(checkRegistrationMessage(message(owner!.address, [register({ feeTreasury: stranger!.address })]), expected)).toContain("feeTreasury");
  });

  test("every slot must have the IDL's writable and signer flags: a writable config, a read-only treasury or collection are refused", () => {
    const withRole = (slot: number, role: AccountRole): Instruction => ({
      ...register(),
      accounts: (register().accounts ?? []).map((account, i) => (i === slot ? { ...account, role } : account)),
    });
    expect(checkRegistrationMessage(message(owner!.address, [withRole(0, AccountRole.WRITABLE)]), expected)).toContain("(config) does not have the writable and signer flags");
    expect(checkRegistrationMessage(message(owner!.address, [withRole(5, AccountRole.READONLY)]), expected)).toContain("(collection)");
    expect(checkRegistrationMessage(message(owner!.address, [withRole(6, AccountRole.READONLY)]), expected)).toContain("(feeTreasury)");
    expect(checkRegistrationMessage(message(owner!.address, [withRole(2, AccountRole.READONLY)]), expected)).toContain("(agentIdentity)");
    expect(checkRegistrationMessage(message(owner!.address, [withRole(8, AccountRole.WRITABLE)]), expected)).toContain("(systemProgram)");
  });

  test("the owner merged into another slot (the treasury) is refused: that slot would be a writable signer", () => {
    const merged = { ...expected, feeTreasury: owner!.address };
    expect(checkRegistrationMessage(message(owner!.address, [register({ feeTreasury: owner!.address })]), merged)).toContain("(feeTreasury)");
  });

  test("an account the instruction does not use is refused (a hand-made message: kit never lists one)", () => {
    const compiled = getCompiledTransactionMessageDecoder().decode(message(owner!.address, [register()]));
    const padded = {
      ...compiled,
      header: { ...compiled.header, numReadonlyNonSignerAccounts: compiled.header.numReadonlyNonSignerAccounts + 1 },
      staticAccounts: [...compiled.staticAccounts, stranger!.address],
    };
    const bytes = getCompiledTransactionMessageEncoder().encode(padded);
    expect(checkRegistrationMessage(bytes, expected)).toContain("does not use");
  });

  test("a transaction over the 1,232-byte packet limit once signed is refused; the largest valid request fits", () => {
    expect(checkRegistrationMessage(message(owner!.address, [register({}, "n".repeat(900))]), expected)).toContain("packet limit");
    expect(checkRegistrationMessage(message(owner!.address, [register({}, "n".repeat(64))]), expected)).toBeNull();
  });

  test("bytes that are not a message are refused, never a throw", () => {
    expect(checkRegistrationMessage(new Uint8Array([0xff, 1, 2]), expected)).not.toBeNull();
  });
});
