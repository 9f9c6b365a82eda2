/**
 * Decode cost of the registry's hot account: 100,000 AgentIdentity accounts (the cold refresh of a
 * large registry), padded as the program allocates them. Prints the median of several rounds in
 * process CPU time, which a busy machine disturbs less than wall time (compare runs made together).
 *
 *   bun bench/account-decode.ts [count] [rounds]
 */
import { getAddressDecoder, type Address } from "@solana/kit";
import { decodeAgentIdentity, encodeAgentIdentity } from "../src/domain/registry/agent-identity.ts";

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

const timings: number[] = [];
for (let round = 0; round < rounds; round++) {
  const start = process.cpuUsage();
  let active = 0;
  for (const data of accounts) {
    const result = decodeAgentIdentity(data);
    if (!result.ok) throw new Error(result.detail);
    if (result.value.active) active++;
  }
  const used = process.cpuUsage(start);
  timings.push((used.user + used.system) / 1000);
  if (active === 0) throw new Error("nothing decoded");
}
timings.sort((a, b) => a - b);
const median = timings[Math.floor(timings.length / 2)] as number;
console.log(`decode ${count} AgentIdentity: median ${median.toFixed(1)} ms CPU (${((median * 1000) / count).toFixed(2)} us each), min ${timings[0]?.toFixed(1)} ms, ${rounds} rounds`);
