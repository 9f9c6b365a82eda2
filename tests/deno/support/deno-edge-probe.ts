/**
 * Runs under Deno (not Bun): the edge probe against the Deno adapter, `hosts` or `uploads`,
 * printed as one JSON line (see run-deno-edge-probe.ts).
 */
import { denoHttpListener } from "../../../src/infrastructure/http-listener/deno-http-listener.ts";
import { probeHostHeaders, probeRefusedUploads } from "./edge-probe.ts";

const UPLOADS = 20;
const part = process.argv.at(-1);
console.log(
  JSON.stringify(
    part === "hosts"
      ? await probeHostHeaders(denoHttpListener)
      : {
          uploads2MB: await probeRefusedUploads(denoHttpListener, 2 * 1024 * 1024, UPLOADS),
          uploads6MB: await probeRefusedUploads(denoHttpListener, 6 * 1024 * 1024, UPLOADS),
        },
  ),
);
