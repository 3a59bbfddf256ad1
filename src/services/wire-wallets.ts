/**
 * The real ports of the wallet service (services/wallets.ts): db/wallets.ts on one database, and
 * signature checks on the chain's public client (viem's verifySiweMessage: EOAs, EIP-1271 and
 * ERC-6492 contract wallets). A backend without chain access checks EOA signatures only
 * (recovery, no RPC), for NFT_CHAIN_ID only.
 */
import { verifyMessage } from 'viem';
import { verifySiweMessage } from 'viem/siwe';
import { AppError } from '../domain/errors.ts';
import type { Config } from '../config.ts';
import type { MintingChainAccess } from '../chain/mint.ts';
import type { Db } from '../db/client.ts';
import {
  consumeWalletNonce,
  insertWalletNonce,
  isWalletOf,
  linkWallet,
  listWallets,
  pruneWalletNonces,
  userOfWallet,
} from '../db/wallets.ts';
import { bindDb } from './ports.ts';
import type { SessionOpener } from './wallets.ts';
import { createWalletService, type SiweSettings, type SiweVerifier } from './wallets.ts';

const LOOPBACK = /^(localhost|127\.0\.0\.1|\[::1\])(:\d+)?$/;

/**
 * The domains messages may name (docs/auth.md "The domain"): SIWE_DOMAIN (default the host of
 * PUBLIC_BASE_URL, else localhost:PORT) first, then the host of PUBLIC_BASE_URL, SIWE_DOMAINS and,
 * without PUBLIC_BASE_URL (`npm start`), the loopback hosts of the backend and of the admin proxy
 * that serves the console (a wallet compares the message's domain with the page's host).
 */
export function siweSettingsOf(config: Config): SiweSettings {
  const base = config.PUBLIC_BASE_URL ? new URL(config.PUBLIC_BASE_URL) : undefined;
  const first = config.SIWE_DOMAIN ?? base?.host ?? `localhost:${config.PORT}`;
  const local = base
    ? []
    : [...new Set(['localhost', '127.0.0.1', ...(['0.0.0.0', '::'].includes(config.HOST) ? [] : [config.HOST])])].flatMap((h) => [
        `${h}:${config.PORT}`,
        `${h}:${config.ADMIN_PORT}`,
      ]);
  const hosts = [...new Set([first, ...(base ? [base.host] : []), ...config.SIWE_DOMAINS, ...local].map((h) => h.toLowerCase()))];
  const uriOf = (host: string, i: number) =>
    (i === 0 || host === base?.host) && base ? base.origin : i === 0 || LOOPBACK.test(host) ? `http://${host}` : `https://${host}`;
  return {
    domains: hosts.map((domain, i) => ({ domain, uri: uriOf(domain, i) })),
    defaultChainId: config.NFT_CHAIN_ID,
    nonceTtlSeconds: config.SIWE_NONCE_TTL_SECONDS,
  };
}

export function siweVerifierOf(config: Config, access?: MintingChainAccess): SiweVerifier {
  const clientOf = (chainId: number) => {
    if (!access) return undefined;
    try {
      return access.client(chainId);
    } catch {
      return undefined;
    }
  };
  // The RPC's chain id, asked once per chain after a good answer (every nonce and verify asks).
  const servedChainIds = new Map<number, number>();
  return {
    // The RPC must really serve that chain (EIP-1271 calls go to it): its eth_chainId is asked.
    // An RPC that does not answer is the server's problem (503), not an unsupported chain (400).
    async supports(chainId) {
      if (!access) return chainId === config.NFT_CHAIN_ID;
      const client = clientOf(chainId);
      if (!client) return false;
      let served = servedChainIds.get(chainId);
      if (served === undefined) {
        served = await client.getChainId().catch(() => {
          throw new AppError('unavailable', `the RPC of chain ${chainId} does not answer; wallet links on it cannot be checked now`);
        });
        servedChainIds.set(chainId, served);
      }
      return served === chainId;
    },
    async verify({ chainId, message, signature, address }) {
      const client = clientOf(chainId);
      // Offline recovery: a malformed signature throws; it is simply not this address's signature.
      if (!client) return verifyMessage({ address, message, signature }).catch(() => false);
      return verifySiweMessage(client, { message, signature, address });
    },
  };
}

export function walletServiceOn(db: Db, config: Config, access?: MintingChainAccess, sessions?: SessionOpener) {
  return createWalletService(
    bindDb(db, { insertWalletNonce, consumeWalletNonce, pruneWalletNonces, linkWallet, listWallets, isWalletOf, userOfWallet }),
    siweVerifierOf(config, access),
    siweSettingsOf(config),
    undefined,
    sessions,
  );
}
