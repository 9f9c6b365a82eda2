/**
 * SECURITY: owners that can never pay for and sign their registration (pure): programs, PDAs,
 * accounts no fee can come from, and owners named as another account of the instruction.
 */
import { describe, expect, test } from "bun:test";
import { type Address, generateKeyPairSigner, getAddressEncoder, isAddress } from "@solana/kit";
import { findAgentPda, findConfigPda } from "../../../src/domain/registry/pdas.ts";
import {
  WELL_KNOWN_PROGRAMS,
  ownerAccountProblem,
  ownerAddressProblem,
  ownerSlotProblem,
} from "../../../src/domain/registry/registration-owner.ts";

const PROGRAM_ID = "X84XXXZsWXpanM5UzshMKZH4wUbeFNcxPWnFyTBgRP5" as Address;
const SYSTEM = "11111111111111111111111111111111" as Address;
const TOKEN = "TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA" as Address;

describe("ownerAddressProblem: from the address alone", () => {
  test("every well-known program id is a real 32-byte address", () => {
    for (const address of WELL_KNOWN_PROGRAMS.keys()) {
      expect({ address, valid: isAddress(address) && getAddressEncoder().encode(address).length === 32 }).toEqual({ address, valid: true });
    }
  });

  test("System, SPL Token, Token-2022, Metaplex Core and the registry program itself are refused, by name", () => {
    expect(ownerAddressProblem(SYSTEM, PROGRAM_ID)).toContain("the System program");
    expect(ownerAddressProblem(TOKEN, PROGRAM_ID)).toContain("the SPL Token program");
    expect(ownerAddressProblem("TokenzQdBNbLqP5VEhdkAS6EPFLC1PHnBqCXEpPxuEb" as Address, PROGRAM_ID)).toContain("Token-2022");
    expect(ownerAddressProblem("CoREENxT6tW1HoK8ypY1SxRMZTcVPm7R94rH4PZNhX7d" as Address, PROGRAM_ID)).toContain("Metaplex Core");
    expect(ownerAddressProblem(PROGRAM_ID, PROGRAM_ID)).toContain("the registry program itself");
  });

  test("a program-derived address (the config PDA, an agent PDA) is refused: no key signs for it", async () => {
    const [config] = await findConfigPda(PROGRAM_ID);
    const [agent] = await findAgentPda(PROGRAM_ID, (await generateKeyPairSigner()).address);
    expect(ownerAddressProblem(config, PROGRAM_ID)).toContain("off the ed25519 curve");
    expect(ownerAddressProblem(agent, PROGRAM_ID)).toContain("off the ed25519 curve");
  });

  test("a wallet's address passes", async () => {
    expect(ownerAddressProblem((await generateKeyPairSigner()).address, PROGRAM_ID)).toBeNull();
  });
});

describe("ownerAccountProblem: what the ledger holds at the address", () => {
  test("no account yet (a fresh wallet the client funds before sending) and a System-owned account pass", () => {
    expect(ownerAccountProblem(null)).toBeNull();
    expect(ownerAccountProblem({ owner: SYSTEM, executable: false })).toBeNull();
  });

  test("an executable account, or any program's account (a token account), cannot pay fees", () => {
    expect(ownerAccountProblem({ owner: "BPFLoaderUpgradeab1e11111111111111111111111" as Address, executable: true })).toContain("executable");
    expect(ownerAccountProblem({ owner: TOKEN, executable: false })).toContain(`account of program ${TOKEN}`);
  });
});

describe("ownerSlotProblem: the owner named as another account of register_agent", async () => {
  const [owner, authority, asset, agent, collection, treasury, config] = await Promise.all(Array.from({ length: 7 }, () => generateKeyPairSigner()));
  const accounts = {
    config: config!.address,
    configAuthority: authority!.address,
    agentIdentity: agent!.address,
    owner: owner!.address,
    asset: asset!.address,
    collection: collection!.address,
    feeTreasury: treasury!.address,
  };

  test("distinct accounts pass; the owner as the collection or the fee treasury is refused, by slot", () => {
    expect(ownerSlotProblem(accounts)).toBeNull();
    expect(ownerSlotProblem({ ...accounts, collection: owner!.address })).toContain("collection account");
    expect(ownerSlotProblem({ ...accounts, feeTreasury: owner!.address })).toContain("feeTreasury account");
  });
});
