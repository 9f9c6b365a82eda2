import { receiptModePolicy } from "./receipt-mode-policy.ts";

/** Atomic: the registry program moved the tokens by CPI and wrote the receipt in the same transaction. */
export const atomicModePolicy = receiptModePolicy("atomic", ["svc-atomic", "x84-atomic"]);
