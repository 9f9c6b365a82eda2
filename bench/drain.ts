/**
 * `npm run bench:drain`: plays the attacker against the facilitator on its default settings and
 * reports what each accepted settlement costs our fee payer, and how fast it can be drained. A
 * benchmark, not a test: it prints figures, it asserts nothing.
 *
 * Real pieces: the whole service (buildService) on the embedded litesvm ledger with real SPL Token
 * and PGlite, driven through the facilitator app. Each strategy sends `--n` payments with
 * `--c` in flight; the fee payer's lamports are read from the ledger before and after.
 *
 *   bun run bench/drain.ts [--n 200] [--c 16] [--only name]
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type AccountSignerMeta, AccountRole, type Address, type Blockhash, type Instruction, generateKeyPairSigner } from "@solana/kit";
import { silentLogger } from "../src/application/ports/logger.ts";
import { parseServiceConfig } from "../src/infrastructure/config/service-config.ts";
import type { LocalLedger } from "../src/infrastructure/ledger/local-ledger.ts";
import { buildService } from "../src/composition/service.ts";
import {
  type Actors,
  USDC,
  buildTransaction,
  computeLimit,
  computePrice,
  memoInstruction,
  requirementsFor,
  requirementsJson,
  transferInstruction,
} from "../fixtures/payment-builder.ts";

const args = new Map<string, string>();
for (let i = 2; i < process.argv.length; i += 2) args.set(process.argv[i]?.replace(/^--/, "") ?? "", process.argv[i + 1] ?? "");
const N = Number(args.get("n") ?? 200);
const CONCURRENCY = Number(args.get("c") ?? 16);

type Attack = Readonly<{
  name: string;
  what: string;
  env?: Readonly<Record<string, string>>;
  /** Distinct attacker wallets (default: up to 64). */
  wallets?: number;
  /** One attack payment: instructions and the requirements' amount and payTo. */
  build(attacker: Actors, accomplice: Actors): Promise<Readonly<{ instructions: Instruction[]; amount: bigint; payTo: Address; actors: Actors }>>;
}>;

async function extraSigners(count: number): Promise<Instruction> {
  const metas: AccountSignerMeta[] = [];
  for (let i = 0; i < count; i++) {
    const signer = await generateKeyPairSigner();
    metas.push({ address: signer.address, role: AccountRole.READONLY_SIGNER, signer });
  }
  return { ...memoInstruction(crypto.randomUUID()), accounts: metas };
}

const ATTACKS: readonly Attack[] = [
  {
    name: "zero-self-max-fee",
    what: "0-amount self-transfer, 400,000 CU x 5,000,000 µlamports, 3 extra memo signers (the issue's attack)",
    async build(attacker) {
      const self = { ...attacker, payTo: attacker.payer };
      const instructions = [computeLimit(400_000), computePrice(5_000_000n), await transferInstruction(self, { amount: 0n }), await extraSigners(3)];
      return { instructions, amount: 0n, payTo: attacker.payer.address, actors: self };
    },
  },
  {
    name: "one-unit-max-fee",
    what: "1 base unit to the attacker's own second wallet at 400,000 CU x 5,000,000 µlamports",
    async build(attacker, accomplice) {
      const actors = { ...attacker, payTo: accomplice.payer };
      const instructions = [computeLimit(400_000), computePrice(5_000_000n), await transferInstruction(actors, { amount: 1n }), memoInstruction(crypto.randomUUID())];
      return { instructions, amount: 1n, payTo: accomplice.payer.address, actors };
    },
  },
  {
    name: "one-unit-at-caps",
    what: "the most a payment may cost under the caps: 1 base unit to the attacker's second wallet, priority fee 25,000 lamports",
    async build(attacker, accomplice) {
      const actors = { ...attacker, payTo: accomplice.payer };
      const instructions = [computeLimit(5_000), computePrice(5_000_000n), await transferInstruction(actors, { amount: 1n }), memoInstruction(crypto.randomUUID())];
      return { instructions, amount: 1n, payTo: accomplice.payer.address, actors };
    },
  },
  {
    name: "one-wallet-at-caps",
    what: "as one-unit-at-caps from a single wallet: the per-payer fee budget (default 10,000,000 lamports per hour) stops it",
    wallets: 1,
    build: (attacker, accomplice) => ATTACKS[2]!.build(attacker, accomplice),
  },
  {
    name: "stranger-registered-agents",
    what: "as one-unit-at-caps, with PAYTO_POLICY=registered-agents (the attacker's wallet owns no agent)",
    env: { PAYTO_POLICY: "registered-agents" },
    build: (attacker, accomplice) => ATTACKS[2]!.build(attacker, accomplice),
  },
];

