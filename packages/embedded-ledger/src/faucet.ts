import {
  AccountRole,
  appendTransactionMessageInstructions,
  createKeyPairSignerFromPrivateKeyBytes,
  createTransactionMessage,
  getTransactionEncoder,
  pipe,
  setTransactionMessageFeePayerSigner,
  setTransactionMessageLifetimeUsingBlockhash,
  signTransactionMessageWithSigners,
  type Address,
  type Blockhash,
  type KeyPairSigner,
} from "@solana/kit";
import { sha256 } from "@noble/hashes/sha2.js";
import { MEMO_PROGRAM, SYSTEM_PROGRAM } from "@x84/solana-wire";

/** System program instruction index of Transfer. */
const SYSTEM_TRANSFER = 2;

// Encoded by hand (u32 index + u64 lamports) so the ledger does not depend on a transitive package.
function transferSol(faucet: KeyPairSigner, recipient: Address, lamports: bigint) {
  const data = new Uint8Array(12);
  const view = new DataView(data.buffer);
  view.setUint32(0, SYSTEM_TRANSFER, true);
  view.setBigUint64(4, lamports, true);
  return Object.freeze({
    programAddress: SYSTEM_PROGRAM,
    accounts: [
      Object.freeze({ address: faucet.address, role: AccountRole.WRITABLE_SIGNER, signer: faucet }),
      Object.freeze({ address: recipient, role: AccountRole.WRITABLE }),
    ],
    data,
  });
}

/** Faucet key derived from the ledger's seed: airdrops are real, signed System transfers. */
export async function createFaucetSigner(seed: Uint8Array): Promise<KeyPairSigner> {
  const label = new TextEncoder().encode("embedded-ledger-faucet");
  const material = new Uint8Array(seed.length + label.length);
  material.set(seed, 0);
  material.set(label, seed.length);
  return createKeyPairSignerFromPrivateKeyBytes(sha256(material));
}

/**
 * Wire bytes of one airdrop. The memo carries a counter so two equal airdrops in the
 * same slot have different signatures (otherwise the second is AlreadyProcessed).
 */
export async function buildAirdropTransaction(
  faucet: KeyPairSigner,
  recipient: Address,
  lamports: bigint,
  blockhash: string,
  lastValidBlockHeight: bigint,
  nonce: number,
): Promise<Uint8Array> {
  const memo = Object.freeze({
    programAddress: MEMO_PROGRAM,
    data: new TextEncoder().encode(`airdrop ${nonce}`),
  });
  const message = pipe(
    createTransactionMessage({ version: 0 }),
    (m) => setTransactionMessageFeePayerSigner(faucet, m),
    (m) => setTransactionMessageLifetimeUsingBlockhash({ blockhash: blockhash as Blockhash, lastValidBlockHeight }, m),
    (m) => appendTransactionMessageInstructions([transferSol(faucet, recipient, lamports), memo], m),
  );
  const signed = await signTransactionMessageWithSigners(message);
  return new Uint8Array(getTransactionEncoder().encode(signed));
}
