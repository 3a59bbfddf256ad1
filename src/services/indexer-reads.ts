/**
 * Reads of the ownership routes (nft-service.md §4.2) and the indexer package API (§4.4):
 * indexed rows from the database, the live state of an indexer in this process, and direct
 * contract reads over the chain's RPC (docs/indexer.md "Routes").
 *
 * Reads only; every caller is authenticated by the HTTP layer (§5.1) and no policy action
 * applies. Errors: unknown records → 404, a bad contract/function/argument → 400/404, a failed
 * chain read → `ContractReadFailed` (the route's 500, as §4.4 says).
 */
import { type Abi, getAddress } from 'viem';
import * as abis from '../../contracts/abi/index.ts';
import { chainInfo, publicClientForUrl, rpcUrlFor } from '../chain/chains.ts';
import { readDeploymentRecord } from '../chain/deploy-platform.ts';
import type { Config } from '../config.ts';
import type { Db } from '../db/client.ts';
import * as q from '../db/indexer-queries.ts';
import { readIndexerState } from '../db/indexer-store.ts';
import { AppError, invalid, notFound } from '../domain/errors.ts';
import type { IndexerHost } from '../indexer/host.ts';

/** Contract names of /api/read and /api/contract-info, with their ABIs. */
export const CONTRACT_ABIS: Record<string, Abi> = {
  Collection: abis.collectionAbi as Abi,
  DiamondFactory: abis.diamondFactoryAbi as Abi,
  DiamondCutFacet: abis.diamondCutFacetAbi as Abi,
  DiamondLoupeFacet: abis.diamondLoupeFacetAbi as Abi,
  OwnershipFacet: abis.ownershipFacetAbi as Abi,
  ERC721Facet: abis.erc721FacetAbi as Abi,
  MintFacet: abis.mintFacetAbi as Abi,
  ContractURIFacet: abis.contractURIFacetAbi as Abi,
  MetadataUpdateFacet: abis.metadataUpdateFacetAbi as Abi,
  RoyaltyFacet: abis.royaltyFacetAbi as Abi,
  CollectionInit: abis.collectionInitAbi as Abi,
  DiamondRouter: abis.diamondRouterAbi as Abi,
};

/** The ABI name for a path segment (any case; `app` = `Collection`). */
export const contractName = (raw: string): string | undefined =>
  Object.keys(CONTRACT_ABIS).find((n) => n.toLowerCase() === raw.toLowerCase()) ?? (raw.toLowerCase() === 'app' ? 'Collection' : undefined);

/** The chain read itself failed (revert, RPC error): the one 500 a client can cause. */
export class ContractReadFailed extends Error {
  constructor(message: string) {
    super(`read failed: ${message}`);
    this.name = 'ContractReadFailed';
  }
}

/** A read's result as a string: bigints in decimal, tuples and arrays as JSON. */
export function stringifyResult(value: unknown): string {
  if (typeof value === 'bigint') return value.toString();
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return JSON.stringify(value, (_k, v) => (typeof v === 'bigint' ? v.toString() : v));
}

/** Runs a view call (port; viem's readContract over the chain's RPC by default). */
export type ContractReader = (call: {
  chainId: number;
  rpcUrl: string;
  address: `0x${string}`;
  abi: Abi;
  functionName: string;
  args: unknown[];
}) => Promise<unknown>;

const isDevChain = (chainId: number) => {
  try {
    return chainInfo(chainId).dev;
  } catch {
    return false;
  }
};

const viemReader: ContractReader = (c) =>
  publicClientForUrl(c.chainId, c.rpcUrl, { retryCount: 0 }).readContract({
    address: c.address,
    abi: c.abi,
    functionName: c.functionName,
    args: c.args,
  });

export interface IndexerReadsDeps {
  db: Db;
  config: Config;
  /** The indexer of this process, if any: its chain, RPC, contracts and live status. */
  host?: IndexerHost;
  readContract?: ContractReader;
}

export interface ContractRead {
  contract: string;
  function: string;
  address: string;
  /** `args` as the query gave it: a JSON array, or absent. */
  args?: string;
  chainId: number;
}

export type IndexerReads = ReturnType<typeof createIndexerReads>;

