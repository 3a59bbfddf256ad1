/**
 * Wallets proven by signature: Sign-In with Ethereum (EIP-4361; docs/auth.md "Wallets").
 *
 * 1. `nonce`: a random nonce for the caller, stored with an expiry (and, when the caller names its
 *    address, the exact message to sign, made by viem's createSiweMessage).
 * 2. `verify`: the signed message is parsed (viem parseSiweMessage) and checked: this service's
 *    domain, a supported chain, the time window (validateSiweMessage), the signature (a public
 *    client's verifySiweMessage: EOAs and EIP-1271 / ERC-6492 contract wallets), then the nonce is
 *    used once (one conditional UPDATE). Only then is the wallet linked to the caller, as a
 *    `wallet` identity; a wallet another user holds is 409.
 * Payments (samples, mints) count only from a wallet linked this way (`isLinked`).
 */
import { randomBytes } from 'node:crypto';
import { getAddress, isAddress, type Address, type Hex } from 'viem';
import { createSiweMessage, parseSiweMessage, validateSiweMessage } from 'viem/siwe';
import type { LinkedWallet } from '../db/wallets.ts';
import { AppError, conflict, invalid, notFound } from '../domain/errors.ts';
import { UUID_RE } from '../domain/ids.ts';
import { authorize, type Caller } from '../domain/policy.ts';
import { requireOwner } from './ownership.ts';

export interface WalletStore {
  insertWalletNonce(nonce: string, userId: string, ttlSeconds: number): Promise<Date>;
  consumeWalletNonce(nonce: string, userId: string): Promise<boolean>;
  pruneWalletNonces(): Promise<void>;
  linkWallet(
    userId: string,
    address: string,
    metadata: Record<string, unknown>,
  ): Promise<{ outcome: 'linked' | 'already' | 'taken'; wallet: LinkedWallet | null }>;
  listWallets(userId: string): Promise<LinkedWallet[]>;
  isWalletOf(userId: string, address: string): Promise<boolean>;
}

/** Signature checks: on the chain's public client (EIP-1271 needs one), else EOA recovery only. */
export interface SiweVerifier {
  /** Whether messages for this chain id are accepted. */
  supports(chainId: number): Promise<boolean>;
  verify(req: { chainId: number; message: string; signature: Hex; address: Address }): Promise<boolean>;
}

export interface SiweSettings {
  /** RFC 3986 authority the message must name (SIWE_DOMAIN). */
  domain: string;
  /** URI put in prepared messages. */
  uri: string;
  /** Chain id of prepared messages when the caller names none. */
  defaultChainId: number;
  nonceTtlSeconds: number;
}

export const SIWE_STATEMENT = 'Link this wallet to my Atelier account.';

/** The internal user a wallet is linked to: the caller's (a uuid), else 404. */
function internalUser(caller: Caller): string {
  const userId = requireOwner(caller);
  if (!UUID_RE.test(userId)) throw notFound(`user ${userId} (not resolved to an internal user)`);
  return userId;
}

export type WalletService = ReturnType<typeof createWalletService>;

export function createWalletService(store: WalletStore, verifier: SiweVerifier, settings: SiweSettings, now = () => new Date()) {
  return {
    /** A single-use nonce for the caller; with `address`, the EIP-4361 message to sign. */
    async nonce(caller: Caller, body: { address?: string; chain_id?: number }) {
      authorize(caller, 'wallet.link');
      const userId = internalUser(caller);
      const chainId = body.chain_id ?? settings.defaultChainId;
      if (!(await verifier.supports(chainId))) throw invalid(`body.chain_id: chain ${chainId} is not supported for wallet links`);
      // EIP-4361 asks for at least 8 alphanumeric characters; 128 random bits, hex.
      const nonce = randomBytes(16).toString('hex');
      await store.pruneWalletNonces().catch(() => undefined);
      const expiresAt = await store.insertWalletNonce(nonce, userId, settings.nonceTtlSeconds);
      const issuedAt = now();
      const message = body.address
        ? createSiweMessage({
            address: getAddress(body.address),
            chainId,
            domain: settings.domain,
            nonce,
            uri: settings.uri,
            version: '1',
            statement: SIWE_STATEMENT,
            issuedAt,
            expirationTime: expiresAt,
          })
        : null;
      return {
        nonce,
        expires_at: expiresAt,
        domain: settings.domain,
        uri: settings.uri,
        chain_id: chainId,
        statement: SIWE_STATEMENT,
        message,
      };
    },

    /** Checks a signed EIP-4361 message and links its wallet to the caller. */
    async verify(caller: Caller, body: { message: string; signature: string }) {
      authorize(caller, 'wallet.link');
      const userId = internalUser(caller);
      const m = parseSiweMessage(body.message);
      const missing = (['address', 'domain', 'chainId', 'nonce', 'uri', 'version'] as const).filter((k) => m[k] === undefined);
      if (missing.length > 0) throw invalid(`body.message: not an EIP-4361 message (missing ${missing.join(', ')})`);
      if (!isAddress(m.address!, { strict: false })) throw invalid('body.message: the address line is not an address');
      if (m.domain !== settings.domain) {
        throw invalid(`body.message: the message is for ${m.domain}, not ${settings.domain}`, { code: 'SIWE_WRONG_DOMAIN' });
      }
      if (!(await verifier.supports(m.chainId!))) throw invalid(`body.message: chain ${m.chainId} is not supported for wallet links`);
      if (!validateSiweMessage({ message: m, domain: settings.domain, time: now() })) {
        throw invalid('body.message: the message has expired or is not valid yet', { code: 'SIWE_EXPIRED' });
      }
      const address = getAddress(m.address!);
      const signed = await verifier
        .verify({ chainId: m.chainId!, message: body.message, signature: body.signature as Hex, address })
        .catch((err: unknown) => {
          throw new AppError('unavailable', `the signature could not be checked on chain ${m.chainId}: ${(err as Error).message}`);
        });
      if (!signed) throw invalid(`body.signature: not a signature of this message by ${address}`, { code: 'SIWE_BAD_SIGNATURE' });
      // The nonce last: a message that fails a check above does not use it up.
      if (!(await store.consumeWalletNonce(m.nonce!, userId))) {
        throw invalid('body.message: the nonce is unknown, already used, expired, or was issued to another user', {
          code: 'SIWE_BAD_NONCE',
        });
      }
      const linked = await store.linkWallet(userId, address, { chain_id: m.chainId, siwe_domain: m.domain });
      if (linked.outcome === 'taken') {
        throw conflict(`wallet ${address} is linked to another user`, { code: 'WALLET_LINKED_ELSEWHERE' });
      }
      return { address, chain_id: m.chainId!, newly_linked: linked.outcome === 'linked', linked_at: linked.wallet!.linked_at };
    },

    /** The caller's linked wallets (checksummed), oldest first. */
    async list(caller: Caller) {
      const userId = internalUser(caller);
      return (await store.listWallets(userId)).map((w) => ({ ...w, address: getAddress(w.address) }));
    },

    /** Whether `address` is a wallet the user proved; a user id that is not a uuid has none. */
    isLinked: (userId: string, address: string) => store.isWalletOf(userId, address),
  };
}
