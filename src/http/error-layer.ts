import { Elysia } from "elysia";
import type { Logger } from "../application/ports/logger.ts";
import { CodedError, isCoded } from "../domain/coded-error.ts";
import { HttpError, errorResponse, httpStatusOf } from "./http-error.ts";
import { type SchemaViolation, violationMessages } from "./validation-messages.ts";
import { concatBytes } from "@noble/hashes/utils.js";

/** Request bodies larger than this are refused: no payment needs more. */
export const MAX_BODY_BYTES = 64 * 1024;

/**
 * The single table that maps failures to HTTP. Elysia's own 422 (validation) and plain-text
 * 400 (parse) never reach a client; unexpected errors become a 500 with no internal detail.
 * A request outside its route's schema is a 400 naming every problem; a response outside its
 * schema is our bug: a 500, logged with the route and what was wrong.
 */
export function errorLayer(logger: Logger) {
  return new Elysia({ name: "error-layer" })
    .onParse({ as: "global" }, async ({ request, contentType }) => parseJsonBody(request, contentType))
    .onError({ as: "global" }, ({ code, error, request, route, set }) => {
      // Checked before Elysia's `code`, which is a coded error's own code (Elysia reads `error.code`).
      let response: Response | null = codedResponse(error) ?? storeUnavailableResponse(error);
      if (response === null) switch (code) {
        case "PARSE": {
          // Elysia wraps whatever the body parser throws; the parser's own answer (413, 400) wins.
          response = codedResponse(error.cause) ?? errorResponse(400, "request body is not valid JSON");
          break;
        }
        case "VALIDATION": {
          const problems = violationMessages(violationsOf(error), ROOTS[error.type] ?? error.type);
          if (error.type === "response") {
            // SECURITY: paths and rules only; the response's values (tokens, keys) stay out of the log.
            logger.error("response does not match its schema", { route, problems: problems.join("; ") });
            response = errorResponse(500, "internal error");
          } else {
            response = errorResponse(400, problems.length === 1 ? (problems[0] ?? "invalid request") : problems);
          }
          break;
        }
        case "NOT_FOUND":
          response = errorResponse(404, `no route for ${request.method} ${pathOf(request.url)}`);
          break;
        default:
          // SECURITY: internal detail (stack, SQL, RPC URLs) stays in the log, never in the response.
          logger.error("unhandled error", { code: String(code), error: describe(error) });
          response = errorResponse(500, "internal error");
      }
      // Elysia leaves its own guess (500, 422, 200) in `set.status` after an error; request
      // logs and metrics read it, so it must carry the status actually sent.
      set.status = response.status;
      return response;
    });
}

/** A coded error with an HTTP status (http-error.ts), as the response; null for anything else. */
function codedResponse(error: unknown): Response | null {
  if (!(error instanceof CodedError)) return null;
  const status = httpStatusOf(error);
  return status === null ? null : errorResponse(status, error.detail);
}

/**
 * A store that cannot be reached is a 503 to retry wherever it escapes a handler (routes with their
 * own wording map it first). SECURITY: the error's detail names the database target; the answer
 * does not.
 */
function storeUnavailableResponse(error: unknown): Response | null {
  return isCoded(error, "STORE_UNAVAILABLE") ? errorResponse(503, "the settlement store is unavailable; retry shortly") : null;
}

async function parseJsonBody(request: Request, contentType: string): Promise<unknown> {
  const declared = Number(request.headers.get("content-length") ?? "0");
  // SECURITY: a declared oversize body is refused before a byte of it is read.
  if (declared > MAX_BODY_BYTES) throw tooLarge();
  const text = new TextDecoder().decode(await readCapped(request, MAX_BODY_BYTES));
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

/**
 * SECURITY: a chunked body has no content-length, so the cap is enforced while reading:
 * bytes are counted chunk by chunk and the stream is cancelled as soon as the count passes
 * `limit`. Buffering first (`request.text()`) let four 100 MB uploads take 800 MB of memory.
 */
async function readCapped(request: Request, limit: number): Promise<Uint8Array> {
  if (!request.body) return new Uint8Array(0);
  const reader = request.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > limit) {
      // Not awaited: a sender that stalls must not hold the 413 back.
      reader.cancel().catch(() => {});
      throw tooLarge();
    }
    chunks.push(value);
  }
  return concatBytes(...chunks);
}

function tooLarge(): HttpError {
  return new HttpError(413, `request body exceeds ${MAX_BODY_BYTES} bytes`);
}

/** How a 400 names the part of the request a problem is in, when the whole part is wrong. */
const ROOTS: Readonly<Record<string, string>> = { body: "request body", query: "query", params: "path", headers: "headers", response: "response" };

function violationsOf(error: { all: unknown }): SchemaViolation[] {
  return Array.isArray(error.all) ? (error.all as SchemaViolation[]) : [];
}

/** The listeners hand over parseable URLs (request-target.ts); an app served another way must not 500 here. */
function pathOf(url: string): string {
  try {
    return new URL(url).pathname;
  } catch {
    return "this path";
  }
}

function describe(error: unknown): string {
  return error instanceof Error ? `${error.name}: ${error.message}` : String(error);
}
