/**
 * Step 5 of `npm run demo`: registering an agent from a laptop (issue 25 §4). The agent's metadata
 * is served here on 127.0.0.1 (the service fetches it to hash it: METADATA_ALLOW_LOOPBACK, on by
 * default with the embedded ledger), the register_agent transaction is built by the registry's
 * POST /agents/register, signed here as the owner, decoded and simulated on the ledger. It is not
 * broadcast: without the x84 registry program's binary the embedded ledger cannot execute it.
 */
import { createHash } from "node:crypto";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import {
  type Address,
  type Base64EncodedWireTransaction,
  type ReadonlyUint8Array,
  type Rpc,
  type SignatureBytes,
  type SolanaRpcApi,
  generateKeyPairSigner,
  getAddressEncoder,
  getBase64Decoder,
  getBase64Encoder,
  getCompiledTransactionMessageDecoder,
  getTransactionDecoder,
  getTransactionEncoder,
  lamports,
  signBytes,
  verifySignature,
} from "@solana/kit";
import { categoryHash } from "../src/domain/registry/categories.ts";
import { REGISTER_AGENT_ROLES, decodeRegisterAgentData } from "../src/domain/registry/register-agent.ts";

export class RegistrationDemoError extends Error {}

const AGENT_NAME = "Laptop demo agent";
const TAGS = ["data", "analytics"];
/** What the owner is given to pay the registration (the program's fee is 0.05 SOL) and the transaction fee. */
const OWNER_LAMPORTS = 1_000_000_000n;

type Registered = Readonly<{ transaction: string; assetPublicKey: Address; agentPda: Address; blockhash: string; lastValidBlockHeight: number }>;

