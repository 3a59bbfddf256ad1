/** The default signer: the key in NFT_DEPLOYER_PRIVATE_KEY, or anvil's dev key on the dev chain. */
import { privateKeyToAccount, type PrivateKeyAccount } from 'viem/accounts';
import type { Config } from '../../config.ts';
import { chainInfo } from '../chains.ts';
import { DEV_ADDRESS, DEV_PRIVATE_KEY, MissingPrivateKeyError, type ChainLogger } from '../wallet.ts';

/** What the private-key signer reads from the configuration. */
export type PrivateKeyOptions = Pick<Config, 'NFT_DEPLOYER_PRIVATE_KEY'>;

export function privateKeyAccount(chainId: number, config: PrivateKeyOptions, logger?: ChainLogger): PrivateKeyAccount {
  const info = chainInfo(chainId);
  if (config.NFT_DEPLOYER_PRIVATE_KEY) return privateKeyToAccount(config.NFT_DEPLOYER_PRIVATE_KEY as `0x${string}`);
  if (!info.dev) throw new MissingPrivateKeyError(chainId);
  logger?.warn(
    { chainId, address: DEV_ADDRESS },
    'NFT_DEPLOYER_PRIVATE_KEY is not set: using the well-known anvil dev account on the dev chain (never use it elsewhere)',
  );
  return privateKeyToAccount(DEV_PRIVATE_KEY);
}
