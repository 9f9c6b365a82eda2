/**
 * Recorded Solana JSON-RPC answers for msw, in exactly the shape a real node returns them
 * (getProgramAccounts with base64 data, getSignaturesForAddress, getTransaction in the `json`
 * encoding of a v0 transaction with meta), built by hand from bytes our own codecs encode.
 */
import { getAddressEncoder, getBase58Decoder, type Address, type Signature } from "@solana/kit";
import { HttpResponse, http, type HttpHandler } from "msw";
import { encodeGiveFeedbackData, type GiveFeedbackArgs } from "../../../src/domain/registry/give-feedback.ts";
import { findAgentPda, findConfigPda } from "../../../src/domain/registry/pdas.ts";

export type Json = null | boolean | number | string | readonly Json[] | { readonly [key: string]: Json };

export const SYSTEM_PROGRAM = "11111111111111111111111111111111" as Address;
export const INSTRUCTIONS_SYSVAR = "Sysvar1nstructions1111111111111111111111111" as Address;
export const COMPUTE_BUDGET_PROGRAM = "ComputeBudget111111111111111111111111111111" as Address;

const base58 = (bytes: Uint8Array) => getBase58Decoder().decode(bytes);

/** A deterministic transaction signature (64 bytes, base58), distinct for every label. */
export function recordedSignature(label: number): Signature {
  const bytes = new Uint8Array(64).map((_, i) => (i * 7 + 1) % 256);
  new DataView(bytes.buffer).setUint32(0, label, true);
  return base58(bytes) as Signature;
}

/** One getSignaturesForAddress item as a node renders it. */
export function signatureInfo(signature: Signature, slot: number, err: Json = null): Json {
  return { blockTime: 1_750_000_000 + slot - 400_000_000, confirmationStatus: "finalized", err, memo: null, signature, slot };
}

/** One getProgramAccounts item: data in base64, rentEpoch as nodes send it for rent-exempt accounts. */
export function programAccount(pubkey: Address, owner: Address, data: Uint8Array): Json {
  return { account: { data: [Buffer.from(data).toString("base64"), "base64"], executable: false, lamports: 2_039_280, owner, rentEpoch: 18_446_744_073_709_551_615, space: data.length }, pubkey };
}

export type GiveFeedbackTransaction = Readonly<{
  programId: Address;
  signature: Signature;
  slot: number;
  reviewer: Address;
  nftMint: Address;
  feedbackEntry: Address;
  args: GiveFeedbackArgs;
  /** Program that runs the instruction: the registry program unless a forgery is recorded. */
  invokedProgram?: Address;
  err?: Json;
  /** The PaymentReceipt passed as payment proof (writable: the program closes it); absent: none. */
  paymentReceipt?: Address;
}>;

/**
 * getTransaction (`json`, maxSupportedTransactionVersion 0) of a v0 transaction holding a
 * SetComputeUnitLimit and give_feedback with its accounts in IDL order (without `paymentReceipt`,
 * Anchor puts the program id in that optional slot), the System createAccount CPI as an inner instruction,
 * balances and logs.
 */
