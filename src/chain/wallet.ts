/**
 * The platform wallet: the one account that signs Atelier's chain writes (spec §5.3).
 * The key is never logged; only the address is. Which signer holds the key (NFT_SIGNER) is
 * chosen in chain/signers/signer.ts (`platformAccount`); this module imports nothing of ours so
 * the signers can use its constants without an import cycle.
 */

/**
 * Anvil's dev account #0 (mnemonic "test test ... junk"). Public knowledge, funded on every
 * fresh anvil: usable on the dev chain only, where nothing has value.
 */
export const DEV_PRIVATE_KEY = '0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80' as const;
export const DEV_ADDRESS = '0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266' as const;

/** Structurally compatible with pino; the chain modules log through this. */
export interface ChainLogger {
  info(obj: object, msg?: string): void;
  warn(obj: object, msg?: string): void;
  error(obj: object, msg?: string): void;
  debug?(obj: object, msg?: string): void;
}

export class MissingPrivateKeyError extends Error {
  constructor(readonly chainId: number) {
    super(`NFT_DEPLOYER_PRIVATE_KEY is not set; it is required for chain ${chainId}`);
    this.name = 'MissingPrivateKeyError';
  }
}
