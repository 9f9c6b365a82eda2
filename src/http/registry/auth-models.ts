import { t } from "elysia";
import { ERROR_PHRASE } from "../validation-messages.ts";
import { EXAMPLE_MINT, EXAMPLE_OWNER } from "./examples.ts";
import { BASE58_ADDRESS_PATTERN } from "./registry-models.ts";

/** Sign-In With Solana and GET /users/me (docs/auth.md): request bodies and answers. */
const walletAddress = (description: string) =>
  t.String({ maxLength: 64, pattern: BASE58_ADDRESS_PATTERN, [ERROR_PHRASE]: "must be a base58 address", description, examples: [EXAMPLE_OWNER] });

const EXAMPLE_MESSAGE =
  "localhost:3000 wants you to sign in with your Solana account:\n" +
  `${EXAMPLE_OWNER}\n\nSign in to the agent registry with your Solana account.\n\nURI: http://localhost:3000\nVersion: 1\nChain ID: devnet\n` +
  "Nonce: be054f28c09e62b89a24f16f3a3ccf1b\nIssued At: 2026-11-23T22:41:42.128Z\nExpiration Time: 2026-11-23T22:46:42.128Z";

/** Unknown fields are ignored. */
const OPEN = { additionalProperties: true } as const;
const CLOSED = { additionalProperties: false } as const;

export const ChallengeBody = t.Object({ address: walletAddress("the wallet that will sign in") }, {
  ...OPEN,
  title: "ChallengeRequest",
  [ERROR_PHRASE]: "must be a JSON object",
  examples: [{ address: EXAMPLE_OWNER }],
});

export const ChallengeView = t.Object(
  {
    message: t.String({ description: "the text to sign, unchanged (EIP-4361 style; domain and URI from AUTH_DOMAIN and AUTH_URI)" }),
    nonce: t.String({ description: "single use" }),
    expiresAt: t.String({ description: "ISO-8601; the challenge is refused after it" }),
  },
  { ...CLOSED, title: "Challenge", examples: [{ message: EXAMPLE_MESSAGE, nonce: "be054f28c09e62b89a24f16f3a3ccf1b", expiresAt: "2026-11-23T22:46:42.128Z" }] },
);

export const TokenBody = t.Object(
  {
    address: walletAddress("wallet address (base58) that signed"),
    message: t.String({ maxLength: 2048, description: "the challenge's message, unchanged" }),
    signature: t.String({ maxLength: 256, description: "ed25519 signature of the message's UTF-8 bytes, base58 or base64" }),
  },
  {
    ...OPEN,
    title: "TokenRequest",
    [ERROR_PHRASE]: "must be a JSON object",
    examples: [
      {
        address: EXAMPLE_OWNER,
        message: EXAMPLE_MESSAGE,
        signature: "3RgBQ5vCRwqDJmEAqXXfR4YJqnK5E3kq7MHT9cYtEcMh8P5RVTwc6SLfYsHzxQAu6ExGQbpvVbLcHbbF4kTpuX6Z",
      },
    ],
  },
);

export const TokenView = t.Object(
  {
    accessToken: t.String({ description: "EdDSA JWT; send it as `Authorization: Bearer <accessToken>`" }),
    tokenType: t.Literal("Bearer"),
    expiresIn: t.Number({ description: "seconds" }),
  },
  { ...CLOSED, title: "AccessToken", examples: [{ accessToken: "eyJhbGciOiJFZERTQSIsInR5cCI6IkpXVCJ9.eyJzdWIiOiI1aGlzREhHRDFoTHpVZHVNc1lYVjJGc21GcnciLCJleHAiOjE3OTU0NjEyMDB9.c2lnbmF0dXJl", tokenType: "Bearer", expiresIn: 3600 }] },
);

export const UserView = t.Object(
  {
    address: t.String({ description: "the signed-in wallet" }),
    createdAt: t.String({ description: "ISO-8601: first sign-in" }),
    lastSignInAt: t.String({ description: "ISO-8601" }),
    agents: t.Array(t.String(), { description: "nftMints of the agents this wallet owns" }),
  },
  {
    ...CLOSED,
    title: "User",
    examples: [{ address: EXAMPLE_OWNER, createdAt: "2026-11-23T22:41:50.000Z", lastSignInAt: "2026-11-23T22:41:50.000Z", agents: [EXAMPLE_MINT] }],
  },
);
