/** Domain rules of Sign-In With Solana (pure: message text, chain id, signature encodings, ed25519). */
import { describe, expect, test } from "bun:test";
import { generateKeyPairSigner, getBase58Decoder, signBytes } from "@solana/kit";
import {
  SIGN_IN_STATEMENT,
  type SignInMessageFields,
  formatSignInMessage,
  parseSignInMessage,
  signInChainId,
} from "../../../src/domain/auth/sign-in-message.ts";
import { signatureCandidates, verifySignInSignature } from "../../../src/domain/auth/sign-in-signature.ts";

const FIELDS: SignInMessageFields = {
  domain: "localhost:3000",
  address: "9xQeWvG816bUx9EPjHmaT23yvVM2ZWbrrpZb9PusVFin",
  statement: SIGN_IN_STATEMENT,
  uri: "http://localhost:3000",
  version: "1",
  chainId: "devnet",
  nonce: "0123456789abcdef0123456789abcdef",
  issuedAt: "2026-03-01T12:00:00.000Z",
  expirationTime: "2026-03-01T12:05:00.000Z",
};

describe("sign-in message text", () => {
  test("is EIP-4361's layout with 'Solana account', as wallet-standard's solana:signIn writes it", () => {
    expect(formatSignInMessage(FIELDS)).toBe(
      [
        "localhost:3000 wants you to sign in with your Solana account:",
        "9xQeWvG816bUx9EPjHmaT23yvVM2ZWbrrpZb9PusVFin",
        "",
        "Sign in to the agent registry with your Solana account.",
        "",
        "URI: http://localhost:3000",
        "Version: 1",
        "Chain ID: devnet",
        "Nonce: 0123456789abcdef0123456789abcdef",
        "Issued At: 2026-03-01T12:00:00.000Z",
        "Expiration Time: 2026-03-01T12:05:00.000Z",
      ].join("\n"),
    );
  });

  test("parses back to its fields", () => {
    expect(parseSignInMessage(formatSignInMessage(FIELDS))).toEqual(FIELDS);
  });

  test("only the canonical text parses", () => {
    const text = formatSignInMessage(FIELDS);
    for (const variant of [
      `${text}\n`,
      `\n${text}`,
      text.replaceAll("\n", "\r\n"),
      text.replace("Version: 1", "Version: 2"),
      text.replace("\nChain ID: devnet", ""),
      text.replace("Nonce: 0123456789abcdef0123456789abcdef", "Nonce: short"),
      text.replace("Nonce: 0123456789abcdef0123456789abcdef", "Nonce: 0123456789abcdef-0123456789abcdef"),
      text.replace("2026-03-01T12:05:00.000Z", "tomorrow"),
      text.replace("9xQeWvG816bUx9EPjHmaT23yvVM2ZWbrrpZb9PusVFin", "not-an-address"),
      text.replace("localhost:3000 wants", "evil.example/path wants"),
      text.replace("Chain ID: devnet\n", "Chain ID: devnet\nRequest ID: 1\n"),
      `${text}\u0000`,
      text.replace("Sign in", "Sign\tin"),
    ]) {
      expect(parseSignInMessage(variant)).toBeNull();
    }
  });

  test("chain id: cluster names for mainnet, devnet and testnet; the CAIP-2 id otherwise", () => {
    expect(signInChainId("solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp")).toBe("mainnet");
    expect(signInChainId("solana:EtWTRABZaYq6iMfeYKouRu166VU2xqa1")).toBe("devnet");
    expect(signInChainId("solana:4uhcVJyU9pJkvQyS88uRDiswHXSCkY3z")).toBe("testnet");
    expect(signInChainId("solana:localnet123")).toBe("solana:localnet123");
  });
});

describe("signature text and ed25519 verification", () => {
  test("base58, padded and unpadded base64 and base64url decode to the same 64 bytes", () => {
    const bytes = crypto.getRandomValues(new Uint8Array(64));
    bytes[0] = 0xff;
    for (const text of [
      getBase58Decoder().decode(bytes),
      Buffer.from(bytes).toString("base64"),
      Buffer.from(bytes).toString("base64").replace(/=+$/, ""),
      Buffer.from(bytes).toString("base64url"),
    ]) {
      expect(signatureCandidates(text).some((candidate) => Buffer.from(candidate).equals(Buffer.from(bytes)))).toBe(true);
    }
  });

  test("anything that is not 64 bytes in either encoding has no candidate", () => {
    for (const text of ["", "abc", getBase58Decoder().decode(new Uint8Array(32).fill(9)), "1".repeat(63), Buffer.from(new Uint8Array(65)).toString("base64"), "0".repeat(88), "é".repeat(86)]) {
      expect(signatureCandidates(text)).toEqual([]);
    }
  });

  test("verifies a real wallet signature over the UTF-8 bytes, and nothing else", async () => {
    const [wallet, other] = await Promise.all([generateKeyPairSigner(), generateKeyPairSigner()]);
    const message = formatSignInMessage({ ...FIELDS, address: wallet.address, statement: "Zürich ✓" });
    const signature = new Uint8Array(await signBytes(wallet.keyPair.privateKey, new TextEncoder().encode(message)));
    expect(await verifySignInSignature(message, signature, wallet.address)).toBe(true);
    expect(await verifySignInSignature(`${message} `, signature, wallet.address)).toBe(false);
    expect(await verifySignInSignature(message, signature, other.address)).toBe(false);
    expect(await verifySignInSignature(message, signature.slice(0, 63), wallet.address)).toBe(false);
    expect(await verifySignInSignature(message, new Uint8Array(64), wallet.address)).toBe(false);
  });

  test("strict RFC 8032: the small-order identity key with an all-zero-ish signature never verifies", async () => {
    // Public key = identity point (small order); under permissive (ZIP-215) rules R = identity,
    // S = 0 verifies for every message.
    const identity = new Uint8Array(32);
    identity[0] = 1;
    const signature = new Uint8Array(64);
    signature[0] = 1;
    const address = getBase58Decoder().decode(identity) as Parameters<typeof verifySignInSignature>[2];
    expect(await verifySignInSignature("any message", signature, address)).toBe(false);
  });
});
