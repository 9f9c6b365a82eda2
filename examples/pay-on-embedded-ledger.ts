/**
 * A real x402 payment against a running `npm start` (embedded ledger): funds a new payer through
 * the ledger's cheat codes, builds and signs a TransferChecked with @solana/kit, then calls
 * /supported, /verify and /settle and prints the balances before and after. Then the merchant
 * signs in to the registry with its wallet (Sign-In With Solana) and reads GET /users/me.
 *
 *   bun run examples/pay-on-embedded-ledger.ts [facilitatorUrl] [ledgerRpcUrl] [registryUrl]
 *
 * Given a facilitator URL but no registry URL, the sign-in step is skipped.
 */
import { getSetComputeUnitLimitInstruction, getSetComputeUnitPriceInstruction } from "@solana-program/compute-budget";
import { TOKEN_PROGRAM_ADDRESS, findAssociatedTokenPda, getTransferCheckedInstruction } from "@solana-program/token";
import {
  type Address,
  appendTransactionMessageInstructions,
  createSolanaRpc,
  createTransactionMessage,
  generateKeyPairSigner,
  getBase58Decoder,
  getBase64EncodedWireTransaction,
  partiallySignTransactionMessageWithSigners,
  pipe,
  setTransactionMessageFeePayer,
  setTransactionMessageLifetimeUsingBlockhash,
  signBytes,
} from "@solana/kit";

const facilitator = process.argv[2] ?? "http://127.0.0.1:4020";
const ledgerUrl = process.argv[3] ?? "http://127.0.0.1:8899";
const registry = process.argv[4] ?? (process.argv[2] === undefined ? "http://127.0.0.1:3000" : null);
const USDC = "4zMMC9srt5Ri5X14GAgXhaHii3GnPAEERYPJgZJDncDU" as Address;
const NETWORK = "solana:EtWTRABZaYq6iMfeYKouRu166VU2xqa1";
const AMOUNT = 1_500_000n; // 1.5 USDC

const rpc = createSolanaRpc(ledgerUrl);

async function cheat(method: string, params: unknown[]): Promise<void> {
  const response = await fetch(ledgerUrl, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method, params }),
  });
  const body = (await response.json()) as { error?: { message: string } };
  if (body.error) throw new Error(`${method}: ${body.error.message}`);
}

async function usdcBalance(owner: Address): Promise<string> {
  const [ata] = await findAssociatedTokenPda({ owner, mint: USDC, tokenProgram: TOKEN_PROGRAM_ADDRESS });
  try {
    return (await rpc.getTokenAccountBalance(ata).send()).value.uiAmountString ?? "0";
  } catch {
    return "0";
  }
}

async function post(path: string, body: unknown, base = facilitator): Promise<unknown> {
  const response = await fetch(`${base}${path}`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
  return response.json();
}

// 1. Who pays the fee: the facilitator advertises its fee payer in /supported.
const supported = (await (await fetch(`${facilitator}/supported`)).json()) as { kinds: { extra: { feePayer: Address } }[] };
const feePayer = supported.kinds[0]?.extra.feePayer;
if (!feePayer) throw new Error("facilitator advertises no fee payer");

// 2. A payer with 10 USDC and a merchant, funded through the embedded ledger's cheat codes.
const payer = await generateKeyPairSigner();
const merchant = await generateKeyPairSigner();
await cheat("surfnet_setTokenAccount", [payer.address, USDC, { amount: 10_000_000 }]);
await cheat("surfnet_setTokenAccount", [merchant.address, USDC, { amount: 0 }]);
console.log(`payer ${payer.address}: ${await usdcBalance(payer.address)} USDC; merchant ${merchant.address}: ${await usdcBalance(merchant.address)} USDC`);

// 3. The payment: compute budget, one TransferChecked, fee payer = facilitator, signed by the payer only.
const [source] = await findAssociatedTokenPda({ owner: payer.address, mint: USDC, tokenProgram: TOKEN_PROGRAM_ADDRESS });
const [destination] = await findAssociatedTokenPda({ owner: merchant.address, mint: USDC, tokenProgram: TOKEN_PROGRAM_ADDRESS });
const { value: blockhash } = await rpc.getLatestBlockhash().send();
const message = pipe(
  createTransactionMessage({ version: 0 }),
  (m) => setTransactionMessageFeePayer(feePayer, m),
  (m) => setTransactionMessageLifetimeUsingBlockhash(blockhash, m),
  (m) =>
    appendTransactionMessageInstructions(
      [
        getSetComputeUnitLimitInstruction({ units: 20_000 }),
        getSetComputeUnitPriceInstruction({ microLamports: 1n }),
        getTransferCheckedInstruction({ source, mint: USDC, destination, authority: payer, amount: AMOUNT, decimals: 6 }),
      ],
      m,
    ),
);
const transaction = getBase64EncodedWireTransaction(await partiallySignTransactionMessageWithSigners(message));
const requirements = { scheme: "exact", network: NETWORK, asset: USDC, amount: AMOUNT.toString(), payTo: merchant.address, maxTimeoutSeconds: 60, extra: { feePayer } };
const body = { paymentPayload: { x402Version: 2, accepted: requirements, payload: { transaction } }, paymentRequirements: requirements };

// 4. Verify, then settle.
console.log("verify:", JSON.stringify(await post("/verify", body)));
const settled = (await post("/settle", body)) as { success: boolean; transaction: string };
console.log("settle:", JSON.stringify(settled));
console.log(`payer: ${await usdcBalance(payer.address)} USDC; merchant: ${await usdcBalance(merchant.address)} USDC`);
console.log("settle again (idempotent):", JSON.stringify(await post("/settle", body)));
if (!settled.success) process.exit(1);

// 5. The merchant signs in to the registry: sign the challenge's message with its wallet key, trade
//    the signature for a bearer token, read its profile (agents it owns on the registry program).
if (registry) {
  const { message } = (await post("/auth/challenge", { address: merchant.address }, registry)) as { message: string };
  const signature = getBase58Decoder().decode(await signBytes(merchant.keyPair.privateKey, new TextEncoder().encode(message)));
  const token = (await post("/auth/token", { address: merchant.address, message, signature }, registry)) as { accessToken?: string };
  if (!token.accessToken) throw new Error(`sign-in refused: ${JSON.stringify(token)}`);
  const me = await fetch(`${registry}/users/me`, { headers: { authorization: `Bearer ${token.accessToken}` } });
  console.log("signed in; /users/me:", me.status, JSON.stringify(await me.json()));
  if (me.status !== 200) process.exit(1);
} else {
  console.log("sign-in skipped: pass the registry URL as the third argument");
}
