/**
 * The real ports of the fairness services (fair seeds, receipts): the database and the chain.
 * Kept out of services/nft-ports.ts so that file only gains a few lines of wiring.
 */
import type { Config } from '../config.ts';
import { commitSeed, confirmedBlockHash, readSeedState, revealSeed } from '../chain/fairness.ts';
import type { MintingChainAccess } from '../chain/mint.ts';
import type { Db } from '../db/client.ts';
import { getCollection } from '../db/collections.ts';
import {
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

export function fairSeedChainOf(config: Pick<Config, 'SEED_CONFIRMATIONS'>, access: MintingChainAccess): FairSeedChain {
  return {
    read: (chainId, address) => readSeedState(access.client(chainId), address),
    commit: (chainId, collection, commitment) => commitSeed(access, { chainId, collection, commitment }),
    reveal: (chainId, collection, secret) => revealSeed(access, { chainId, collection, secret }),
    confirmedBlockHash: (chainId, mined) => confirmedBlockHash(access.client(chainId), mined, config.SEED_CONFIRMATIONS),
  };
}

export function fairSeedsOf(
  db: Db,
  config: Pick<Config, 'SEED_CONFIRMATIONS'>,
  access: MintingChainAccess | undefined,
  onChanged?: (collectionId: string) => void,
) {
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
