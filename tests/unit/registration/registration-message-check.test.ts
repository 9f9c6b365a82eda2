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
  createTransactionMessage,
  generateKeyPairSigner,
  pipe,
  setTransactionMessageFeePayer,
  setTransactionMessageLifetimeUsingBlockhash,
  blockhash,
} from "@solana/kit";
import { registerAgentInstruction } from "../../../src/domain/registry/register-agent.ts";
import { checkRegistrationMessage } from "../../../src/domain/registry/registration-message-check.ts";
import { systemTransferInstruction } from "../../verification/support/payment-builder.ts";

const PROGRAM_ID = "X84XXXZsWXpanM5UzshMKZH4wUbeFNcxPWnFyTBgRP5" as Address;

describe("checkRegistrationMessage (pure, kit-built messages)", async () => {
  const [owner, authority, asset, stranger, agent, collection, treasury, config] = await Promise.all(
    Array.from({ length: 8 }, () => generateKeyPairSigner()),
  );
  const expected = { programId: PROGRAM_ID, owner: owner!.address, configAuthority: authority!.address, asset: asset!.address };
  const register = (overrides: Partial<Record<"owner" | "configAuthority" | "collection" | "feeTreasury", Address>> = {}) =>
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
      { name: "A", metadataUri: "https://a.example/a.json", metadataHash: new Uint8Array(32), feedbackAuthority: owner!.address, tags: [] },
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

  test("bytes that are not a message are refused, never a throw", () => {
    expect(checkRegistrationMessage(new Uint8Array([0xff, 1, 2]), expected)).not.toBeNull();
  });
});
