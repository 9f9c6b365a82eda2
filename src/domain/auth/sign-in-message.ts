import { isAddress } from "@solana/kit";

/**
 * The Sign-In With Solana message: EIP-4361's text with "Solana account", in the exact layout
 * wallet-standard's `solana:signIn` produces (`createSignInMessageText` in
 * @solana/wallet-standard-util), so a wallet that builds the text itself from these fields
 * signs the same bytes we stored.
 */
export type SignInMessageFields = Readonly<{
  /** RFC 3986 authority (host[:port]) the user signs in to: AUTH_DOMAIN, never a request's Host. */
  domain: string;
  address: string;
  statement: string;
  uri: string;
  version: "1";
  chainId: string;
  nonce: string;
  /** ISO-8601 UTC, millisecond precision. */
  issuedAt: string;
  expirationTime: string;
}>;

export const SIGN_IN_STATEMENT = "Sign in to the agent registry with your Solana account.";

/** Nonce text: EIP-4361 asks for at least 8 alphanumeric characters; ours carry 128 bits. */
export const NONCE_PATTERN = /^[A-Za-z0-9]{8,64}$/;

/** An authority without spaces, line breaks or anything a wallet could render as another line. */
export const DOMAIN_PATTERN = /^[A-Za-z0-9.-]{1,253}(:[0-9]{1,5})?$/;

const ISO_UTC = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

/**
 * Chain ID as wallet-standard's sign-in input names clusters (mainnet, devnet, testnet); any other
 * network is named by its full CAIP-2 id, which is what NETWORK holds.
 */
const CLUSTER_BY_CAIP2: Readonly<Record<string, string>> = Object.freeze({
  "solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp": "mainnet",
  "solana:EtWTRABZaYq6iMfeYKouRu166VU2xqa1": "devnet",
  "solana:4uhcVJyU9pJkvQyS88uRDiswHXSCkY3z": "testnet",
});

export function signInChainId(caip2Network: string): string {
  return CLUSTER_BY_CAIP2[caip2Network] ?? caip2Network;
}

export function formatSignInMessage(fields: SignInMessageFields): string {
  return [
    `${fields.domain} wants you to sign in with your Solana account:`,
    fields.address,
    "",
    fields.statement,
    "",
    `URI: ${fields.uri}`,
    `Version: ${fields.version}`,
    `Chain ID: ${fields.chainId}`,
    `Nonce: ${fields.nonce}`,
    `Issued At: ${fields.issuedAt}`,
    `Expiration Time: ${fields.expirationTime}`,
  ].join("\n");
}

const LINE = "([^\\n]+)";
const MESSAGE = new RegExp(
  `^${LINE} wants you to sign in with your Solana account:\\n${LINE}\\n\\n${LINE}\\n\\n` +
    `URI: ${LINE}\\nVersion: (1)\\nChain ID: ${LINE}\\nNonce: ${LINE}\\nIssued At: ${LINE}\\nExpiration Time: ${LINE}$`,
);

/**
 * Reads a message in exactly the layout {@link formatSignInMessage} writes, or null. Only the
 * canonical text is accepted (it must format back to itself), and no control character other than
 * the line breaks of the layout: the stored challenge is compared byte for byte anyway, and a NUL
 * would otherwise reach the database.
 */
export function parseSignInMessage(text: string): SignInMessageFields | null {
  if (/[\u0000-\u0009\u000b-\u001f\u007f]/.test(text)) return null;
  const match = MESSAGE.exec(text);
  if (!match) return null;
  const [, domain, address, statement, uri, , chainId, nonce, issuedAt, expirationTime] = match;
  if (!domain || !address || !statement || !uri || !chainId || !nonce || !issuedAt || !expirationTime) return null;
  if (!DOMAIN_PATTERN.test(domain) || !isAddress(address) || !NONCE_PATTERN.test(nonce)) return null;
  if (!ISO_UTC.test(issuedAt) || !ISO_UTC.test(expirationTime)) return null;
  const fields: SignInMessageFields = { domain, address, statement, uri, version: "1", chainId, nonce, issuedAt, expirationTime };
  return formatSignInMessage(fields) === text ? fields : null;
}
