/**
 * A Sign-In With Solana client for tests: calls the registry app through `app.handle` (no socket)
 * and signs challenges with real ed25519 keys from @solana/kit.
 */
import { type Address, type KeyPairSigner, generateKeyPairSigner, getBase58Decoder, getBase64Decoder, signBytes } from "@solana/kit";
import type { LocalLedger } from "../../../src/infrastructure/ledger/local-ledger.ts";
import { encodeAgentIdentity } from "../../../src/domain/registry/agent-identity.ts";
import { findAgentPda } from "../../../src/domain/registry/pdas.ts";
import { PROGRAM_ID, agentIdentity, padded } from "../../registry/support/registry-fixtures.ts";

type Handles = Readonly<{ handle(request: Request): Promise<Response> | Response }>;

export type Reply = Readonly<{ status: number; headers: Headers; body: Record<string, unknown> }>;

/** Elysia needs a host with a dot in test URLs. */
const BASE = "http://registry.test";

export async function post(app: Handles, path: string, body: unknown, headers: Record<string, string> = {}): Promise<Reply> {
  const response = await app.handle(
    new Request(`${BASE}${path}`, { method: "POST", headers: { "content-type": "application/json", ...headers }, body: JSON.stringify(body) }),
  );
  return { status: response.status, headers: response.headers, body: (await response.json()) as Record<string, unknown> };
}

export async function getMe(app: Handles, authorization?: string): Promise<Reply> {
  const response = await app.handle(new Request(`${BASE}/users/me`, { headers: authorization === undefined ? {} : { authorization } }));
  return { status: response.status, headers: response.headers, body: (await response.json()) as Record<string, unknown> };
}

export type Challenge = Readonly<{ message: string; nonce: string; expiresAt: string }>;

export async function challenge(app: Handles, address: Address, headers: Record<string, string> = {}): Promise<Challenge> {
  const reply = await post(app, "/auth/challenge", { address }, headers);
  if (reply.status !== 200) throw new Error(`challenge answered ${reply.status}: ${JSON.stringify(reply.body)}`);
  return reply.body as unknown as Challenge;
}

export async function signText(signer: KeyPairSigner, text: string): Promise<Uint8Array> {
  return new Uint8Array(await signBytes(signer.keyPair.privateKey, new TextEncoder().encode(text)));
}

export const base58 = (bytes: Uint8Array): string => getBase58Decoder().decode(bytes);
export const base64 = (bytes: Uint8Array): string => getBase64Decoder().decode(bytes);

/** Challenge, sign with `signer`, exchange: the whole sign-in; returns the token reply. */
export async function signIn(app: Handles, signer: KeyPairSigner): Promise<Reply> {
  const { message } = await challenge(app, signer.address);
  return post(app, "/auth/token", { address: signer.address, message, signature: base58(await signText(signer, message)) });
}

export async function accessTokenFor(app: Handles, signer: KeyPairSigner): Promise<string> {
  const reply = await signIn(app, signer);
  if (reply.status !== 200) throw new Error(`sign-in answered ${reply.status}: ${JSON.stringify(reply.body)}`);
  return String(reply.body["accessToken"]);
}

/** An AgentIdentity account owned by `owner`, written into the embedded ledger; returns its nftMint. */
export async function seedAgent(ledger: LocalLedger, n: number, owner: Address): Promise<string> {
  const identity = agentIdentity(n, { owner });
  const [pda] = await findAgentPda(PROGRAM_ID, identity.nftMint);
  ledger.setAccount(pda, { lamports: 5_000_000n, owner: PROGRAM_ID, data: padded(encodeAgentIdentity(identity), 700) });
  return identity.nftMint;
}

export { generateKeyPairSigner };
