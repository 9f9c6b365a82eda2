/**
 * @x84/embedded-ledger: a Solana ledger inside the process (litesvm runs the real SPL Token and
 * System programs), with Surfpool-style cheat codes and a Solana JSON-RPC server. The public
 * surface is this file; everything else in src/ is internal.
 */
export {
  createEmbeddedLedger,
  TransactionRefused,
  type AccountUpdate,
  type EmbeddedAccount,
  type EmbeddedLedger,
  type EmbeddedLedgerOptions,
  type EpochInfo,
  type LedgerProgram,
  type MintAtBoot,
  type StatusDetail,
} from "./embedded-ledger.ts";
export type { TokenBalance } from "./account-reads.ts";
export { createLedgerRpcHandler, MAX_BATCH_SIZE, MAX_RPC_BODY_BYTES, type LedgerRpcHandler } from "./json-rpc-handler.ts";
export { serveLedgerRpc, type LedgerRpcServer, type RpcListener, type ServeLedgerRpcOptions, type WebSocketHandler } from "./json-rpc-server.ts";
export { createLedgerPubsub, MAX_PUBSUB_MESSAGE_BYTES, MAX_SIGNATURE_SUBSCRIPTIONS_PER_CONNECTION, MAX_SUBSCRIPTIONS_PER_CONNECTION, type LedgerPubsub, type PubsubPeer, type PubsubSession } from "./json-rpc-pubsub.ts";
export type { ProgramAccountListener, ProgramAccountNotice } from "./program-subscriptions.ts";
export type { SignatureListener, SignatureNotice } from "./signature-subscriptions.ts";
export { parseLedgerPrograms } from "./ledger-programs.ts";
export type { AccountSnapshot, Clock, Logger, ProgramAccountFilter, SignatureStatus } from "./ports.ts";
export { BLOCKHASH_VALIDITY_BLOCKS, MS_PER_SLOT, SLOTS_PER_EPOCH, type SlotBlockhash } from "./slot-clock.ts";
export { encodeMint, TOKEN_ACCOUNT_SIZE, type TokenAccountUpdate } from "./token-state.ts";
export { createToken2022Mint, mintToken2022, type InstructionRunner, type Token2022MintSpec } from "./token-2022-mints.ts";
export { renderTransactionError, type TransactionErrorJson } from "./transaction-error.ts";
export {
  type AddressSignature,
  LAMPORTS_PER_SIGNATURE,
  type Refusal,
  type SignaturePage,
  type SimulateOptions,
  type SimulateResult,
  type SimulatedAccount,
  type SimulationDetail,
  type SubmitOptions,
  type SubmitResult,
  type TransactionRecord,
} from "./transaction-executor.ts";
export { MAX_WIRE_TRANSACTION_BYTES } from "./wire-guard.ts";
