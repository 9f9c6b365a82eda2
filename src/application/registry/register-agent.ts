import {
  type Address,
  type Transaction,
  appendTransactionMessageInstruction,
  blockhash as toBlockhash,
  compileTransaction,
  createTransactionMessage,
  generateKeyPair,
  getAddressFromPublicKey,
  getBase64Decoder,
  getTransactionEncoder,
  getTransactionSize,
  pipe,
  setTransactionMessageFeePayer,
  setTransactionMessageLifetimeUsingBlockhash,
  signBytes,
  type SignatureBytes,
} from "@solana/kit";
import type { CategoryCatalog } from "../../domain/registry/categories.ts";
import { findAgentPda, findConfigPda } from "../../domain/registry/pdas.ts";
import { type RegisterAgentAccounts, registerAgentInstruction } from "../../domain/registry/register-agent.ts";
import { utf8ByteLength } from "../../domain/registry/registration-fields.ts";
import { checkRegistrationMessage } from "../../domain/registry/registration-message-check.ts";
import { ownerAccountProblem, ownerAddressProblem, ownerSlotProblem } from "../../domain/registry/registration-owner.ts";
import { SOLANA_PACKET_BYTES } from "../../domain/verification/verification-policy.ts";
import type { Ledger } from "../ports/ledger.ts";
import type { Signer } from "../ports/signer.ts";
import type { ProtocolConfigSource } from "./protocol-config-source.ts";

/**
 * A validated request: the HTTP layer checked the fields' shapes and text rules (registration-fields.ts:
 * UTF-8 byte lengths, no hidden characters), the URI scheme, the tag count and the address encoding.
 * Whether the owner can be a fee payer, and the transaction's size, are checked here.
 */
export type RegisterAgentRequest = Readonly<{
  name: string;
  ownerAddress: Address;
  metadataUri: string;
  tags: readonly string[];
  /** Who may authorise feedback; the owner unless the request names another. */
  feedbackAuthority?: Address;
}>;

/** The x84 SDK's RegisterAgentResponse. */
export type RegisterAgentResponse = Readonly<{
  transaction: string;
  assetPublicKey: string;
  agentPda: string;
  blockhash: string;
  lastValidBlockHeight: number;
}>;

export type RegisterAgentResult =
  | Readonly<{ ok: true; response: RegisterAgentResponse }>
  | Readonly<{ ok: false; refusal: RegistrationRefusal; message: string }>;

/**
 * Why a registration is refused: `invalid`, the request itself (the HTTP layer answers 400);
 * `upstream`, the metadata origin failed (502); `unavailable`, registration cannot run now (503).
 */
export type RegistrationRefusal = "invalid" | "upstream" | "unavailable";

/** The metadata document's bytes hashed, or why it could not be fetched (see the metadata fetcher). */
export type FetchMetadata = (
  uri: string,
) => Promise<Readonly<{ sha256: Uint8Array }> | Readonly<{ blame: "uri" | "origin"; reason: string }>>;

export type RegisterAgentDeps = Readonly<{
  ledger: Ledger;
  programId: Address;
  configAuthority: Signer;
  protocolConfig: ProtocolConfigSource;
  fetchMetadata: FetchMetadata;
  categories: CategoryCatalog;
  /** Settings that override the on-chain config's collection and fee treasury. */
  collection?: Address;
  feeTreasury?: Address;
}>;

/**
 * Builds `register_agent` and signs it with the config authority and a fresh asset key; the
 * owner's slot stays empty for the client's wallet, which pays the fee and the registration fee.
 * Nothing is signed for an owner that cannot be a fee payer or for a transaction over the packet
 * limit: those are 400s. Only broken infrastructure (ledger, signer) throws.
 */
