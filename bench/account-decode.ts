/**
 * Decode cost of the registry's hot account: 100,000 AgentIdentity accounts (the cold refresh of a
 * large registry), padded as the program allocates them. Prints the median of several rounds in
 * process CPU time, which a busy machine disturbs less than wall time (compare runs made together).
 *
 *   bun bench/account-decode.ts [count] [rounds]
 *
 * CPU time includes the collections the decoding causes (the garbage it makes is part of its cost).
 */
import { getAddressDecoder, type Address } from "@solana/kit";
import { decodeAgentIdentity, encodeAgentIdentity } from "../src/domain/registry/agent-identity.ts";
import { IndexedAgent } from "../src/domain/registry/indexed-agent.ts";
import { decodeIndexedAgent } from "../src/domain/registry/indexed-agent-decoder.ts";

const count = Number(process.argv[2] ?? 100_000);
const rounds = Number(process.argv[3] ?? 7);
const addressDecoder = getAddressDecoder();
const addressOf = (seed: number, salt: number): Address => {
  const bytes = new Uint8Array(32);
  new DataView(bytes.buffer).setUint32(0, seed, true);
  bytes[31] = salt;
  bytes[30] = 7;
  return addressDecoder.decode(bytes);
};

const accounts = Array.from({ length: count }, (_, i) => {
  const data = encodeAgentIdentity({
    nftMint: addressOf(i, 1),
    owner: addressOf(i, 2),
    ownerVersion: BigInt(i % 3),
    feedbackAuthority: addressOf(i, 3),
    metadataUri: `https://agent-${i}.example.com/.well-known/agent-card.json`,
    metadataHash: new Uint8Array(32).fill(i & 0xff),
    tags: Array.from({ length: 1 + (i % 4) }, (_, t) => new Uint8Array(32).fill(t + 1)),
    active: i % 10 !== 0,
    createdAt: 1_750_000_000n + BigInt(i),
    updatedAt: 1_760_000_000n + BigInt(i),
    verifiedFeedbackCount: BigInt(i % 7),
    verifiedScoreSum: BigInt((i % 7) * 80),
    unverifiedFeedbackCount: BigInt(i % 5),
    unverifiedScoreSum: BigInt((i % 5) * 60),
    validationCount: 0n,
    delegationCount: BigInt(i % 2),
    bump: 255,
  });
  const padded = new Uint8Array(8 + 32 + 32 + 8 + 32 + 204 + 32 + 164 + 1 + 8 + 8 + 48 + 1);
  padded.set(data);
  return padded;
});

/**
 * Three ways, alternating round by round so a busy machine disturbs each alike: kit's codec alone,
 * the index's agent as it was made before (kit's codec, then the compact object from its identity),
 * and decodeIndexedAgent (account bytes straight into the compact object, the index's way since).
 */
const ways = {
  "kit codec (AgentIdentity)": (data: Uint8Array, address: Address) => {
    const result = decodeAgentIdentity(data);
    if (!result.ok) throw new Error(result.detail);
    return result.value.active && address.length > 0;
  },
  "kit codec + new IndexedAgent": (data: Uint8Array, address: Address) => {
    const result = decodeAgentIdentity(data);
    if (!result.ok) throw new Error(result.detail);
    return new IndexedAgent(address, result.value).active;
  },
  decodeIndexedAgent: (data: Uint8Array, address: Address) => {
    const result = decodeIndexedAgent(address, data);
    if (!result.ok) throw new Error(result.detail);
    return result.value.active;
  },
};
const addresses = accounts.map((_, i) => addressOf(i, 9));
const timings: Record<string, number[]> = Object.fromEntries(Object.keys(ways).map((name) => [name, []]));
for (let round = 0; round < rounds; round++) {
  for (const [name, decode] of Object.entries(ways)) {
    const start = process.cpuUsage();
    let active = 0;
    for (let i = 0; i < accounts.length; i++) if (decode(accounts[i] as Uint8Array, addresses[i] as Address)) active++;
    const used = process.cpuUsage(start);
    timings[name]?.push((used.user + used.system) / 1000);
    if (active === 0) throw new Error("nothing decoded");
  }
}
for (const [name, list] of Object.entries(timings)) {
  list.sort((a, b) => a - b);
  const median = list[Math.floor(list.length / 2)] as number;
  console.log(`${name}, ${count} accounts: median ${median.toFixed(1)} ms CPU (${((median * 1000) / count).toFixed(2)} us each), min ${list[0]?.toFixed(1)} max ${list[list.length - 1]?.toFixed(1)} ms, ${rounds} rounds`);
}
