import { receiptModePolicy } from "./receipt-mode-policy.ts";

/** Attestation: the receipt attests a transfer made elsewhere (e.g. the x84 client's two TransferChecked). */
export const attestationModePolicy = receiptModePolicy("attestation", ["svc-attestation", "x84-attestation"]);
