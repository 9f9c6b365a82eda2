import {
  appendTransactionMessageInstructions,
  blockhash,
  compileTransaction,
  createNoopSigner,
  createTransactionMessage,
  pipe,
  setTransactionMessageFeePayerSigner,
  setTransactionMessageLifetimeUsingBlockhash,
  type Address,
  type Instruction,
  type Transaction,
} from "@solana/kit";
import { findAssociatedTokenPda, getTransferCheckedInstruction, TOKEN_PROGRAM_ADDRESS } from "@solana-program/token";
import { MEMO_PROGRAM } from "@x84/solana-wire";

export type DelegatedTransferInput = Readonly<{
  /** Owner of the source token account (the payer's associated token account for `asset`). */
  payer: Address;
  asset: Address;
  decimals: number;
  /** Recipient wallet; tokens go to its associated token account, which must exist. */
  payTo: Address;
  amount: bigint;
  /** One of our fee payers, the SPL delegate of the source: pays the fee and signs as authority. */
  delegate: Address;
  blockhash: string;
  lastValidBlockHeight: bigint;
  /** Usually the paymentId: makes the transaction unique, so two equal payments never share a signature. */
  memo?: string;
}>;

async function associatedTokenAccount(owner: Address, mint: Address): Promise<Address> {
  const [ata] = await findAssociatedTokenPda({ owner, mint, tokenProgram: TOKEN_PROGRAM_ADDRESS });
  return ata;
}

function memoInstruction(memo: string): Instruction {
  return { programAddress: MEMO_PROGRAM, data: new TextEncoder().encode(memo) };
}

/**
 * The settlement transaction of a delegated payment: TransferChecked of `amount` from the
 * payer's token account to payTo's, signed by our fee payer acting as SPL delegate (it is both
 * fee payer and transfer authority, so it is the only signer). Returned compiled with the
 * signature slot empty, for the settlement step to sign with the Signer port and submit.
 *
 * SPL Token itself refuses the transfer if the delegate or its delegated_amount does not cover
 * `amount`, and lowers delegated_amount when it succeeds, so the allowance is the hard budget.
 */
export async function buildDelegatedTransfer(input: DelegatedTransferInput): Promise<Transaction> {
  const authority = createNoopSigner(input.delegate);
  const [source, destination] = await Promise.all([
    associatedTokenAccount(input.payer, input.asset),
    associatedTokenAccount(input.payTo, input.asset),
  ]);
  const transfer = getTransferCheckedInstruction({
    source,
    mint: input.asset,
    destination,
    authority,
    amount: input.amount,
    decimals: input.decimals,
  });
  const instructions: Instruction[] = [transfer];
  if (input.memo !== undefined) instructions.push(memoInstruction(input.memo));
  const message = pipe(
    createTransactionMessage({ version: 0 }),
    (m) => setTransactionMessageFeePayerSigner(authority, m),
    (m) =>
      setTransactionMessageLifetimeUsingBlockhash(
        { blockhash: blockhash(input.blockhash), lastValidBlockHeight: input.lastValidBlockHeight },
        m,
      ),
    (m) => appendTransactionMessageInstructions(instructions, m),
  );
  return compileTransaction(message);
}
