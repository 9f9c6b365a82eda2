export { parseWireTransaction, type RawInstruction, type RawLookup, type RawTransaction, type WireParse } from "./wire-format.ts";
export { base58Bytes, base58Text } from "./fast-base58.ts";
export { isMemoProgram, MEMO_PROGRAM, MEMO_PROGRAMS, SYSTEM_PROGRAM } from "./programs.ts";
