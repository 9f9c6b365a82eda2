import type { SettlementDraft } from "../../src/application/ports/settlement-store.ts";

/** Unique per call, so tests sharing one database never collide. */
export function uniqueId(prefix = ""): string {
  return `${prefix}${crypto.randomUUID().replaceAll("-", "")}`;
}

/** A valid draft with fresh key and paymentId; override what the test is about. */
export function draft(overrides: Partial<SettlementDraft> = {}): SettlementDraft {
  return {
    key: uniqueId("k"),
    paymentId: uniqueId("p"),
    payer: "PayerWa11et1111111111111111111111111111111",
    payTo: "PayTo111111111111111111111111111111111111",
    asset: "4zMMC9srt5Ri5X14GAgXhaHii3GnPAEERYPJgZJDncDU",
    amount: 1_000_000n,
    network: "solana:EtWTRABZaYq6iMfeYKouRu166VU2xqa1",
    mode: "standard",
    signature: uniqueId("sig"),
    wireTransaction: "AQID",
    lastValidBlockHeight: 1_234n,
    ...overrides,
  };
}

/** The draft part of a record, for comparing what was stored with what was claimed. */
export function draftPart(record: SettlementDraft): SettlementDraft {
  return {
    key: record.key,
    paymentId: record.paymentId,
    payer: record.payer,
    payTo: record.payTo,
    asset: record.asset,
    amount: record.amount,
    network: record.network,
    mode: record.mode,
    signature: record.signature,
    wireTransaction: record.wireTransaction,
    lastValidBlockHeight: record.lastValidBlockHeight,
  };
}
