/**
 * Who may be paid through this facilitator (PAYTO_POLICY). `any` is the spec's behaviour and needs
 * no port; `allowlist` and `registered-agents` answer here. A refused payTo means a stranger cannot
 * make the fee payer spend anything.
 */
export type PayToPolicy = Readonly<{
  /** Short name for messages: "allowlist", "registered-agents". */
  name: string;
  allows(payTo: string): Promise<boolean>;
}>;