async function run(attack: Attack): Promise<void> {
  const dataDir = mkdtempSync(join(tmpdir(), "drain-bench-"));
  const env = { DATA_DIR: dataDir, LOG_LEVEL: "silent", ...attack.env };
  const parsed = parseServiceConfig(env);
  if (!parsed.ok) throw new Error(parsed.errors.join("; "));
  const service = await buildService(parsed.config, env, silentLogger);
  const ledger = service.embeddedLedger as LocalLedger;
  const feePayer = service.feePayers.addresses[0] as Address;
  try {
    // Attackers: many wallets, each funded with a little USDC, so per-payer limits are met fairly.
    const wallets: Actors[] = [];
    for (let i = 0; i < (attack.wallets ?? Math.min(N, 64)); i++) {
      const [payer, payTo] = await Promise.all([generateKeyPairSigner(), generateKeyPairSigner()]);
      await ledger.setTokenAccount(payer.address, USDC, { amount: 1_000_000n });
      await ledger.setTokenAccount(payTo.address, USDC, { amount: 0n });
      wallets.push({ payer, payTo, feePayer: payer });
    }
    const bodies: Record<string, unknown>[] = [];
    for (let i = 0; i < N; i++) {
      const attacker = wallets[i % wallets.length]!;
      const accomplice = wallets.length === 1 ? { ...attacker, payer: attacker.payTo } : wallets[(i + 1) % wallets.length]!;
      const { instructions, amount, payTo, actors } = await attack.build(attacker, accomplice);
      const { blockhash } = await ledger.getLatestBlockhash();
      const transaction = await buildTransaction(actors, { feePayerAddress: feePayer, blockhash: blockhash as Blockhash, instructions });
      const json = requirementsJson(requirementsFor(actors, { amount, payTo, extra: { feePayer } }));
      bodies.push({ x402Version: 2, paymentPayload: { x402Version: 2, accepted: json, payload: { transaction } }, paymentRequirements: json });
    }

    const before = (await ledger.getAccount(feePayer))?.lamports ?? 0n;
    const reasons = new Map<string, number>();
    let next = 0;
    const started = performance.now();
    await Promise.all(
      Array.from({ length: CONCURRENCY }, async () => {
        while (next < bodies.length) {
          const body = bodies[next++];
          const response = await service.facilitatorApp.handle(
            new Request("http://drain.bench/settle", { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) }),
          );
          const reply = (await response.json()) as Record<string, unknown>;
          const reason = reply["success"] === true ? "accepted" : String(reply["errorReason"] ?? response.status);
          reasons.set(reason, (reasons.get(reason) ?? 0) + 1);
        }
      }),
    );
    const seconds = (performance.now() - started) / 1000;
    const spent = before - ((await ledger.getAccount(feePayer))?.lamports ?? 0n);
    const accepted = reasons.get("accepted") ?? 0;
    console.log(
      JSON.stringify({
        attack: attack.name,
        what: attack.what,
        attempts: N,
        accepted,
        answers: Object.fromEntries(reasons),
        lamportsSpent: Number(spent),
        lamportsPerAccepted: accepted === 0 ? 0 : Math.round(Number(spent) / accepted),
        lamportsPerSecond: Math.round(Number(spent) / seconds),
        seconds: Number(seconds.toFixed(2)),
      }),
    );
  } finally {
    await service.close(1_000);
    rmSync(dataDir, { recursive: true, force: true });
  }
}

const only = args.get("only");
for (const attack of ATTACKS) if (!only || only === attack.name) await run(attack);
process.exit(0);
