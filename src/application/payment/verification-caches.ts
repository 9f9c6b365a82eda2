import { type AtaDeriver, createAtaDeriver } from "../../domain/payment/associated-token-account.ts";
import { type VerificationKeyCache, createVerificationKeyCache } from "../../domain/verification/signature-checks.ts";
import { type TokenAccountViews, createTokenAccountViews } from "./token-accounts.ts";
import type { Ledger } from "../ports/ledger.ts";
import { type BlockhashCheck, createSharedBlockhashCheck } from "./shared-blockhash-check.ts";
import { type MintReader, createMintReader } from "./mint-reader.ts";

export type VerificationCaches = Readonly<{
  atas: AtaDeriver;
  verificationKeys: VerificationKeyCache;
  tokenViews: TokenAccountViews;
  blockhashCheck: BlockhashCheck;
  mints: MintReader;
}>;

/**
 * The per-process state /verify and /settle share, in one place so every composition (the
 * service, the benches) wires the same: without them each request derives its ATAs (about
 * 0.7 ms of SHA-256), imports the payer's key and decodes token accounts afresh.
 */
export function createVerificationCaches(ledger: Ledger): VerificationCaches {
  return {
    atas: createAtaDeriver(),
    verificationKeys: createVerificationKeyCache(),
    // Settlements batched together share account snapshots, decoded once.
    tokenViews: createTokenAccountViews(),
    // Concurrent verifications of one blockhash share a single isBlockhashValid call.
    blockhashCheck: createSharedBlockhashCheck(ledger),
    // Each accepted mint's token program, decimals and extensions, read once (Token-2022: per TTL).
    mints: createMintReader(ledger),
  };
}
