import { afterAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { generateKeyPairSigner, type Address } from "@solana/kit";
import { parseLedgerPrograms } from "../src/index.ts";
import { createTestLedger, signedWire } from "./support/fixtures.ts";

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
    const source = createTestLedger();
    const elf = source.readAccount(MEMO_V1)?.data;
    expect(elf?.subarray(0, 4)).toEqual(new Uint8Array([0x7f, 0x45, 0x4c, 0x46]));
    const path = join(dir, "memo.so");
    writeFileSync(path, elf ?? new Uint8Array());
    const programId = (await generateKeyPairSigner()).address;

    const ledger = createTestLedger({ programs: [{ programId, path }] });
    expect(ledger.readAccount(programId)?.executable).toBe(true);
    const payer = await generateKeyPairSigner();
    await ledger.airdrop(payer.address, 1_000_000_000n);
    const blockhash = ledger.latestBlockhash();
    const wire = await signedWire(payer, blockhash, [{ programAddress: programId, data: new TextEncoder().encode("hello from a loaded program") }]);
    const simulation = ledger.simulate(wire, { sigVerify: true });
    if (!simulation.ok) throw new Error(simulation.refusal.message);
    expect(simulation.detail.err).toBeNull();
    expect(simulation.detail.logs).toContain(`Program ${programId} success`);
    // The program's own logic runs: the memo program refuses bytes that are not UTF-8.
    const invalid = ledger.simulate(await signedWire(payer, blockhash, [{ programAddress: programId, data: new Uint8Array([0xff, 0xfe]) }]), { sigVerify: true });
    expect(invalid.ok && invalid.detail.err === null).toBe(false);
  });

  test("a missing file or a file that is not a program stops the boot naming the setting", () => {
    const notElf = join(dir, "not-a-program.so");
    writeFileSync(notElf, "just text");
    expect(() => createTestLedger({ programs: [{ programId: MEMO_V1, path: join(dir, "missing.so") }] })).toThrow("LEDGER_PROGRAMS");
    expect(() => createTestLedger({ programs: [{ programId: MEMO_V1, path: notElf }] })).toThrow("not an ELF program binary");
  });
});
