/**
 * Direct contract reads and contract info of the indexer package API (docs/api/nft.md §4.4,
 * docs/indexer.md): a view function of a named ABI over the chain's RPC, the result as a string.
 *
 * Errors: an unknown contract or function → 404; a bad argument list, a non-view function or a
 * chain without RPC → 400; a call that reverts, an address without the contract (no data back) or
 * arguments the ABI cannot encode → 400 naming what went wrong; the RPC node failing → 502. §4.4
 * names "500 read error"; we decided that no client input gives a 5xx (docs/security.md).
 */
import {
  type Abi,
  BaseError,
  ContractFunctionRevertedError,
  ContractFunctionZeroDataError,
  getAddress,
  HttpRequestError,
  TimeoutError,
  WebSocketRequestError,
} from 'viem';
import * as abis from '../../contracts/abi/index.ts';
import { chainInfo, publicClientForUrl, rpcUrlFor, type RpcOptions } from '../chain/chains.ts';
import { readDeploymentRecord } from '../chain/deploy-platform.ts';
import type { Config } from '../config.ts';
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
  SaleFacet: abis.saleFacetAbi as Abi,
  CollectionInit: abis.collectionInitAbi as Abi,
  DiamondRouter: abis.diamondRouterAbi as Abi,
};

/** The ABI name for a path segment (any case; `app` = `Collection`). */
export const contractName = (raw: string): string | undefined =>
  Object.keys(CONTRACT_ABIS).find((n) => n.toLowerCase() === raw.toLowerCase()) ?? (raw.toLowerCase() === 'app' ? 'Collection' : undefined);

/**
 * A failed view call as the client's mistake (4xx) or the node's failure (502). viem wraps the cause
 * (ContractFunctionExecutionError → CallExecutionError → …); `walk` finds the one that decides.
 */
export function readFailure(err: unknown, r: { contract: string; function: string; address: string; chainId: number }): AppError {
  if (err instanceof AppError) return err;
  const base = err instanceof BaseError ? err : undefined;
  const reverted = base?.walk((e) => e instanceof ContractFunctionRevertedError) as ContractFunctionRevertedError | null | undefined;
  if (reverted) {
    const why = reverted.data?.errorName ?? reverted.reason ?? reverted.shortMessage;
    return invalid(`read reverted: ${r.contract}.${r.function} at ${r.address} on chain ${r.chainId} reverted (${why})`);
  }
  if (base?.walk((e) => e instanceof ContractFunctionZeroDataError)) {
    return invalid(
      `query.address: ${r.address} returned no data for ${r.function}() on chain ${r.chainId}: no contract there, or not a ${r.contract}`,
    );
  }
  const transport = base?.walk((e) => e instanceof HttpRequestError || e instanceof TimeoutError || e instanceof WebSocketRequestError);
  if (transport || !base) {
    const e = err as { shortMessage?: string; message?: string };
    return new AppError('upstream', `chain RPC failed: ${e.shortMessage ?? e.message ?? String(err)}`);
  }
  // Anything else viem raised before or after the call: the arguments do not fit the ABI.
  return invalid(`query.args: ${base.shortMessage}`);
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

/** What contract reads read from the configuration: the chains' RPC URLs and whether the dev chain runs. */
export type ContractReadsSettings = RpcOptions & Pick<Config, 'DEV_CHAIN'>;

export interface ContractReadsDeps {
  config: ContractReadsSettings;
  /** The indexer of this process, if any: its chain, RPC and contract addresses. */
  host?: IndexerHost;
  /** Runs a view call (default: viem over the chain's RPC). */
  readContract?: ContractReader;
  /** Contract addresses by name from a chain's deployment record (default: deployments/<chainId>.json). */
  deployedContracts?: (chainId: number) => Record<string, string> | undefined;
}

export interface ContractRead {
  contract: string;
  function: string;
  address: string;
  /** `args` as the query gave it: a JSON array, or absent. */
  args?: string;
  chainId: number;
}

export type ContractReads = ReturnType<typeof createContractReads>;

export function createContractReads(deps: ContractReadsDeps) {
  const { config, host } = deps;
  const readContract = deps.readContract ?? viemReader;
  const deployed =
    deps.deployedContracts ?? ((chainId: number) => readDeploymentRecord(chainId)?.contracts as Record<string, string> | undefined);
  const defaultChain = host?.chainId ?? config.NFT_CHAIN_ID;

  const rpcFor = (chainId: number): string => {
    if (chainId === host?.chainId && host.rpcUrl) return host.rpcUrl;
    try {
      return rpcUrlFor(chainId, config);
    } catch (err) {
      throw invalid(`query.chainId: ${(err as Error).message}`);
    }
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
        throw readFailure(err, { contract: name, function: r.function, address, chainId: r.chainId });
      }
      return { contract: name, function: r.function, address, chain_id: r.chainId, result: stringifyResult(result) };
    },

    /** A named ABI and the address this chain's deployment record (or the hosted indexer) knows for it. */
    info(contract: string, chainId: number) {
      const name = contractName(contract);
      if (!name) throw notFound(`contract ${contract}`);
      const known = (host?.contracts && chainId === host.chainId ? host.contracts : deployed(chainId)) ?? {};
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
