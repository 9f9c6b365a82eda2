import { Elysia } from "elysia";
import type { Logger } from "../application/ports/logger.ts";
import { HttpError, errorResponse } from "./http-error.ts";

/** Request bodies larger than this are refused before parsing: no payment needs more. */
export const MAX_BODY_BYTES = 64 * 1024;

/**
 * The single table that maps failures to HTTP. Elysia's own 422 (validation) and plain-text
 * 400 (parse) never reach a client; unexpected errors become a 500 with no internal detail.
 */
export function errorLayer(logger: Logger) {
  return new Elysia({ name: "error-layer" })
    .error({ HttpError })
    .onParse({ as: "global" }, async ({ request, contentType }) => parseJsonBody(request, contentType))
    .onError({ as: "global" }, ({ code, error, request }) => {
      switch (code) {
        case "HttpError":
          return errorResponse(error.statusCode, error.detail);
        case "PARSE":
          return errorResponse(400, "request body is not valid JSON");
        case "VALIDATION":
          return errorResponse(400, validationMessages(error));
        case "NOT_FOUND":
          return errorResponse(404, `no route for ${request.method} ${new URL(request.url).pathname}`);
        default:
          // SECURITY: internal detail (stack, SQL, RPC URLs) stays in the log, never in the response.
          logger.error("unhandled error", { code: String(code), error: describe(error) });
          return errorResponse(500, "internal error");
      }
    });
}

async function parseJsonBody(request: Request, contentType: string): Promise<unknown> {
  const declared = Number(request.headers.get("content-length") ?? "0");
  // SECURITY: a huge body is refused before it is buffered (memory exhaustion).
  if (declared > MAX_BODY_BYTES) throw new HttpError(400, `request body exceeds ${MAX_BODY_BYTES} bytes`);
  const text = await request.text();
  if (new TextEncoder().encode(text).byteLength > MAX_BODY_BYTES) {
    throw new HttpError(400, `request body exceeds ${MAX_BODY_BYTES} bytes`);
  }
  if (text.trim() === "") return undefined;
  if (contentType !== "" && !contentType.includes("json")) {
    throw new HttpError(400, "request body must be JSON (Content-Type: application/json)");
  }
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw new HttpError(400, "request body is not valid JSON");
  }
}

function validationMessages(error: unknown): string[] {
  if (error && typeof error === "object" && "all" in error) {
    const all = (error as { all: unknown }).all;
    if (Array.isArray(all)) {
      return all.map((e: { path?: string; message?: string; summary?: string }) =>
        `${e.path && e.path !== "" ? e.path.replace(/^\//, "").replaceAll("/", ".") : "value"}: ${e.summary ?? e.message ?? "invalid"}`,
      );
    }
  }
  return ["invalid request"];
}

function describe(error: unknown): string {
  return error instanceof Error ? `${error.name}: ${error.message}` : String(error);
}
