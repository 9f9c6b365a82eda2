import { TypeCompiler } from "@sinclair/typebox/compiler";
import { AgentView } from "./registry-models.ts";

/**
 * The agent lists' bodies written as JSON text from each agent's JSON, which the presenter makes
 * and checks once per record. Returning the page as objects made Elysia check every agent of every
 * page against the schema on each request (two arrays and a closure per agent: its closed-object
 * and array checks) and then JSON.stringify walk the page again; at 100,000 agents under load that
 * garbage set how often the collector paused the loop. The text is byte for byte what
 * JSON.stringify of `{ data, cursor }` gives (same keys, same order).
 */
const agentViewCheck = TypeCompiler.Compile(AgentView);

/** `view` as JSON text, after the same check Elysia's response validation made (a 500 if it fails). */
export function checkedAgentJson(view: AgentView): string {
  const { nftMint } = view;
  if (!agentViewCheck.Check(view)) throw new Error(`agent view ${nftMint} does not match the AgentView schema`);
  return JSON.stringify(view);
}

// The same header Elysia gave the object responses.
const JSON_HEADERS = { "content-type": "application/json;charset=utf-8" } as const;

/**
 * The list response. A Response is not checked again by Elysia (each agent's JSON was, once);
 * the route's AgentListView schema still documents it.
 */
export function agentListResponse(agentsJson: readonly string[], next: string | null): Response {
  const cursor = `{"next":${next === null ? "null" : JSON.stringify(next)},"hasMore":${next !== null}}`;
  return new Response(`{"data":[${agentsJson.join(",")}],"cursor":${cursor}}`, { headers: JSON_HEADERS });
}
