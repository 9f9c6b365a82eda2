/**
 * Example values of the registry's OpenAPI document: the payable sample agent the embedded ledger
 * seeds at every boot (src/infrastructure/registry/sample-agents), as the API answers for it,
 * so each example can be sent to a fresh `npm start` and gets these very answers.
 */
export const EXAMPLE_MINT = "7ChibyJdgvp2tmi9x714D3gPPU3LpotuaJqYSvgn2AYY";
export const EXAMPLE_OWNER = "5hisDHGD1hLzUduMsYXV2FsmFrw9KarebiwmjPm6cs53";
export const EXAMPLE_CURSOR = "YTE6MTc5NTAxNzYwMDozZ3E2bXZEQzVqZUF6RkVNeVpLYTR1akQ2Mjk2VFYyc1Q5WW1XcVhSNnZjdg";
const USDC = "4zMMC9srt5Ri5X14GAgXhaHii3GnPAEERYPJgZJDncDU";

export const EXAMPLE_AGENT = {
  nftMint: EXAMPLE_MINT,
  owner: EXAMPLE_OWNER,
  metadataUri: "https://weather-oracle.example.com/.well-known/agent-card.json",
  categories: ["data", "analytics"],
  active: true,
  reputation: { verifiedCount: 4, verifiedAvgScore: 92.25, unverifiedCount: 1, unverifiedAvgScore: 70, validationCount: 0 },
};

export const EXAMPLE_SERVICES = [
  { address: "53d2KYRWMxVzuxG6WsJnDUNNrdrHgXCYiCNMvS7X9G8o", serviceType: "a2a", endpoint: "https://weather-oracle.example.com/a2a", version: "0.3.0", active: true },
  { address: "Dj6vf9Ud8zFbDy5ibJ8YYxhDC7sqZArJrtCrCYnW8GaM", serviceType: "mcp", endpoint: "https://weather-oracle.example.com/mcp", version: "1.4.0", active: true },
  { address: "H5gWtcQkYrZtt22YJapLLvey9vAWHXWKydabpBCgAxcc", serviceType: "api", endpoint: "https://weather-oracle.example.com/v1/forecast", version: "1.4.0", active: true },
];

export const EXAMPLE_AGENT_DETAIL = {
  ...EXAMPLE_AGENT,
  address: "BWjUPVJsP2SUatn4w5tPKiPytj2c1nhyRTkZDK6NpE1a",
  ownerVersion: 0,
  feedbackAuthority: EXAMPLE_OWNER,
  metadataHash: "d68d3ee73d09065f88d23c914728aea13c593745b5775ed61ff3340301d92f23",
  tags: ["data", "analytics"],
  delegationCount: 0,
  createdAt: "2026-09-02T09:00:00.000Z",
  updatedAt: "2026-11-20T12:00:00.000Z",
  services: EXAMPLE_SERVICES,
};

export const EXAMPLE_FEEDBACK = [
  {
    address: "FRgMjmBBq9SP61jys9b5e3ja6XVc31ihZgXUxX49fit9",
    reviewer: "3eUKDmbq7GiYNzK7sh5NuyLrKCgWZ4Wcxv3YoTjpKK1W",
    score: 94,
    detailUri: "",
    tag1: "data",
    tag2: "",
    authVerified: true,
    hasPaymentProof: true,
    paymentAmount: 10000,
    paymentToken: USDC,
    revoked: false,
    createdAt: "2026-11-20T12:00:00.000Z",
  },
  {
    address: "2FNoiDUrCfCZLQTdr9Qfck4S1peYVek16Ca128ZhzbRF",
    reviewer: "9gGq4bjYwQ1efYoNwUmX7NqC8JeWkSNmCfAfM7a23JoU",
    score: 70,
    detailUri: "",
    tag1: "data",
    tag2: "",
    authVerified: false,
    hasPaymentProof: false,
    paymentAmount: 0,
    paymentToken: "",
    revoked: false,
    createdAt: "2026-11-09T21:30:00.000Z",
  },
];

export const EXAMPLE_CATEGORIES = [
  { name: "defi", hash: "da9fa35c3fa6e0914dd24584642a26aceadd8cc37616d9628be23fb7424846e3" },
  { name: "trading", hash: "0035e3bed3a10ebe81bc85bbf80cc092871ba344926efa491f195e36cc7e003b" },
];
