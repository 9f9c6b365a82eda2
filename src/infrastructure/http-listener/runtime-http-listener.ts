import { bunHttpListener } from "./bun-http-listener.ts";
import { denoHttpListener } from "./deno-http-listener.ts";
import type { HttpListener } from "./http-listener.ts";

/** The listener of the runtime this process runs on: Bun or Deno. Node is not supported. */
export function runtimeHttpListener(): HttpListener {
  const runtime = globalThis as { Bun?: unknown; Deno?: unknown };
  if (typeof runtime.Bun !== "undefined") return bunHttpListener;
  if (typeof runtime.Deno !== "undefined") return denoHttpListener;
  throw new Error("no HTTP listener for this runtime: run the service with Bun or Deno");
}
