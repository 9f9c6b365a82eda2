import { t } from "elysia";
import { MAX_AGENT_TAGS, MAX_FREE_TAG_LENGTH } from "../../domain/registry/register-agent.ts";
import { MAX_AGENT_NAME_BYTES, MAX_METADATA_URI_BYTES } from "../../domain/registry/registration-fields.ts";
import { ERROR_PHRASE } from "../validation-messages.ts";
import { EXAMPLE_OWNER } from "./examples.ts";
import { BASE58_ADDRESS_PATTERN } from "./registry-models.ts";

const Base58Address = (description: string) =>
  t.String({ pattern: BASE58_ADDRESS_PATTERN, [ERROR_PHRASE]: "must be a base58 address", description, examples: [EXAMPLE_OWNER] });

/**
 * POST /agents/register, the x84 SDK's RegisterAgentParams plus an optional feedbackAuthority.
 * Elysia checks shape here; the rules that need the category list, a URL parser or a UTF-8 count
 * (tag names, the URI's scheme, byte lengths, hidden characters) are checked in register-routes.ts,
 * each with its own 400 message. `maxLength` counts UTF-16 units, never more than UTF-8 bytes, so
 * it refuses nothing the byte rule accepts.
 */
export const RegisterAgentBody = t.Object(
  {
    name: t.String({
      minLength: 1,
      maxLength: MAX_AGENT_NAME_BYTES,
      [ERROR_PHRASE]: `must be 1 to ${MAX_AGENT_NAME_BYTES} bytes of UTF-8`,
      description: `agent name: 1 to ${MAX_AGENT_NAME_BYTES} bytes of UTF-8 (${MAX_AGENT_NAME_BYTES} ASCII characters, 16 emoji); no control or invisible formatting characters`,
    }),
    ownerAddress: Base58Address("owner wallet (base58): pays the fee and signs last"),
    metadataUri: t.String({
      minLength: 1,
      maxLength: MAX_METADATA_URI_BYTES,
      [ERROR_PHRASE]: `must be 1 to ${MAX_METADATA_URI_BYTES} bytes of UTF-8`,
      description: `https: or ipfs: URI of the metadata JSON (fetched and hashed; outside production with METADATA_ALLOW_LOOPBACK also http://127.0.0.1 or http://localhost): at most ${MAX_METADATA_URI_BYTES} bytes of UTF-8, no whitespace or control characters`,
    }),
    tags: t.Optional(
      t.Array(t.String({ minLength: 1, maxLength: 64 }), {
        maxItems: MAX_AGENT_TAGS,
        [ERROR_PHRASE]: `must be at most ${MAX_AGENT_TAGS} non-empty strings`,
        description: `category names (any case) or other tags of at most ${MAX_FREE_TAG_LENGTH} characters`,
      }),
    ),
    feedbackAuthority: t.Optional(Base58Address("who may authorise feedback (default: the owner)")),
  },
  {
    additionalProperties: true,
    title: "RegisterAgentRequest",
    [ERROR_PHRASE]: "must be a JSON object",
    examples: [{ name: "Weather oracle", ownerAddress: EXAMPLE_OWNER, metadataUri: "https://weather-oracle.example.com/.well-known/agent-card.json", tags: ["data", "analytics"] }],
  },
);
export type RegisterAgentBody = typeof RegisterAgentBody.static;

/** A real answer of the embedded ledger for the request example (the config authority and asset signed). */
const REGISTER_EXAMPLE = {
  transaction:
    "AwAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAClJfRjvPR8iGszEJeEY1aVZkL80CAh/6XBVnN835ddONBa9LLA747FOsqsbByYnmnJH0THJvQCWFDDoIJFiaIEUf0RksTe/cobH9HqDCcFE6Od8K6MYqoO85hrnANnEf4lxp+anuhuusodo0JXMisslQ/tbqCza7qgfLRbccbCDAMBBApF3VFak/Qi4W9gHe8dzZz1Cjg4nmnVIqPSiVR6bKjMui5fh6jaEjQdMNBVdgyBK8i7daik48Lm1eJVtMMpfurs4cyJtjcSPS3YHY0LYVRxKSUB7kuzwHUKhw7UmZr3W/JCqQshAdDNn8zS1dhWz1UUhQM3bRoKM4YwEqhRNRgIOLgcUXBeI9IP+XtEyX7hNVAk5cQ5Hnl7pX3wRvzUUw1813ebj3A05gxr/p1Idla7IGSBN9dd83n8y4MlFjCbrlYAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAK9UqxC9l6VCoJ73s5iJ3QzTlKTM6d+mzcl+vi0jW6dIwCc0BCikuYhNJtVmKCTs0wwz7KZz+pMs9l9amRJh28YHt2hu7Y0f7JpyDT5OtxVL2V9GKFNXOxm2VgxS64RhWCOiMcqtKfyNo225Ktwq7XkbArA4MeOCUWqTlAiAhTSiAQkJCAIFAAEDBAcG4AGHnULDAnGvHg4AAABXZWF0aGVyIG9yYWNsZT4AAABodHRwczovL3dlYXRoZXItb3JhY2xlLmV4YW1wbGUuY29tLy53ZWxsLWtub3duL2FnZW50LWNhcmQuanNvbhsdqbJ697frtFYjvmPsUjOHUYR0MdxWJt/aoI8MtsFpRd1RWpP0IuFvYB3vHc2c9Qo4OJ5p1SKj0olUemyozLoCAAAAOm6weQ85rIfJTzhWst0sXREOaBFgImGpqSPTuyOtyLdl+YEhoWKlatjukZ7Z6jlLnqvYcUYWrPMGNsYJLuNQuQ==",
  assetPublicKey: "482EzYMX8UNNr5EMDCm99G2uw3R4voiBVLBv63FpcAVh",
  agentPda: "FW6SKrAgicPcvVaBwYagGsyD4JsN2EA6mtRe3hK2sNw7",
  blockhash: "3Q6iUTXLz8NUihmoeWhnjA2ACDWARjrCb6agDYUYMHS9",
  lastValidBlockHeight: 440208152,
};

export const RegisterAgentView = t.Object(
  {
    transaction: t.String({ description: "base64 wire transaction, signed by the config authority and the asset; the owner's slot is empty" }),
    assetPublicKey: t.String({ description: "the new agent's asset (its nftMint)" }),
    agentPda: t.String(),
    blockhash: t.String(),
    lastValidBlockHeight: t.Number(),
  },
  { additionalProperties: false, title: "RegisterAgentResponse", examples: [REGISTER_EXAMPLE] },
);
export type RegisterAgentView = typeof RegisterAgentView.static;