/** Registers an agent as far as a laptop can: built by the service, signed by the owner, simulated; never broadcast. */
export async function demoRegistration(registry: string, rpc: Rpc<SolanaRpcApi>): Promise<void> {
  const document = JSON.stringify({ name: AGENT_NAME, description: "registered by npm run demo from metadata served on 127.0.0.1", version: "1.0.0" }, null, 2);
  const metadata = await serveMetadata(document);
  try {
    const digest = createHash("sha256").update(document).digest("hex");
    const owner = await generateKeyPairSigner();
    await rpc.requestAirdrop(owner.address, lamports(OWNER_LAMPORTS)).send();
    console.log(`\n5. register an agent (POST ${registry}/agents/register)`);
    console.log(`   metadata served here at ${metadata.url} (sha256 ${digest})`);
    console.log(`   owner ${owner.address}, a new wallet given ${Number(OWNER_LAMPORTS) / 1e9} SOL by requestAirdrop to pay the fees`);

    const registered = await postRegistration(registry, { name: AGENT_NAME, ownerAddress: owner.address, metadataUri: metadata.url, tags: TAGS });
    console.log(`   -> 201: asset ${registered.assetPublicKey}, agent PDA ${registered.agentPda}, blockhash ${registered.blockhash}`);

    const transaction = getTransactionDecoder().decode(getBase64Encoder().encode(registered.transaction));
    const message = getCompiledTransactionMessageDecoder().decode(transaction.messageBytes);
    if (message.version !== "legacy") throw new RegistrationDemoError(`expected a legacy message, got version ${message.version}`);
    const [instruction] = message.instructions;
    const args = decodeRegisterAgentData(instruction?.data ?? new Uint8Array());
    const programId = instruction ? message.staticAccounts[instruction.programAddressIndex] : undefined;
    if (!instruction || message.instructions.length !== 1 || !args || !programId) throw new RegistrationDemoError("the service's transaction is not one register_agent instruction");
    const hash = Buffer.from(args.metadataHash).toString("hex");
    const tagHashes = args.tags.map((tag) => Buffer.from(tag).toString("hex"));
    console.log(`   decoded: one register_agent instruction of program ${programId}`);
    console.log(`     name               ${JSON.stringify(args.name)}`);
    console.log(`     metadataUri        ${args.metadataUri}`);
    console.log(`     metadataHash       ${hash} (${hash === digest ? "the document's sha256" : "NOT the document's sha256"})`);
    console.log(`     feedbackAuthority  ${args.feedbackAuthority}${args.feedbackAuthority === owner.address ? " (the owner)" : ""}`);
    console.log(`     tags               ${tagHashes.map((h, i) => (h === categoryHash(TAGS[i] ?? "") ? `sha256("${TAGS[i]}")` : h)).join(", ")}`);
    const accounts = (instruction.accountIndices ?? []).map((index) => message.staticAccounts[index]);
    for (const [i, { name }] of REGISTER_AGENT_ROLES.entries()) console.log(`     ${`account ${name}`.padEnd(26)} ${accounts[i]}`);

    // The owner's slot is the one left empty: the owner pays and signs last.
    if (transaction.signatures[owner.address] !== null) throw new RegistrationDemoError("the owner's signature slot is not empty");
    const ownerSignature = await signBytes(owner.keyPair.privateKey, transaction.messageBytes);
    const signed = { ...transaction, signatures: { ...transaction.signatures, [owner.address]: ownerSignature } };
    const roleOf = (signer: string) => (signer === owner.address ? "owner" : signer === registered.assetPublicKey ? "asset" : "config authority");
    const signatures = Object.entries(signed.signatures) as [Address, SignatureBytes | null][];
    const checks = await Promise.all(signatures.map(async ([signer, signature]) => `${roleOf(signer)} ${(await verifies(signer, signature, signed.messageBytes)) ? "valid" : "INVALID"}`));
    console.log(`   signed as the owner: signatures ${checks.join(", ")}`);

    const wire = getBase64Decoder().decode(getTransactionEncoder().encode(signed)) as Base64EncodedWireTransaction;
    const simulated = await rpc.simulateTransaction(wire, { encoding: "base64", sigVerify: true, commitment: "confirmed" }).send();
    console.log(`   ledger simulateTransaction: err ${JSON.stringify(simulated.value.err, (_key, value: unknown) => (typeof value === "bigint" ? Number(value) : value))}`);
    const program = await rpc.getAccountInfo(programId, { encoding: "base64" }).send();
    if (program.value?.executable) {
      console.log(`   not broadcast: the demo stops here; the registry program ${programId} is loaded (LEDGER_PROGRAMS), send the signed transaction with sendTransaction to register it`);
    } else {
      console.log(`   not broadcast: this ledger has no binary for the x84 registry program ${programId}, so register_agent cannot execute here;`);
      console.log(`   load it (and Metaplex Core) with LEDGER_PROGRAMS=<programId>=<path.so>, or send the owner-signed transaction to a cluster where the program is deployed`);
    }
  } finally {
    await metadata.stop();
  }
}

async function postRegistration(registry: string, body: Readonly<Record<string, unknown>>): Promise<Registered> {
  const response = await fetch(`${registry}/agents/register`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
  const answer = (await response.json()) as Record<string, unknown>;
  if (response.status === 201) return answer as unknown as Registered;
  const message = String(answer["message"] ?? JSON.stringify(answer));
  const hint = message.includes("METADATA_ALLOW_LOOPBACK") || message.startsWith("metadataUri must be")
    ? ": the service refuses metadata served on 127.0.0.1; start it with the embedded ledger (the default) or METADATA_ALLOW_LOOPBACK=true"
    : "";
  throw new RegistrationDemoError(`POST /agents/register answered ${response.status}: ${message}${hint}`);
}

async function verifies(signer: Address, signature: SignatureBytes | null, bytes: ReadonlyUint8Array): Promise<boolean> {
  if (signature === null) return false;
  const key = await crypto.subtle.importKey("raw", new Uint8Array(getAddressEncoder().encode(signer)), "Ed25519", false, ["verify"]);
  return verifySignature(key, signature, bytes);
}

/** The agent's metadata document on 127.0.0.1 (random port), as a developer would serve it. */
async function serveMetadata(document: string): Promise<{ url: string; stop(): Promise<void> }> {
  const server: Server = createServer((request, response) => {
    if (request.url !== "/agent.json") return void response.writeHead(404).end();
    response.writeHead(200, { "content-type": "application/json" }).end(document);
  });
  await new Promise<void>((resolve, reject) => server.once("error", reject).listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/agent.json`,
    stop: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
