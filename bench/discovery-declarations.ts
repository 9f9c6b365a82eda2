/**
 * Benchmark (not a test): the CPU one Bazaar declaration costs the facilitator after a settlement,
 * read with @x402/extensions' validators through the reader the service uses. `first` is a
 * declaration never seen (the package builds a new Ajv per validation); `repeat` is the same
 * declaration again (the verdict cache); `locate` is what a /verify refresh costs (no schema check).
 * Rounds alternate the three so machine noise hits each alike; prints median and spread (min..max)
 * of each round's mean, in ms per declaration.
 *
 *   npx bun bench/discovery-declarations.ts [--rounds 7] [--per-round 20]
 */
import { declareDiscoveryExtension } from "@x402/extensions/bazaar";
import { createBazaarDeclarationReader } from "../src/infrastructure/discovery/bazaar-declarations.ts";

function flag(name: string, fallback: number): number {
  const at = process.argv.indexOf(`--${name}`);
  return at === -1 ? fallback : Number(process.argv[at + 1]);
}

const rounds = flag("rounds", 7);
const perRound = flag("per-round", 20);
const requirements = { scheme: "exact", network: "solana:EtWTRABZaYq6iMfeYKouRu166VU2xqa1", asset: "4zMMC9srt5Ri5X14GAgXhaHii3GnPAEERYPJgZJDncDU", amount: "10000", payTo: "5uX8qJt8bX3zq2m9m5fZ4Bq9oWj3xZc8tLkQ1yN2pVxA" };
let distinct = 0;

function bodyOf(city: string) {
  const declared = declareDiscoveryExtension({ input: { city }, inputSchema: { properties: { city: { type: "string" } }, required: ["city"] } })["bazaar"] as unknown as { info: { input: Record<string, unknown> } };
  const bazaar = { ...declared, info: { ...declared.info, input: { ...declared.info.input, method: "GET" } } };
  return { paymentPayload: { x402Version: 2, accepted: requirements, resource: { url: "https://api.example.com/weather" }, payload: { transaction: "AA==" }, extensions: { bazaar } }, paymentRequirements: requirements };
}

const reader = createBazaarDeclarationReader();
const repeated = bodyOf("Lisbon");
reader.read(repeated);

const cases: Record<string, () => void> = {
  first: () => {
    if (reader.read(bodyOf(`city-${distinct++}`)).kind !== "valid") throw new Error("invalid");
  },
  repeat: () => {
    if (reader.read(repeated).kind !== "valid") throw new Error("invalid");
  },
  locate: () => {
    if (!reader.locate(bodyOf(`city-${distinct++}`))) throw new Error("not located");
  },
};
const results: Record<string, number[]> = { first: [], repeat: [], locate: [] };
for (let round = 0; round < rounds; round++) {
  for (const [name, run] of Object.entries(cases)) {
    const start = performance.now();
    for (let i = 0; i < perRound; i++) run();
    results[name]?.push((performance.now() - start) / perRound);
  }
}
const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? NaN;
for (const [name, values] of Object.entries(results)) {
  console.log(`${name.padEnd(7)} median ${median(values).toFixed(3)} ms/declaration  spread ${Math.min(...values).toFixed(3)}..${Math.max(...values).toFixed(3)}  (${rounds} rounds x ${perRound})`);
}
