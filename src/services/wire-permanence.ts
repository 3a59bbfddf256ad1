/**
 * The wiring of permanence (docs/permanence.md): exports, pins and the gateway
 * (services/permanence.ts), and freezing (services/freeze.ts), bound to the database, the
 * storage, the pin target and the chain.
 */
import type { Address } from 'viem';
import { collectionAbi } from '../../contracts/abi/index.ts';
import { encodeAdminCall } from '../chain/collection.ts';
import type { MintingChainAccess } from '../chain/mint.ts';
import type { ChainServices } from '../chain/platform-chain.ts';
import { readSale } from '../chain/sale.ts';
import type { Db } from '../db/client.ts';
import {
  claimPin,
  failExport,
  finishExport,
  finishPin,
  insertExport,
  latestExport,
  latestReadyExport,
  readyExportByCid,
  recordFrozen,
  takeOverStaleExports,
  touchExports,
} from '../db/exports.ts';
import { mintedTokenIds } from '../db/fairness.ts';
import { acquireLease, releaseLease } from '../db/leases.ts';
import { getCollection } from '../db/collections.ts';
import type { PinTarget } from '../storage/pinning/index.ts';
import type { Storage } from '../storage/types.ts';
import { platformWalletOf, runPlatformAdminAction } from './chain-admin.ts';
import type { ChainSaleState } from './sale-closed.ts';
import { createFreezeService, type FreezeChain } from './freeze.ts';
import { bindDb } from './ports.ts';
import { createPermanenceService, type PermanenceDeps } from './permanence.ts';

/** What decides whether a sale is closed, from the contract: mintActive(), the on-chain sale's end and the supply (docs/permanence.md). */
function saleStateReader(access: MintingChainAccess) {
  return async (chainId: number, address: string): Promise<ChainSaleState> => {
    const client = access.client(chainId);
    const contract = address as Address;
    const count = (functionName: 'totalSupply' | 'maxSupply') =>
      client.readContract({ address: contract, abi: collectionAbi, functionName }).then(
        (v) => Number(v),
        () => undefined,
      );
    const [mintActive, sale, total, max] = await Promise.all([
      client.readContract({ address: contract, abi: collectionAbi, functionName: 'mintActive' }).then(
        (v) => v as boolean,
        () => undefined,
      ),
      // A contract without the sale facet has no on-chain sale: no end to pass.
      readSale(client, contract).then(
        (s) => (s.configured ? s.tuple.end : undefined),
        () => undefined,
      ),
      count('totalSupply'),
      count('maxSupply'),
    ]);
    return {
      ...(mintActive !== undefined ? { mintActive } : {}),
      ...(sale !== undefined ? { saleEnd: sale } : {}),
      ...(total !== undefined && max !== undefined ? { chainSupply: { total, max } } : {}),
    };
  };
}

/** Freezing's chain side (docs/permanence.md "Freezing"): reads, and the chain-admin send path. */
function freezeChainOf(access: MintingChainAccess, hasCode?: ChainServices['hasCode']): FreezeChain {
  const admin = { ...access, ...(hasCode ? { hasCode } : {}) };
  const read = <T>(chainId: number, address: string, functionName: string, args: unknown[] = []) =>
    access.client(chainId).readContract({
      address: address as Address,
      abi: collectionAbi,
      functionName: functionName as never,
      args: args as never,
    }) as Promise<T>;
  return {
    owner: (chainId, address) => read<string>(chainId, address, 'owner'),
    platformWallet: (chainId) => platformWalletOf(admin, chainId),
    metadataFrozen: (chainId, address) => read<boolean>(chainId, address, 'metadataFrozen'),
    tokenURI: (chainId, address, tokenId) => read<string>(chainId, address, 'tokenURI', [BigInt(tokenId)]),
    contractURI: (chainId, address) => read<string>(chainId, address, 'contractURI'),
    supply: async (chainId, address) => {
      const [total, max] = await Promise.all([read<bigint>(chainId, address, 'totalSupply'), read<bigint>(chainId, address, 'maxSupply')]);
      return { total: Number(total), max: Number(max) };
    },
    send: (chainId, address, action, value) => runPlatformAdminAction(admin, { chainId, collectionAddress: address, action, value }),
    encode: (action, value) => encodeAdminCall(action, value),
  };
}

/** A freeze holds this lease name while it sends (one request per collection, across replicas). */
const freezeLease = (collectionId: string) => `freeze:${collectionId}`;

export interface PermanenceWiring {
  db: Db;
  access?: MintingChainAccess;
  chain?: ChainServices;
  storage?: Storage;
  pinTarget?: PinTarget;
  pinTimeoutMs: number;
  documents: PermanenceDeps['documents'];
  receipts: PermanenceDeps['receipts'];
  publicBaseUrl: string;
  /** The collection's documents changed (cached ones are dropped, on every replica). */
  onFrozen: (collectionId: string) => void;
  log?: (err: unknown, message: string) => void;
}

/** Exports, pins, the gateway and freezing of one backend. */
export function permanenceOn(w: PermanenceWiring) {
  const { db, access } = w;
  const readChain = access ? { readChain: saleStateReader(access) } : {};
  const log = w.log ? { log: w.log } : {};
  const permanence = createPermanenceService({
    store: bindDb(db, {
      getCollection,
      mintedTokenIds,
      insertExport,
      latestExport,
      finishExport,
      failExport,
      readyExportByCid,
      claimPin,
      finishPin,
      touchExports,
      takeOverStaleExports,
    }),
    documents: w.documents,
    receipts: w.receipts,
    ...(w.storage ? { storage: w.storage } : {}),
    ...readChain,
    publicBaseUrl: w.publicBaseUrl,
    ...log,
    ...(w.pinTarget ? { pinTarget: w.pinTarget, pinTimeoutMs: w.pinTimeoutMs } : {}),
  });
  const freeze = createFreezeService({
    store: {
      ...bindDb(db, { getCollection, mintedTokenIds, latestExport, readyExportByCid, latestReadyExport, recordFrozen }),
      claimFreeze: (collectionId, holder, ttlMs) => acquireLease(db, freezeLease(collectionId), holder, ttlMs),
      releaseFreeze: (collectionId, holder) => releaseLease(db, freezeLease(collectionId), holder),
    },
    ...readChain,
    ...(access ? { freezeChain: freezeChainOf(access, w.chain?.hasCode.bind(w.chain)) } : {}),
    pinRequired: Boolean(w.pinTarget),
    onFrozen: w.onFrozen,
    ...log,
  });
  return { permanence, freeze };
}
