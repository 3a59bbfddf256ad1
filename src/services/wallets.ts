/**
 * Wallets proven by signature: Sign-In with Ethereum (EIP-4361; docs/auth.md "Wallets").
 *
 * 1. `nonce`: a random nonce for the caller, stored with an expiry (and, when the caller names its
 *    address, the exact message to sign, made by viem's createSiweMessage, for the site that asks).
 * 2. `verify`: the signed message is parsed (viem parseSiweMessage) and checked: one of this
 *    platform's domains, a supported chain, the time window (validateSiweMessage), the signature (a public
 *    client's verifySiweMessage: EOAs and EIP-1271 / ERC-6492 contract wallets), then the nonce is
 *    used once (one conditional UPDATE). Only then is the wallet linked to the caller, as a
 *    `wallet` identity; a wallet another user holds is 409.
 * 3. `loginNonce` / `login`: the same message, nonce and checks as a sign-in (docs/auth.md "Sign
 *    in with Ethereum"): the nonce is issued to nobody, and the proven wallet's identity resolves
 *    to its user (or a new one), who gets a platform session (services/sessions.ts).
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
  /** `userId` null: a sign-in nonce (issued to nobody); else a link nonce of that user. */
  insertWalletNonce(nonce: string, userId: string | null, ttlSeconds: number): Promise<Date>;
  consumeWalletNonce(nonce: string, userId: string | null): Promise<boolean>;
  pruneWalletNonces(): Promise<void>;
  linkWallet(
    userId: string,
    address: string,
    metadata: Record<string, unknown>,
  ): Promise<{ outcome: 'linked' | 'already' | 'taken'; wallet: LinkedWallet | null }>;
  listWallets(userId: string): Promise<LinkedWallet[]>;
  isWalletOf(userId: string, address: string): Promise<boolean>;
  /** The user holding the `wallet` identity of `address` (found, or created with a new user). */
  userOfWallet(address: string, metadata: Record<string, unknown>): Promise<string>;
}

/** What a sign-in opens: a platform session of the user (services/sessions.ts). */
export interface SessionOpener {
  open(userId: string, opts: { method: 'siwe'; address: string }): Promise<{ token: string; expires_at: Date }>;
}

/** Signature checks: on the chain's public client (EIP-1271 needs one), else EOA recovery only. */
export interface SiweVerifier {
  /** Whether messages for this chain id are accepted. */
  supports(chainId: number): Promise<boolean>;
  verify(req: { chainId: number; message: string; signature: Hex; address: Address }): Promise<boolean>;
}

/** A domain messages may name (an RFC 3986 authority) and the URI prepared messages for it carry. */
export interface SiweDomain {
  domain: string;
  uri: string;
}

export interface SiweSettings {
  /**
   * The domains messages may name: this platform's own sites (the backend's and the console's
   * hosts, SIWE_DOMAIN, SIWE_DOMAINS; docs/auth.md "The domain"). The first is the default, for a
   * client that names no origin.
   */
  domains: SiweDomain[];
  /** Chain id of prepared messages when the caller names none. */
  defaultChainId: number;
  nonceTtlSeconds: number;
}

export const SIWE_STATEMENT = 'Link this wallet to my Atelier account.';
export const SIWE_SIGN_IN_STATEMENT = 'Sign in to Atelier with this wallet.';

/** The internal user a wallet is linked to: the caller's (a uuid), else 404. */
function internalUser(caller: Caller): string {
  const userId = requireOwner(caller);
  if (!UUID_RE.test(userId)) throw notFound(`user ${userId} (not resolved to an internal user)`);
  return userId;
}

export type WalletService = ReturnType<typeof createWalletService>;

