import { afterAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type Address, type Blockhash, generateKeyPairSigner } from "@solana/kit";
import { createEmbeddedLedger } from "../../src/infrastructure/ledger/embedded/embedded-ledger.ts";
import { parseLedgerPrograms } from "../../src/infrastructure/ledger/embedded/ledger-programs.ts";
import { buildTransaction, type Actors } from "../verification/support/payment-builder.ts";

/**
 * LEDGER_PROGRAMS on the real embedded ledger (litesvm). The binary deployed is a real sBPF program:
 * the SPL Memo v1 program, whose account data under the BPF loader v2 is its ELF, read from a
 * first ledger, written to a file and deployed at a fresh address on a second one.
 */
const dir = mkdtempSync(join(tmpdir(), "ledger-programs-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const MEMO_V1 = "Memo1UhkJRfHyvLMcVucJwxXeuD728EqVDDwQDxFMNo" as Address;

describe("LEDGER_PROGRAMS (embedded litesvm ledger, a real program binary)", () => {
  test("parses `<programId>=<path>,...`", () => {
    expect(parseLedgerPrograms(undefined)).toEqual([]);
    expect(parseLedgerPrograms(`${MEMO_V1}=/a/b.so,X84XXXZsWXpanM5UzshMKZH4wUbeFNcxPWnFyTBgRP5=/c=d.so`)).toEqual([
      { programId: MEMO_V1, path: "/a/b.so" },
      { programId: "X84XXXZsWXpanM5UzshMKZH4wUbeFNcxPWnFyTBgRP5" as Address, path: "/c=d.so" },
    ]);
  });

  test("a deployed binary executes at its new address", async () => {
    const source = createEmbeddedLedger();
    const elf = (await source.getAccount(MEMO_V1))?.data;
    expect(elf?.subarray(0, 4)).toEqual(new Uint8Array([0x7f, 0x45, 0x4c, 0x46]));
    const path = join(dir, "memo.so");
    writeFileSync(path, elf ?? new Uint8Array());
    const programId = (await generateKeyPairSigner()).address;

    const ledger = createEmbeddedLedger({ programs: [{ programId, path }] });
    expect((await ledger.getAccount(programId))?.executable).toBe(true);
    const payer = await generateKeyPairSigner();
    await ledger.airdrop(payer.address, 1_000_000_000n);
    const actors: Actors = { payer, payTo: payer, feePayer: payer };
    const { blockhash } = await ledger.getLatestBlockhash();
    const wire = await buildTransaction(actors, {
      signAsFeePayer: true,
      blockhash: blockhash as Blockhash,
      instructions: [{ programAddress: programId, data: new TextEncoder().encode("hello from a loaded program") }],
    });
    const simulation = await ledger.simulateTransaction(new Uint8Array(Buffer.from(wire, "base64")), { sigVerify: true });
    expect(simulation.ok).toBe(true);
    expect(simulation.logs).toContain(`Program ${programId} success`);
    // The program's own logic runs: the memo program refuses bytes that are not UTF-8.
    const invalid = await buildTransaction(actors, {
      signAsFeePayer: true,
      blockhash: blockhash as Blockhash,
      instructions: [{ programAddress: programId, data: new Uint8Array([0xff, 0xfe]) }],
    });
    expect((await ledger.simulateTransaction(new Uint8Array(Buffer.from(invalid, "base64")), { sigVerify: true })).ok).toBe(false);
  });

  test("a missing file or a file that is not a program stops the boot naming the setting", () => {
    const notElf = join(dir, "not-a-program.so");
    writeFileSync(notElf, "just text");
    expect(() => createEmbeddedLedger({ programs: [{ programId: MEMO_V1, path: join(dir, "missing.so") }] })).toThrow("LEDGER_PROGRAMS");
    expect(() => createEmbeddedLedger({ programs: [{ programId: MEMO_V1, path: notElf }] })).toThrow("not an ELF program binary");
  });
});
