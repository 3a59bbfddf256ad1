/**
 * The platform wallet's signer: one interface (a viem LocalAccount: address, signTransaction,
 * signMessage, signTypedData), three implementations chosen by NFT_SIGNER
 * (docs/signers-and-rpc.md): `private-key` (NFT_DEPLOYER_PRIVATE_KEY, the default), `remote` (a JSON-RPC signer
 * such as Web3Signer or Clef) and `kms` (an AWS KMS secp256k1 key). The tx sender only ever calls
 * signTransaction, so nonces, fee bumps and re-broadcasts of stored raw bytes do not depend on
 * where the key lives. No implementation puts key material in an error or a log line.
 */
import type { LocalAccount } from 'viem';
import type { Config } from '../../config.ts';
import type { ChainLogger } from '../wallet.ts';
import { kmsAccount } from './kms.ts';
import { privateKeyAccount } from './private-key.ts';
import { remoteAccount } from './remote.ts';

export type PlatformSigner = LocalAccount;

/** What choosing and building the platform signer needs from the configuration. */
export type SignerOptions = Pick<
  Config,
  | 'NFT_SIGNER'
  | 'NFT_DEPLOYER_PRIVATE_KEY'
  | 'NFT_SIGNER_URL'
  | 'NFT_SIGNER_TOKEN'
  | 'NFT_SIGNER_ADDRESS'
  | 'NFT_KMS_KEY_ID'
  | 'NFT_KMS_REGION'
  | 'NFT_KMS_ENDPOINT'
  | 'NFT_KMS_ACCESS_KEY_ID'
  | 'NFT_KMS_SECRET_ACCESS_KEY'
>;

/** A signer that cannot be built from the configuration (names the variable, never a value). */
export class SignerConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SignerConfigError';
  }
}

export function platformSigner(chainId: number, config: SignerOptions, logger?: ChainLogger): PlatformSigner {
  switch (config.NFT_SIGNER) {
    case 'remote': {
      if (!config.NFT_SIGNER_URL) throw new SignerConfigError('NFT_SIGNER=remote needs NFT_SIGNER_URL');
      if (!config.NFT_SIGNER_ADDRESS) throw new SignerConfigError('NFT_SIGNER=remote needs NFT_SIGNER_ADDRESS');
      return remoteAccount({
        url: config.NFT_SIGNER_URL,
        address: config.NFT_SIGNER_ADDRESS as `0x${string}`,
        chainId,
        ...(config.NFT_SIGNER_TOKEN ? { token: config.NFT_SIGNER_TOKEN } : {}),
      });
    }
    case 'kms': {
      if (!config.NFT_KMS_KEY_ID) throw new SignerConfigError('NFT_SIGNER=kms needs NFT_KMS_KEY_ID');
      if (!config.NFT_SIGNER_ADDRESS) throw new SignerConfigError('NFT_SIGNER=kms needs NFT_SIGNER_ADDRESS (the address of the KMS key)');
      return kmsAccount({
        keyId: config.NFT_KMS_KEY_ID,
        address: config.NFT_SIGNER_ADDRESS as `0x${string}`,
        region: config.NFT_KMS_REGION,
        endpoint: config.NFT_KMS_ENDPOINT,
        credentials:
          config.NFT_KMS_ACCESS_KEY_ID && config.NFT_KMS_SECRET_ACCESS_KEY
            ? { accessKeyId: config.NFT_KMS_ACCESS_KEY_ID, secretAccessKey: config.NFT_KMS_SECRET_ACCESS_KEY }
            : undefined,
      });
    }
    default:
      return privateKeyAccount(chainId, config, logger);
  }
}

/** The platform wallet's signer for a chain, as NFT_SIGNER configures it (what chain services use). */
export const platformAccount = platformSigner;
