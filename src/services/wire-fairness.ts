/**
 * The real ports of the fairness services (fair seeds, receipts): the database and the chain.
 * Kept out of services/wire-nft.ts so that file only gains a few lines of wiring.
 */
import type { Config } from '../config.ts';
import {
  commitSeed,
  confirmedBlock,
  confirmedBlockHash,
  emitRevealBatchUpdate,
  minedBlockOf,
  readProvenance,
  readSeedState,
  revealSeed,
  setProvenance,
} from '../chain/fairness.ts';
import type { MintingChainAccess } from '../chain/mint.ts';
import type { Db } from '../db/client.ts';
import { getCollection } from '../db/collections.ts';
import {
  drawSeedSecret,
  exactDeckOf,
  markBatchUpdateSent,
  markDeckAssigned,
  markProvenanceSet,
  mintedTokensOf,
  recordRevealOffset,
  storeExactDeck,
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
import { createExactReveal, type ExactChain, type ExactReveal, type ExactRevealPorts } from './exact-reveal.ts';
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

export function exactChainOf(config: Pick<Config, 'SEED_CONFIRMATIONS'>, access: MintingChainAccess): ExactChain {
  return {
    readProvenance: (chainId, address) => readProvenance(access.client(chainId), address),
    setProvenance: (chainId, collection, provenance) => setProvenance(access, { chainId, collection, provenance }),
    minedBlockOf: (chainId, txHash) => minedBlockOf(access.client(chainId), txHash),
    confirmedBlock: (chainId, number) => confirmedBlock(access.client(chainId), number, config.SEED_CONFIRMATIONS),
    emitRevealBatchUpdate: (chainId, collection, to) => emitRevealBatchUpdate(access, { chainId, collection, to }),
  };
}

/** Exact counts (services/exact-reveal.ts): the deck, its provenance and the reveal. */
export function exactRevealOf(
  db: Db,
  config: Pick<Config, 'SEED_CONFIRMATIONS'>,
  access: MintingChainAccess | undefined,
  startDealtArtwork: ExactRevealPorts['startDealtArtwork'],
  onChanged?: (collectionId: string) => void,
): ExactReveal {
  return createExactReveal({
    store: bindDb(db, {
      getCollection,
      seedSecretOf,
      exactDeckOf,
      storeExactDeck,
      markProvenanceSet,
      recordRevealOffset,
      markDeckAssigned,
      markBatchUpdateSent,
      mintedTokensOf,
    }),
    ...(access ? { chain: exactChainOf(config, access) } : {}),
    startDealtArtwork,
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
export async function fairnessDocument(db: Db, collectionId: string, fair: FairSeeds, receipts: Receipts, exact?: ExactReveal) {
  const c = await getCollection(db, collectionId).catch(() => undefined);
  if (!c) return null;
  const state = await fair.publicState(c);
  if (!state) return null;
  const root = await receipts.merkleRoot(c).catch(() => null);
  const dealt = exact ? await exact.publicState(c) : null;
  return {
    fairness: {
      chain_id: c.chain_id,
      contract_address: c.contract_address?.toLowerCase(),
      seed_commitment: state.commitment,
      revealed_secret: state.revealed_secret,
      seed_formula: 'keccak256(abi.encodePacked(bytes32 secret, uint256 chainId, address collection, uint256 tokenId, bytes32 blockHash))',
      receipts_merkle_root: root?.root ?? null,
      receipts_count: root?.tokens ?? null,
      // Exact counts (docs/fairness.md "Exact counts"): the deck's provenance, its spec and the reveal offset.
      ...(dealt ? { exact: dealt } : {}),
      docs: 'docs/fairness.md',
    },
  };
}