export function createIndexerReads(deps: IndexerReadsDeps) {
  const { db, config, host } = deps;
  const readContract = deps.readContract ?? viemReader;
  const defaultChain = host?.chainId ?? config.NFT_CHAIN_ID;

  const rpcFor = (chainId: number): string => {
    if (chainId === host?.chainId && host.rpcUrl) return host.rpcUrl;
    try {
      return rpcUrlFor(chainId, config);
    } catch (err) {
      throw invalid(`query.chainId: ${(err as Error).message}`);
    }
  };

  /** The §4.4 lists of one app (404 when the app is unknown). */
  const ofKnownApp = async <T>(chainId: number, appId: string, list: (app: string) => Promise<T>): Promise<T> => {
    const app = getAddress(appId);
    if (!(await q.appKnown(db, chainId, app))) throw notFound(`app ${app}`);
    return list(app);
  };

  return {
    defaultChain,

    /**
     * Contract reads have a chain: the hosted indexer's RPC, or one the configuration names for
     * the default chain (the dev chain only when it runs: DEV_CHAIN, or NFT_RPC_URL).
     */
    canReadChain(): boolean {
      if (host?.rpcUrl) return true;
      try {
        rpcUrlFor(defaultChain, config);
      } catch {
        return false;
      }
      return !isDevChain(defaultChain) || config.DEV_CHAIN || (config.NFT_RPC_URL !== undefined && config.NFT_CHAIN_ID === defaultChain);
    },

    // ---------- §4.2 ownership ----------

    async collectionOwnership(collectionId: string) {
      if (!(await q.collectionExists(db, collectionId))) throw notFound(`collection ${collectionId}`);
      return q.collectionTokens(db, collectionId);
    },

    async deckTransfers(deckId: string) {
      const deck = await q.deckToken(db, deckId);
      if (!deck) throw notFound(`deck ${deckId}`);
      return { deck, transfers: await q.deckTransfers(db, deck) };
    },

    /** The persisted state of the default chain and, when the indexer runs in this process, its live flags. */
    async status() {
      const state = await readIndexerState(db, defaultChain);
      const live = host?.liveStatus?.();
      const head = live?.head_block ?? state?.head_block ?? null;
      const last = state?.last_indexed_block ?? null;
      return {
        chainId: defaultChain,
        state,
        live,
        head,
        lag: head !== null && last !== null ? Math.max(0, head - (live?.confirmations ?? 0) - last) : null,
      };
    },

    // ---------- §4.4 ----------

    ownerTokens: (chainId: number, page: q.Page) => q.ownerTokens(db, chainId, page),

    async ownerToken(chainId: number, id: string) {
      const app = getAddress(id);
      const [token] = await q.ownerTokens(db, chainId, { limit: 1, offset: 0 }, app);
      if (!token) throw notFound(`owner token ${app}`);
      return { token, transfers: await q.ownerTokenHistory(db, chainId, app) };
    },

    apps: (chainId: number, page: q.Page) => q.listApps(db, chainId, page),

    async app(chainId: number, id: string) {
      const address = getAddress(id);
      const [app] = await q.listApps(db, chainId, { limit: 1, offset: 0 }, address);
      if (!app) throw notFound(`app ${address}`);
      return app;
    },

    appTokens: (chainId: number, page: q.Page, app?: string) => q.appTokens(db, chainId, page, app ? getAddress(app) : undefined),
    appTokensOf: (chainId: number, appId: string, page: q.Page) => ofKnownApp(chainId, appId, (app) => q.appTokens(db, chainId, page, app)),
    mints: (chainId: number, page: q.Page, app?: string) => q.appTokenMintList(db, chainId, page, app ? getAddress(app) : undefined),
    mintsOf: (chainId: number, appId: string, page: q.Page) =>
      ofKnownApp(chainId, appId, (app) => q.appTokenMintList(db, chainId, page, app)),

    /** A view function of a named ABI at an address; the result as a string. */
    async read(r: ContractRead) {
      const name = contractName(r.contract);
      if (!name) throw notFound(`contract ${r.contract} (known: ${Object.keys(CONTRACT_ABIS).join(', ')})`);
      const abi = CONTRACT_ABIS[name]!;
      const overloads = (abi as readonly { type: string; name?: string; stateMutability?: string; inputs?: readonly unknown[] }[]).filter(
        (x) => x.type === 'function' && x.name === r.function,
      );
      if (overloads.length === 0) throw notFound(`function ${r.function} in the ABI of ${name}`);
      if (!overloads.some((f) => f.stateMutability === 'view' || f.stateMutability === 'pure')) {
        throw invalid(`path.function: ${r.function} is not a view function`);
      }
      const args = parseArgs(r.args);
      if (!overloads.some((f) => (f.inputs?.length ?? 0) === args.length)) {
        const counts = overloads.map((f) => f.inputs?.length ?? 0).join(' or ');
        throw invalid(`query.args: ${r.function} takes ${counts} argument(s), got ${args.length}`);
      }
      const address = getAddress(r.address);
      const rpcUrl = rpcFor(r.chainId);
      let result: unknown;
      try {
        result = await readContract({ chainId: r.chainId, rpcUrl, address, abi, functionName: r.function, args });
      } catch (err) {
        if (err instanceof AppError) throw err;
        const e = err as { shortMessage?: string; message?: string };
        throw new ContractReadFailed(e.shortMessage ?? e.message ?? String(err));
      }
      return { contract: name, function: r.function, address, chain_id: r.chainId, result: stringifyResult(result) };
    },

    /** A named ABI and the address this chain's deployment record (or the hosted indexer) knows for it. */
    contractInfo(contract: string, chainId: number) {
      const name = contractName(contract);
      if (!name) throw notFound(`contract ${contract}`);
      const known =
        host?.contracts && chainId === host.chainId
          ? host.contracts
          : ((readDeploymentRecord(chainId)?.contracts as Record<string, string> | undefined) ?? {});
      return { name, abi: CONTRACT_ABIS[name]!, address: known[name] ?? null, chain_id: chainId };
    },
  };
}

function parseArgs(raw: string | undefined): unknown[] {
  if (raw === undefined) return [];
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch {
    throw invalid('query.args: expected a JSON array');
  }
  if (!Array.isArray(parsed)) throw invalid('query.args: expected a JSON array');
  return parsed;
}
