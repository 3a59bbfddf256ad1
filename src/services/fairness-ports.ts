/**
 * The real ports of the fairness services (fair seeds, receipts): the database and the chain.
 * Kept out of services/nft-ports.ts so that file only gains a few lines of wiring.
 */
import type { Config } from '../config.ts';
import { commitSeed, confirmedBlockHash, readSeedState, revealSeed } from '../chain/fairness.ts';
import type { MintingChainAccess } from '../chain/mint.ts';
import type { Db } from '../db/client.ts';
import { getCollection } from '../db/collections.ts';
import { every, type BackgroundDuty } from './background.ts';
import {
  collectionsToCommit,
  soldOutUnrevealed,
  drawSeedSecret,
  markSeedCommitted,
  markSeedRevealed,
  mintedTokenIds,
  seedSecretOf,
  storedReceipt,
  storeReceipt,
  tokenArtwork,
} from '../db/fairness.ts';
import { findWorkflow } from '../db/workflows.ts';
import type { Storage } from '../storage/types.ts';
import { createFairSeeds, type FairSeedChain, type FairSeeds } from './fair-seeds.ts';
import { createReceipts, type Receipts } from './receipts.ts';
import { bindDb } from './ports.ts';

export function fairSeedChainOf(config: Config, access: MintingChainAccess): FairSeedChain {
  return {
    read: (chainId, address) => readSeedState(access.client(chainId), address),
    commit: (chainId, collection, commitment) => commitSeed(access, { chainId, collection, commitment }),
    reveal: (chainId, collection, secret) => revealSeed(access, { chainId, collection, secret }),
    confirmedBlockHash: (chainId, mined) => confirmedBlockHash(access.client(chainId), mined, config.SEED_CONFIRMATIONS),
  };
}

export function fairSeedsOf(db: Db, config: Config, access: MintingChainAccess | undefined, onChanged?: (collectionId: string) => void) {
  return createFairSeeds({
    store: bindDb(db, { getCollection, seedSecretOf, drawSeedSecret, markSeedCommitted, markSeedRevealed }),
    ...(access ? { chain: fairSeedChainOf(config, access) } : {}),
    ...(onChanged ? { onChanged } : {}),
  });
}

export function receiptsOf(db: Db, storage: Storage | undefined): Receipts {
  return createReceipts({
    store: bindDb(db, { getCollection, tokenArtwork, storedReceipt, storeReceipt, findWorkflow, mintedTokenIds }),
    ...(storage ? { storage } : {}),
  });
}

/**
 * The `fairness` object of a collection's ERC-7572 document: the seed commitment (once committed),
 * the secret (once revealed) and the Merkle root of the receipts (once every token is generated).
 */
export async function fairnessDocument(db: Db, collectionId: string, fair: FairSeeds, receipts: Receipts) {
  const c = await getCollection(db, collectionId).catch(() => undefined);
  if (!c) return null;
  const state = await fair.publicState(c);
  if (!state) return null;
  const root = await receipts.merkleRoot(c).catch(() => null);
  return {
    fairness: {
      chain_id: c.chain_id,
      contract_address: c.contract_address?.toLowerCase(),
      seed_commitment: state.commitment,
      revealed_secret: state.revealed_secret,
      seed_formula: 'keccak256(abi.encodePacked(bytes32 secret, uint256 chainId, address collection, uint256 tokenId, bytes32 blockHash))',
      receipts_merkle_root: root?.root ?? null,
      receipts_count: root?.tokens ?? null,
      docs: 'docs/fairness.md',
    },
  };
}

/**
 * The fairness duty (one holder across replicas): commits the seed secret of every deployed
 * collection that has none yet (a deployment made anywhere gets its commitment within seconds),
 * and reveals the secret of every sold-out collection (docs/fairness.md "Reveal").
 */
export function startFairnessDuty(
  db: Db,
  fair: FairSeeds,
  opts: { intervalMs?: number; onError?: (err: unknown) => void } = {},
): BackgroundDuty {
  return every(
    opts.intervalMs ?? 5_000,
    async () => {
      for (const { id } of await collectionsToCommit(db)) {
        const c = await getCollection(db, id);
        await fair.ensureCommitted(c).catch((err: unknown) => opts.onError?.(err));
      }
      for (const { id } of await soldOutUnrevealed(db)) {
        await fair.revealSoldOut(id).catch((err: unknown) => opts.onError?.(err));
      }
    },
    opts.onError,
  );
}
