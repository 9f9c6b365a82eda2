import type { Address } from "@solana/kit";
import type { LedgerProgram } from "./embedded-ledger.ts";

/** LEDGER_PROGRAMS: `<programId>=<path.so>,...` (the setting's pattern was checked at boot). */
export function parseLedgerPrograms(setting: string | undefined): readonly LedgerProgram[] {
  if (setting === undefined || setting.trim() === "") return [];
  return setting.split(",").map((entry) => {
    const at = entry.indexOf("=");
    return Object.freeze({ programId: entry.slice(0, at).trim() as Address, path: entry.slice(at + 1).trim() });
  });
}
