/**
 * Seeds nobody can target (docs/fairness.md): the per-contract secret (drawn once, kept in the
 * database), its commitment on chain before any mint, each token's seed once its block is
 * confirmed, and the reveal (owner or operator, or the sell-out duty).
 *
 * Invariants: the secret is drawn by insert-if-absent (concurrent first mints agree on one); the
 * commit and the reveal go through the tx sender under one fixed key per contract, so retries and
 * replicas never send two; a contract whose commitment is not the stored one is never minted from
 * (409), because its seeds could not be verified.
 */
import { randomBytes } from 'node:crypto';
import { zeroHash, type Hex } from 'viem';
import type { CollectionRow } from '../db/collections.ts';
import type { SeedSecretRow } from '../db/fairness.ts';
import { AppError, conflict } from '../domain/errors.ts';
import { commitmentOf, fairSeedOf, type FairSeed } from '../domain/fair-seed.ts';
import { authorize, type Caller } from '../domain/policy.ts';
import type { SeedState } from '../chain/fairness.ts';

export interface FairSeedStore {
  getCollection(id: string): Promise<CollectionRow>;
  seedSecretOf(chainId: number, address: string): Promise<SeedSecretRow | undefined>;
  drawSeedSecret(row: {
    collectionId: string;
    chainId: number;
    address: string;
    secret: string;
    commitment: string;
  }): Promise<SeedSecretRow>;
  markSeedCommitted(chainId: number, address: string, txHash: string): Promise<void>;
  markSeedRevealed(chainId: number, address: string, txHash: string): Promise<void>;
}

export interface FairSeedChain {
  read(chainId: number, address: string): Promise<SeedState | null>;
  commit(chainId: number, address: string, commitment: Hex): Promise<Hex>;
  reveal(chainId: number, address: string, secret: Hex): Promise<Hex>;
  /** The mined block's hash once it has the configured confirmations (503 when it was reorged away). */
  confirmedBlockHash(chainId: number, mined: { blockNumber: number; blockHash: Hex }): Promise<Hex>;
}

export interface FairSeedPorts {
  store: FairSeedStore;
  chain?: FairSeedChain;
  /** The collection's public documents changed (contractURI shows the commitment and the reveal). */
  onChanged?: (collectionId: string) => void;
}

export type FairSeeds = ReturnType<typeof createFairSeeds>;

function deployedOn(c: CollectionRow): { chainId: number; address: string } {
  if (!c.contract_address || c.chain_id === null) throw conflict(`collection ${c.id} is not deployed`, { code: 'NOT_DEPLOYED' });
  return { chainId: c.chain_id, address: c.contract_address.toLowerCase() };
}

export function createFairSeeds({ store, chain, onChanged }: FairSeedPorts) {
  const needChain = () => {
    if (!chain) throw new AppError('unavailable', 'chain operations are not available: this backend has no chain configured');
    return chain;
  };

  /**
   * The contract's committed secret: drawn and committed now when it is not yet (at deploy, or
   * before the first mint of a collection deployed earlier). 409 NO_SEED_COMMITMENT when the
   * contract cannot hold one (deployed by a factory without FairnessFacet) or holds another.
   */
  async function ensureCommitted(c: CollectionRow): Promise<SeedSecretRow> {
    const { chainId, address } = deployedOn(c);
    let row = await store.seedSecretOf(chainId, address);
    if (row?.commit_tx_hash) return row;
    const ch = needChain();
    if (!row) {
      const secret = `0x${randomBytes(32).toString('hex')}` as Hex;
      row = await store.drawSeedSecret({ collectionId: c.id, chainId, address, secret, commitment: commitmentOf(secret) });
    }
    const state = await ch.read(chainId, address);
    if (!state) {
      throw conflict(`collection ${c.id}'s contract has no seed commitment function (deployed before FairnessFacet): redeploy it`, {
        code: 'NO_SEED_COMMITMENT',
      });
    }
    if (state.commitment !== zeroHash && state.commitment.toLowerCase() !== row.commitment.toLowerCase()) {
      throw conflict(`collection ${c.id}'s contract holds a seed commitment the platform did not make`, { code: 'NO_SEED_COMMITMENT' });
    }
    const hash = state.commitment === zeroHash ? await ch.commit(chainId, address, row.commitment as Hex) : '0x' + '0'.repeat(64);
    await store.markSeedCommitted(chainId, address, hash);
    onChanged?.(c.id);
    return (await store.seedSecretOf(chainId, address))!;
  }

  return {
    ensureCommitted,

    /** A minted token's fair seed, once the block that mined it has the configured confirmations. */
    async seedFor(c: CollectionRow, tokenId: number, mined: { blockNumber: number; blockHash: Hex }): Promise<FairSeed> {
      const { chainId, address } = deployedOn(c);
      const row = await store.seedSecretOf(chainId, address);
      if (!row?.commit_tx_hash) throw conflict(`collection ${c.id} has no committed seed secret`, { code: 'NO_SEED_COMMITMENT' });
      const blockHash = await needChain().confirmedBlockHash(chainId, mined);
      return fairSeedOf({ secret: row.secret as Hex, chainId, collection: address, tokenId, blockHash, blockNumber: mined.blockNumber });
    },

    /** POST /nft/collections/:id/reveal: publishes the secret on chain (owner or operator; once). */
    async reveal(caller: Caller, collectionId: string) {
      const c = await store.getCollection(collectionId);
      authorize(caller, 'collection.reveal_seed', { ownerId: c.user_id });
      return revealCollection(c);
    },

    /** The sell-out duty's reveal (no caller: the platform's own decision, docs/fairness.md). */
    revealSoldOut: async (collectionId: string) => revealCollection(await store.getCollection(collectionId)),

    /** Commitment and reveal as the database knows them (contractURI). */
    async publicState(c: { chain_id: number | null; contract_address: string | null }) {
      if (!c.contract_address || c.chain_id === null) return null;
      const row = await store.seedSecretOf(c.chain_id, c.contract_address);
      if (!row?.commit_tx_hash) return null;
      return { commitment: row.commitment, revealed_secret: row.reveal_tx_hash ? row.secret : null };
    },
  };

  async function revealCollection(c: CollectionRow) {
    const { chainId, address } = deployedOn(c);
    const row = await store.seedSecretOf(chainId, address);
    if (!row?.commit_tx_hash) throw conflict(`collection ${c.id} has no committed seed secret to reveal`, { code: 'NO_SEED_COMMITMENT' });
    const ch = needChain();
    if (!row.reveal_tx_hash) {
      const state = await ch.read(chainId, address);
      const hash = state?.revealed ? '0x' + '0'.repeat(64) : await ch.reveal(chainId, address, row.secret as Hex);
      await store.markSeedRevealed(chainId, address, hash);
      onChanged?.(c.id);
    }
    const after = (await store.seedSecretOf(chainId, address))!;
    return {
      collection_id: c.id,
      chain_id: chainId,
      contract_address: address,
      commitment: after.commitment,
      secret: after.secret,
      reveal_tx_hash: after.reveal_tx_hash,
    };
  }
}
