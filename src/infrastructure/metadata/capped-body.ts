import { concatBytes } from "@noble/hashes/utils.js";
import type { MetadataFetchFailure } from "../../application/ports/metadata-fetcher.ts";
import { errorCode, metadataFailure, timeoutFailure } from "./metadata-failure.ts";
import type { HttpsExchange } from "./pinned-https-transport.ts";

/**
 * The whole body of `exchange`, or METADATA_TOO_LARGE as soon as it passes `maxBytes`.
 *
 * SECURITY: memory exhaustion. A declared Content-Length over the cap is refused before reading;
 * otherwise reading stops (and the connection is dropped) at the first chunk past the cap, whatever
 * the origin declared, so at most `maxBytes` of body is ever held.
 *
 * @example
 * const bytes = await readBodyWithinCap(exchange, 1024 * 1024, signal);
 */
export async function readBodyWithinCap(
  exchange: HttpsExchange,
  maxBytes: number,
  signal: AbortSignal,
): Promise<Uint8Array | MetadataFetchFailure> {
  const declared = Number(exchange.header("content-length") ?? Number.NaN);
  if (Number.isFinite(declared) && declared > maxBytes) {
    exchange.close();
    return tooLarge(maxBytes);
  }
  const chunks: Uint8Array[] = [];
  let total = 0;
  try {
    for await (const chunk of exchange.body) {
      total += chunk.byteLength;
      if (total > maxBytes) {
        exchange.close();
        return tooLarge(maxBytes);
      }
      chunks.push(chunk);
    }
  } catch (error) {
    exchange.close();
    if (signal.aborted) return timeoutFailure();
    return metadataFailure("METADATA_ORIGIN_DOWN", `the metadata origin dropped the connection (${errorCode(error) ?? "read failed"})`);
  }
  return concatBytes(...chunks);
}

function tooLarge(maxBytes: number): MetadataFetchFailure {
  return metadataFailure("METADATA_TOO_LARGE", `the metadata document is larger than ${maxBytes} bytes`);
}