export function createWalletService(
  store: WalletStore,
  verifier: SiweVerifier,
  settings: SiweSettings,
  now = () => new Date(),
  sessions?: SessionOpener,
) {
  const accepted = () => settings.domains.map((d) => d.domain).join(', ');

  /**
   * The domain and URI of a message for the site that asks (its `Origin`): one of ours, with that
   * origin as the URI, so the wallet sees the page's own host; without an origin (a script), the
   * default. Never a domain the client makes up: an origin that is not ours is 400.
   */
  function domainFor(origin: string | undefined): SiweDomain {
    if (origin === undefined) return settings.domains[0]!;
    let url: URL | undefined;
    try {
      url = new URL(origin);
    } catch {
      url = undefined;
    }
    const known = url && ['http:', 'https:'].includes(url.protocol) && settings.domains.find((d) => d.domain === url.host);
    if (!known || !url) {
      throw invalid(
        `origin: ${origin.slice(0, 200)} is not a site of this platform that Sign-In with Ethereum messages are made for (${accepted()}); the operator adds its host to SIWE_DOMAINS`,
      );
    }
    return { domain: known.domain, uri: url.origin };
  }

  /** A fresh nonce (for `userId`, or for a sign-in when null) and the EIP-4361 message with it. */
  async function issue(
    userId: string | null,
    body: { address?: string; chain_id?: number },
    statement: string,
    origin: string | undefined,
  ) {
    const { domain, uri } = domainFor(origin);
    const chainId = body.chain_id ?? settings.defaultChainId;
    if (!(await verifier.supports(chainId))) throw invalid(`body.chain_id: chain ${chainId} is not supported for wallet links`);
    // EIP-4361 asks for at least 8 alphanumeric characters; 128 random bits, hex.
    const nonce = randomBytes(16).toString('hex');
    await store.pruneWalletNonces().catch(() => undefined);
    const expiresAt = await store.insertWalletNonce(nonce, userId, settings.nonceTtlSeconds);
    const message = body.address
      ? createSiweMessage({
          address: getAddress(body.address),
          chainId,
          domain,
          nonce,
          uri,
          version: '1',
          statement,
          issuedAt: now(),
          expirationTime: expiresAt,
        })
      : null;
    return { nonce, expires_at: expiresAt, domain, uri, chain_id: chainId, statement, message };
  }

  /**
   * The one verifier of signed EIP-4361 messages (links and sign-ins): parse, domain, chain, time
   * window, signature (EIP-1271 for contract wallets), then the nonce — last, so a message refused
   * above does not use it up — in one conditional statement (`consume`).
   */
  async function checkSigned(body: { message: string; signature: string }, consume: (nonce: string) => Promise<boolean>) {
    const m = parseSiweMessage(body.message);
    const missing = (['address', 'domain', 'chainId', 'nonce', 'uri', 'version'] as const).filter((k) => m[k] === undefined);
    if (missing.length > 0) throw invalid(`body.message: not an EIP-4361 message (missing ${missing.join(', ')})`);
    if (!isAddress(m.address!, { strict: false })) throw invalid('body.message: the address line is not an address');
    if (!settings.domains.some((d) => d.domain === m.domain)) {
      throw invalid(`body.message: the message is for ${m.domain}, not this platform (${accepted()})`, { code: 'SIWE_WRONG_DOMAIN' });
    }
    if (!(await verifier.supports(m.chainId!))) throw invalid(`body.message: chain ${m.chainId} is not supported for wallet links`);
    if (!validateSiweMessage({ message: m, domain: m.domain, time: now() })) {
      throw invalid('body.message: the message has expired or is not valid yet', { code: 'SIWE_EXPIRED' });
    }
    const address = getAddress(m.address!);
    const signed = await verifier
      .verify({ chainId: m.chainId!, message: body.message, signature: body.signature as Hex, address })
      .catch((err: unknown) => {
        throw new AppError('unavailable', `the signature could not be checked on chain ${m.chainId}: ${(err as Error).message}`);
      });
    if (!signed) throw invalid(`body.signature: not a signature of this message by ${address}`, { code: 'SIWE_BAD_SIGNATURE' });
    if (!(await consume(m.nonce!))) {
      throw invalid('body.message: the nonce is unknown, already used, expired, or was issued for another purpose or user', {
        code: 'SIWE_BAD_NONCE',
      });
    }
    return { address, chainId: m.chainId!, domain: m.domain! };
  }

  return {
    /**
     * A single-use nonce for the caller; with `address`, the EIP-4361 message to sign, for the
     * site `origin` names (the request's Origin header; default the platform's first domain).
     */
    async nonce(caller: Caller, body: { address?: string; chain_id?: number }, origin?: string) {
      authorize(caller, 'wallet.link');
      return issue(internalUser(caller), body, SIWE_STATEMENT, origin);
    },

    /** Checks a signed EIP-4361 message and links its wallet to the caller. */
    async verify(caller: Caller, body: { message: string; signature: string }) {
      authorize(caller, 'wallet.link');
      const userId = internalUser(caller);
      const { address, chainId, domain } = await checkSigned(body, (nonce) => store.consumeWalletNonce(nonce, userId));
      const linked = await store.linkWallet(userId, address, { chain_id: chainId, siwe_domain: domain });
      if (linked.outcome === 'taken') {
        throw conflict(`wallet ${address} is linked to another user`, { code: 'WALLET_LINKED_ELSEWHERE' });
      }
      return { address, chain_id: chainId, newly_linked: linked.outcome === 'linked', linked_at: linked.wallet!.linked_at };
    },

    /** A sign-in nonce (issued to nobody) and the message `address` signs to sign in. Public. */
    async loginNonce(caller: Caller, body: { address: string; chain_id?: number }, origin?: string) {
      authorize(caller, 'wallet.sign_in');
      const n = await issue(null, body, SIWE_SIGN_IN_STATEMENT, origin);
      return { ...n, message: n.message! };
    },

    /**
     * Sign-in: the signed message checked as a link is, with a sign-in nonce; the wallet's user
     * (found, or created holding the wallet) gets a platform session. Public.
     */
    async login(caller: Caller, body: { message: string; signature: string }) {
      authorize(caller, 'wallet.sign_in');
      if (!sessions) throw new AppError('unavailable', 'sign-in sessions are not configured in this process');
      const { address, chainId, domain } = await checkSigned(body, (nonce) => store.consumeWalletNonce(nonce, null));
      const userId = await store.userOfWallet(address, { chain_id: chainId, siwe_domain: domain });
      const session = await sessions.open(userId, { method: 'siwe', address });
      return { token: session.token, expires_at: session.expires_at, user_id: userId, address, chain_id: chainId };
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
