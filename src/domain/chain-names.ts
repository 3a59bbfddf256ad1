/**
 * Chains by name, one table (docs/chain.md "Chain names"): what people read wherever a chain id
 * would otherwise be shown, and the record's `blockchain` family a collection made for the chain
 * gets. The dev chain says its id, since every local EVM node uses 31337.
 */
export const BLOCKCHAIN_FAMILIES = ['ETHEREUM', 'BASE', 'TEZOS', 'ARBITRUM'] as const;
export type Blockchain = (typeof BLOCKCHAIN_FAMILIES)[number];

export const CHAIN_NAMES: Readonly<Record<number, { name: string; blockchain: Blockchain }>> = {
  // The dev chain rehearses the deployment on Arbitrum, the API's default family.
  31337: { name: 'Local dev chain (31337)', blockchain: 'ARBITRUM' },
  1: { name: 'Ethereum', blockchain: 'ETHEREUM' },
  8453: { name: 'Base', blockchain: 'BASE' },
  42161: { name: 'Arbitrum One', blockchain: 'ARBITRUM' },
  421614: { name: 'Arbitrum Sepolia', blockchain: 'ARBITRUM' },
};

/** "Base", "Local dev chain (31337)"; a chain outside the table: "Chain 10". */
export const chainName = (chainId: number): string => CHAIN_NAMES[chainId]?.name ?? `Chain ${chainId}`;

/** The `blockchain` family of a chain (ETHEREUM for one outside the table: any EVM chain). */
export const blockchainOf = (chainId: number): Blockchain => CHAIN_NAMES[chainId]?.blockchain ?? 'ETHEREUM';
