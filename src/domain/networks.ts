/** CAIP-2 identifiers: `solana:<first 32 chars of the genesis hash>`. */
export const SOLANA_DEVNET = "solana:EtWTRABZaYq6iMfeYKouRu166VU2xqa1";
export const SOLANA_MAINNET = "solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp";

/** A CAIP-2 chain id as a pattern: `namespace:reference` (CAIP-2's own character classes and lengths). */
export const CAIP2_PATTERN = "^[-a-z0-9]{3,8}:[-_a-zA-Z0-9]{1,32}$";

/** Full genesis hashes, which the embedded ledger reports so clients recognise devnet. */
export const DEVNET_GENESIS_HASH = "EtWTRABZaYq6iMfeYKouRu166VU2xqa1wcuWFUBDuyi";

/** The CAIP-2 id of the Solana cluster whose genesis block has this hash. */
export function networkOfGenesisHash(genesisHash: string): string {
  return `solana:${genesisHash.slice(0, 32)}`;
}

export const DEVNET_USDC_MINT = "4zMMC9srt5Ri5X14GAgXhaHii3GnPAEERYPJgZJDncDU";
/** The devnet USDC x84's docs, client (`USDC_MINT_DEVNET`) and middleware use. */
export const X84_DEVNET_USDC_MINT = "Gh9ZwEmdLJ8DscKNTkTqPbNwLNNBjuSzaG9Vp2KGtKJr";
export const USDC_DECIMALS = 6;

/**
 * The assets accepted when USDC_MINT is unset. On devnet both devnet USDCs in use: the x402
 * packages' and x84's, so x84's buyers and sellers work without configuration (issue 25). The
 * first is the one a development ledger funds. Elsewhere the single historical default is kept.
 */
export function defaultAssetsOf(network: string): readonly string[] {
  return network === SOLANA_DEVNET ? [DEVNET_USDC_MINT, X84_DEVNET_USDC_MINT] : [DEVNET_USDC_MINT];
}

/** x402 v1 used bare network names; v2 uses CAIP-2. */
const V1_TO_CAIP2: Readonly<Record<string, string>> = Object.freeze({
  "solana-devnet": SOLANA_DEVNET,
  solana: SOLANA_MAINNET,
});

export function caip2FromV1Network(name: string): string | null {
  return V1_TO_CAIP2[name] ?? null;
}

export function v1NetworkFromCaip2(caip2: string): string | null {
  for (const [v1, id] of Object.entries(V1_TO_CAIP2)) if (id === caip2) return v1;
  return null;
}
