/**
 * Runs under Deno (not Bun): the listener probe against the Deno adapter, printed as one JSON
 * line for deno-http-listener.test.ts to judge.
 */
import { denoHttpListener } from "../../../src/infrastructure/http-listener/deno-http-listener.ts";
import { probeListener } from "./listener-probe.ts";

console.log(JSON.stringify(await probeListener(denoHttpListener)));