export async function giveFeedbackTransactionJson(tx: GiveFeedbackTransaction): Promise<Json> {
  const [config] = await findConfigPda(tx.programId);
  const [agent] = await findAgentPda(tx.programId, tx.nftMint);
  const invoked = tx.invokedProgram ?? tx.programId;
  // Signer first, then writable non-signers, then read-only non-signers (the compiled message order).
  const receipt = tx.paymentReceipt ? [tx.paymentReceipt] : [];
  const accountKeys = [tx.reviewer, agent, tx.feedbackEntry, ...receipt, config, tx.nftMint, INSTRUCTIONS_SYSVAR, SYSTEM_PROGRAM, COMPUTE_BUDGET_PROGRAM, invoked];
  const index = (a: Address) => accountKeys.indexOf(a);
  const setComputeUnitLimit = Uint8Array.of(2, 0x40, 0x0d, 0x03, 0x00); // 200,000 units
  const createAccount = new Uint8Array(4 + 8 + 8 + 32);
  const view = new DataView(createAccount.buffer);
  view.setBigUint64(4, 2_039_280n, true);
  view.setBigUint64(12, 180n, true);
  createAccount.set(getAddressEncoder().encode(tx.programId), 20);
  const failed = tx.err !== undefined && tx.err !== null;
  return {
    blockTime: 1_750_000_000 + tx.slot - 400_000_000,
    meta: {
      computeUnitsConsumed: 38_211,
      err: tx.err ?? null,
      fee: 5_000,
      innerInstructions: failed ? [] : [{ index: 1, instructions: [{ accounts: [index(tx.reviewer), index(tx.feedbackEntry)], data: base58(createAccount), programIdIndex: index(SYSTEM_PROGRAM), stackHeight: 2 }] }],
      loadedAddresses: { readonly: [], writable: [] },
      logMessages: [
        `Program ${COMPUTE_BUDGET_PROGRAM} invoke [1]`,
        `Program ${COMPUTE_BUDGET_PROGRAM} success`,
        `Program ${invoked} invoke [1]`,
        "Program log: Instruction: GiveFeedback",
        `Program ${SYSTEM_PROGRAM} invoke [2]`,
        `Program ${SYSTEM_PROGRAM} success`,
        `Program ${invoked} consumed 38061 of 199850 compute units`,
        failed ? `Program ${invoked} failed: custom program error: 0x1773` : `Program ${invoked} success`,
      ],
      // The receipt is closed in the transaction: its rent goes back to the reviewer.
      postBalances: [997_955_720 + (receipt.length > 0 ? 1_398_960 : 0), 3_500_000, 2_039_280, ...receipt.map(() => 0), 1_500_000, 1_000_000, 0, 1, 1, 1_141_440],
      postTokenBalances: [],
      preBalances: [1_000_000_000, 3_500_000, 0, ...receipt.map(() => 1_398_960), 1_500_000, 1_000_000, 0, 1, 1, 1_141_440],
      preTokenBalances: [],
      returnData: null,
      rewards: [],
      status: failed ? { Err: tx.err ?? null } : { Ok: null },
    },
    slot: tx.slot,
    transaction: {
      message: {
        accountKeys,
        addressTableLookups: [],
        header: { numReadonlySignedAccounts: 0, numReadonlyUnsignedAccounts: 6, numRequiredSignatures: 1 },
        instructions: [
          { accounts: [], data: base58(setComputeUnitLimit), programIdIndex: index(COMPUTE_BUDGET_PROGRAM), stackHeight: null },
          {
            // IDL order: reviewer, config, agent, nft_mint, feedback_entry, payment_receipt (or the program id), instructions_sysvar, system_program.
            accounts: [tx.reviewer, config, agent, tx.nftMint, tx.feedbackEntry, tx.paymentReceipt ?? invoked, INSTRUCTIONS_SYSVAR, SYSTEM_PROGRAM].map(index),
            data: base58(encodeGiveFeedbackData(tx.args)),
            programIdIndex: index(invoked),
            stackHeight: null,
          },
        ],
        recentBlockhash: "9yUZzBnmUDt3CeFgrKRYbB5gHLAuDFGGQ4jkjgsWX1NK",
      },
      signatures: [tx.signature],
    },
    version: 0,
  };
}

export type RpcCall = Readonly<{ method: string; params: readonly Json[]; at: number }>;

/**
 * A JSON-RPC endpoint answering from recorded results: `answers[method](params)` gives the result
 * (or a Response, for HTTP failures). Every call is recorded with its time.
 */
export function recordedRpcHandler(
  url: string,
  answers: Readonly<Record<string, (params: readonly Json[]) => Json | Response | Promise<Json | Response>>>,
  calls: RpcCall[],
): HttpHandler {
  return http.post(url, async ({ request }) => {
    const body = (await request.json()) as { id: Json; method: string; params?: Json[] };
    calls.push({ method: body.method, params: body.params ?? [], at: performance.now() });
    const answer = answers[body.method];
    if (!answer) return HttpResponse.json({ jsonrpc: "2.0", id: body.id, error: { code: -32601, message: "Method not found" } });
    const result = await answer(body.params ?? []);
    if (result instanceof Response) return result;
    return HttpResponse.json({ jsonrpc: "2.0", result, id: body.id });
  });
}

/** The memcmp filters of a getProgramAccounts call, as (offset, bytes). */
export function memcmpFilters(params: readonly Json[]): { offset: number; bytes: Uint8Array }[] {
  const config = params[1] as { filters?: { memcmp?: { offset: number; bytes: string } }[] } | undefined;
  return (config?.filters ?? []).flatMap((f) => (f.memcmp ? [{ offset: f.memcmp.offset, bytes: new Uint8Array(Buffer.from(f.memcmp.bytes, "base64")) }] : []));
}