export async function registerAgent(request: RegisterAgentRequest, deps: RegisterAgentDeps): Promise<RegisterAgentResult> {
  const authority = deps.configAuthority.address;
  // SECURITY: an owner equal to our config authority would make our key the fee payer.
  if (request.ownerAddress === authority) return refused("invalid", "ownerAddress cannot be the registry's config authority");
  const notAWallet = ownerAddressProblem(request.ownerAddress, deps.programId);
  if (notAWallet !== null) return refused("invalid", notAWallet);

  const [config, ownerAccount] = await Promise.all([deps.protocolConfig.get(), deps.ledger.getAccount(request.ownerAddress)]);
  if (config === null) return refused("unavailable", "the registry program's ProtocolConfig account was not found on this ledger; registration is unavailable");
  if (config.pauseIdentity) return refused("unavailable", "agent registration is paused by the registry program's governance");
  if (config.authority !== authority) {
    return refused("unavailable", "this service's config authority key is not the one the registry program's config names; registration is unavailable");
  }
  const cannotPay = ownerAccountProblem(ownerAccount);
  if (cannotPay !== null) return refused("invalid", cannotPay);

  const asset = await generateKeyPair();
  const assetAddress = await getAddressFromPublicKey(asset.publicKey);
  const [[configPda], [agentPda]] = await Promise.all([findConfigPda(deps.programId), findAgentPda(deps.programId, assetAddress)]);
  const accounts: RegisterAgentAccounts = {
    config: configPda,
    configAuthority: authority,
    agentIdentity: agentPda,
    owner: request.ownerAddress,
    asset: assetAddress,
    collection: deps.collection ?? config.collection,
    feeTreasury: deps.feeTreasury ?? config.feeTreasury,
  };
  const merged = ownerSlotProblem(accounts);
  if (merged !== null) return refused("invalid", merged);

  const metadata = await deps.fetchMetadata(request.metadataUri);
  if ("blame" in metadata) return refused(metadata.blame === "uri" ? "invalid" : "upstream", `metadataUri: ${metadata.reason}`);

  const latest = await deps.ledger.getLatestBlockhash();
  const instruction = registerAgentInstruction(deps.programId, accounts, {
    name: request.name,
    metadataUri: request.metadataUri,
    metadataHash: metadata.sha256,
    feedbackAuthority: request.feedbackAuthority ?? request.ownerAddress,
    tags: request.tags.map((tag) => tagHash(deps.categories, tag)),
  });
  // Legacy: every Solana client deserialises it (web3.js Transaction.from and VersionedTransaction).
  const transaction = compileTransaction(
    pipe(
      createTransactionMessage({ version: "legacy" }),
      (m) => setTransactionMessageFeePayer(request.ownerAddress, m),
      (m) => setTransactionMessageLifetimeUsingBlockhash({ blockhash: toBlockhash(latest.blockhash), lastValidBlockHeight: latest.lastValidBlockHeight }, m),
      (m) => appendTransactionMessageInstruction(instruction, m),
    ),
  );
  const tooLarge = oversizeProblem(transaction, request);
  if (tooLarge !== null) return refused("invalid", tooLarge);

  const shape = checkRegistrationMessage(transaction.messageBytes, { programId: deps.programId, ...accounts });
  if (shape !== null) throw new Error(`refusing to sign a registration: ${shape}`);
  const [authoritySignature] = await deps.configAuthority.signMessages([new Uint8Array(transaction.messageBytes)]);
  if (!authoritySignature) throw new Error("the config authority signer returned no signature");
  const assetSignature = await signBytes(asset.privateKey, transaction.messageBytes);
  const signed: Transaction = {
    ...transaction,
    signatures: {
      ...transaction.signatures,
      [authority]: authoritySignature as SignatureBytes,
      [assetAddress]: assetSignature,
    },
  };
  return {
    ok: true,
    response: {
      transaction: getBase64Decoder().decode(getTransactionEncoder().encode(signed)),
      assetPublicKey: assetAddress,
      agentPda,
      blockhash: latest.blockhash,
      lastValidBlockHeight: Number(latest.lastValidBlockHeight),
    },
  };
}

/**
 * SECURITY: the size of the wire transaction once every signature slot is filled (kit counts each
 * empty slot as the 64 bytes it will hold). Over Solana's packet limit it can never be sent, so our
 * key does not sign it. The HTTP layer's byte limits keep a valid request well under (about 1,100
 * bytes at most); this holds for any caller.
 */
function oversizeProblem(transaction: Transaction, request: RegisterAgentRequest): string | null {
  const size = getTransactionSize(transaction);
  if (size <= SOLANA_PACKET_BYTES) return null;
  return (
    `the registration transaction would be ${size} bytes, over Solana's ${SOLANA_PACKET_BYTES}-byte packet limit; ` +
    `shorten name (${utf8ByteLength(request.name)} bytes) or metadataUri (${utf8ByteLength(request.metadataUri)} bytes), or send fewer tags`
  );
}

/** A tag's on-chain bytes: SHA-256 of the known category's canonical name, or of the string itself. */
function tagHash(categories: CategoryCatalog, tag: string): Uint8Array {
  const hex = categories.resolve(tag);
  return Uint8Array.from(hex.match(/../g) ?? [], (pair) => Number.parseInt(pair, 16));
}

function refused(refusal: RegistrationRefusal, message: string): RegisterAgentResult {
  return { ok: false, refusal, message };
}

