/**
 * Run under the real deno binary (tests/deno/deno-bazaar-validator.test.ts): the service's Bazaar
 * validator on Deno, whose Worker.terminate() does not stop a Worker busy in JavaScript. Prints one
 * JSON line of verdicts and how long the hostile declaration took.
 */
import { createBazaarValidator } from "../../../src/infrastructure/discovery/bazaar-validator.ts";
import { recursiveRef, stockGet } from "../../discovery/support/bazaar-declarations.ts";

const validate = createBazaarValidator();
const stock = await validate(stockGet("Lisbon"));
const started = performance.now();
// Depth 30: unending in Ajv (the review's process spun until it died of OOM).
const hostile = await validate(recursiveRef(30));
const hostileMs = Math.round(performance.now() - started);
const shallowHostile = await validate(recursiveRef(14));
// The runtime's policy: a timeout (1 ms, less than any validation) stops validation, no new Worker.
const strict = createBazaarValidator({ timeoutMs: 1 });
const timedOut = await strict(stockGet("Porto"));
const afterTimeout = await strict(stockGet("Faro"));
console.log(JSON.stringify({ stock, hostile, hostileMs, shallowHostile, timedOut, afterTimeout }));
// Validators leave an idle Worker for 60 s; the probe ends now.
process.exit(0);
