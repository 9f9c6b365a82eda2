import { t } from "elysia";
import {
  MAX_AGENT_NAME_LENGTH,
  MAX_AGENT_TAGS,
  MAX_METADATA_URI_LENGTH,
} from "../../domain/registry/register-agent.ts";

const Base58Address = (description: string) => t.String({ pattern: "^[1-9A-HJ-NP-Za-km-z]{32,44}$", description });

/**
 * POST /agents/register, the x84 SDK's RegisterAgentParams plus an optional feedbackAuthority.
 * Elysia checks shape here; the rules that need the category list or a URL parser (tag names,
 * the URI's scheme) are checked in register-routes.ts, each with its own 400 message.
 */
export const RegisterAgentBody = t.Object(
  {
    name: t.String({ minLength: 1, maxLength: MAX_AGENT_NAME_LENGTH, description: "agent name" }),
    ownerAddress: Base58Address("owner wallet (base58): pays the fee and signs last"),
    metadataUri: t.String({ minLength: 1, maxLength: MAX_METADATA_URI_LENGTH, description: "https: or ipfs: URI of the metadata JSON" }),
    tags: t.Optional(t.Array(t.String({ minLength: 1, maxLength: 64 }), { maxItems: MAX_AGENT_TAGS, description: "category names or strings of at most 32 characters" })),
    feedbackAuthority: t.Optional(Base58Address("who may authorise feedback (default: the owner)")),
  },
  { additionalProperties: true },
);
export type RegisterAgentBody = typeof RegisterAgentBody.static;

export const RegisterAgentView = t.Object({
  transaction: t.String({ description: "base64 wire transaction, signed by the config authority and the asset; the owner's slot is empty" }),
  assetPublicKey: t.String(),
  agentPda: t.String(),
  blockhash: t.String(),
  lastValidBlockHeight: t.Number(),
});
export type RegisterAgentView = typeof RegisterAgentView.static;
