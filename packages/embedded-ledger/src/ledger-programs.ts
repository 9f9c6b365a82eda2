import type { Address } from "@solana/kit";
import type { LedgerProgram } from "./embedded-ledger.ts";

/**
 * A program list as the LEDGER_PROGRAMS setting writes it: `<programId>=<path.so>,...`. The host
 * validates the setting's pattern; a path that is not a program binary stops createEmbeddedLedger.
 */
export function parseLedgerPrograms(setting: string | undefined): readonly LedgerProgram[] {
  if (setting === undefined || setting.trim() === "") return [];
  return setting.split(",").map((entry) => {
    const at = entry.indexOf("=");
    return Object.freeze({ programId: entry.slice(0, at).trim() as Address, path: entry.slice(at + 1).trim() });
  });
}
