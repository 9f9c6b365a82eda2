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
  pipe,
  setTransactionMessageFeePayer,
  setTransactionMessageLifetimeUsingBlockhash,
  signBytes,
  type SignatureBytes,
} from "@solana/kit";
import type { CategoryCatalog } from "../../domain/registry/categories.ts";
import { findAgentPda, findConfigPda } from "../../domain/registry/pdas.ts";
import { registerAgentInstruction } from "../../domain/registry/register-agent.ts";
import { checkRegistrationMessage } from "../../domain/registry/registration-message-check.ts";
import type { Ledger } from "../ports/ledger.ts";
import type { Signer } from "../ports/signer.ts";
import type { ProtocolConfigSource } from "./protocol-config-source.ts";

/** A validated request (the HTTP layer checked lengths, URI scheme, tag count and addresses). */
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
  | Readonly<{ ok: false; status: 400 | 502 | 503; message: string }>;

/** The metadata document's bytes hashed, or why it could not be fetched (see the metadata fetcher). */
export type FetchMetadata = (
  uri: string,
) => Promise<Readonly<{ sha256: Uint8Array }> | Readonly<{ status: 400 | 502; reason: string }>>;

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
 * Only broken infrastructure (ledger, signer) throws; request problems come back as results.
 */
export async function registerAgent(request: RegisterAgentRequest, deps: RegisterAgentDeps): Promise<RegisterAgentResult> {
  const authority = deps.configAuthority.address;
  // SECURITY: an owner equal to our config authority would make our key the fee payer.
  if (request.ownerAddress === authority) return refused(400, "ownerAddress cannot be the registry's config authority");

  const config = await deps.protocolConfig.get();
  if (config === null) return refused(503, "the registry program's ProtocolConfig account was not found on this ledger; registration is unavailable");
  if (config.pauseIdentity) return refused(503, "agent registration is paused by the registry program's governance");
  if (config.authority !== authority) {
    return refused(503, "this service's config authority key is not the one the registry program's config names; registration is unavailable");
  }

  const metadata = await deps.fetchMetadata(request.metadataUri);
  if ("status" in metadata) return refused(metadata.status, `metadataUri: ${metadata.reason}`);

  const asset = await generateKeyPair();
  const assetAddress = await getAddressFromPublicKey(asset.publicKey);
  const [[configPda], [agentPda], latest] = await Promise.all([
    findConfigPda(deps.programId),
    findAgentPda(deps.programId, assetAddress),
    deps.ledger.getLatestBlockhash(),
  ]);
  const instruction = registerAgentInstruction(
    deps.programId,
    {
      config: configPda,
      configAuthority: authority,
      agentIdentity: agentPda,
      owner: request.ownerAddress,
      asset: assetAddress,
      collection: deps.collection ?? config.collection,
      feeTreasury: deps.feeTreasury ?? config.feeTreasury,
    },
    {
      name: request.name,
      metadataUri: request.metadataUri,
      metadataHash: metadata.sha256,
      feedbackAuthority: request.feedbackAuthority ?? request.ownerAddress,
      tags: request.tags.map((tag) => tagHash(deps.categories, tag)),
    },
  );
  // Legacy: every Solana client deserialises it (web3.js Transaction.from and VersionedTransaction).
  const transaction = compileTransaction(
    pipe(
      createTransactionMessage({ version: "legacy" }),
      (m) => setTransactionMessageFeePayer(request.ownerAddress, m),
      (m) => setTransactionMessageLifetimeUsingBlockhash({ blockhash: toBlockhash(latest.blockhash), lastValidBlockHeight: latest.lastValidBlockHeight }, m),
      (m) => appendTransactionMessageInstruction(instruction, m),
    ),
  );

  const shape = checkRegistrationMessage(transaction.messageBytes, {
    programId: deps.programId,
    owner: request.ownerAddress,
    configAuthority: authority,
    asset: assetAddress,
  });
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

/** A tag's on-chain bytes: SHA-256 of the known category's canonical name, or of the string itself. */
function tagHash(categories: CategoryCatalog, tag: string): Uint8Array {
  const hex = categories.resolve(tag);
  return Uint8Array.from(hex.match(/../g) ?? [], (pair) => Number.parseInt(pair, 16));
}

function refused(status: 400 | 502 | 503, message: string): RegisterAgentResult {
  return { ok: false, status, message };
}

