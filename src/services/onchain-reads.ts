/**
 * What the operator reads straight from the chain (docs/chain-operations.md): the platform's
 * deployment record, the factory, collections by address, and the metadata their URIs serve.
 * The admin proxy's routes call these; nothing here writes.
 */
import { BaseError, ContractFunctionRevertedError, ContractFunctionZeroDataError, getAddress, type Address, type PublicClient } from 'viem';
import { collectionAbi } from '../../contracts/abi/index.ts';
import { readCollection, type OnChainCollection } from '../chain/collection.ts';
import { readFactory } from '../chain/factory.ts';
import { fetchMetadata, type MetadataFetchOptions } from '../chain/metadata-proxy.ts';
import { shortError, type ChainServices } from '../chain/platform-chain.ts';
import { isAcceptedAddress } from '../domain/address.ts';
import { AppError } from '../domain/errors.ts';

/** The most addresses one collections read takes, and the most tokens one metadata read lists. */
export const MAX_ADDRESSES = 100;
export const MAX_ENUMERATED_TOKENS = 100;

export async function requireContract(chain: ChainServices, chainId: number, addr: string): Promise<Address> {
  if (!(await chain.hasCode(chainId, addr))) throw new AppError('not_found', `no contract at ${addr} on chain ${chainId}`);
  return getAddress(addr);
}

/** Whether a contract read failed because the contract refused it (a revert, or no data back). */
const refusedByContract = (err: unknown): boolean =>
  err instanceof BaseError &&
  Boolean(err.walk((e) => e instanceof ContractFunctionRevertedError || e instanceof ContractFunctionZeroDataError));

/**
 * An RPC read; a failure that is not ours is a 502 naming what was read. `notA`: the read is of
 * an address the client named, as a kind of contract; a revert (or no data back) then means the
 * address is not that kind of contract — the client's mistake, a 400 (`notA` names the field).
 */
export const rpc = async <T>(what: string, fn: () => Promise<T>, notA?: string): Promise<T> => {
  try {
    return await fn();
  } catch (err) {
    if (err instanceof AppError) throw err;
    if (notA && refusedByContract(err)) throw new AppError('invalid', `${notA} (${what} reverted)`);
    throw new AppError('upstream', `${what}: ${shortError(err)}`);
  }
};

function read<T>(client: PublicClient, address: Address, functionName: string, args: unknown[] = []): Promise<T> {
  return client.readContract({ address, abi: collectionAbi, functionName: functionName as never, args: args as never }) as Promise<T>;
}

export type MetadataRead =
  | { type: 'contract'; uri: string; metadata: unknown; metadataError?: string }
  | { type: 'token'; uri: string; owner: Address; metadata: unknown; metadataError?: string }
  | { type: 'tokens'; tokens: Array<{ tokenId: string; uri: string; owner: Address }>; totalSupply: string; capped: boolean };

/** `fetchOptions`: how documents are fetched (our own hosts allowed, rewrites; docs/security.md). */
export function createOnchainReads(chain: ChainServices, fetchOptions: MetadataFetchOptions) {
  return {
    /** The factory: the chain's record, or the address the client named (then a non-factory is 400). */
    async factory(chainId: number, named?: string) {
      const factoryAddress = named ? getAddress(named) : (await chain.deploymentStatus(chainId)).factoryAddress;
      if (!(await chain.hasCode(chainId, factoryAddress))) {
        return {
          stale: true as const,
          factory: { address: factoryAddress },
          error: `factory ${factoryAddress} has no code on chain ${chainId} (was the chain reset?); redeploy with POST /api/nft/deploy`,
        };
      }
      const factory = await rpc(
        `reading factory ${factoryAddress}`,
        () => readFactory(chain.client(chainId), factoryAddress),
        // The recorded factory refusing is ours to fix (502); an address the client named, theirs.
        named ? `query.factoryAddress: ${factoryAddress} is not a collection factory on chain ${chainId}` : undefined,
      );
      return { stale: false as const, factory };
    },

    /** Those of `addresses` that answer the collection calls; the others (malformed, no code, not a collection) as given. */
    async collections(chainId: number, addresses: string[]) {
      const list = [...new Set(addresses.map((a) => a.trim()).filter(Boolean))];
      if (list.length > MAX_ADDRESSES) throw new AppError('invalid', `query.addresses: at most ${MAX_ADDRESSES} addresses`);
      const client = chain.client(chainId);
      const results = await Promise.all(
        list.map(async (a): Promise<{ collection?: OnChainCollection; invalid?: string }> => {
          // Malformed or mistyped (a wrong checksum): listed as invalid, as given (docs/chain-operations.md).
          if (!isAcceptedAddress(a)) return { invalid: a };
          try {
            if (!(await chain.hasCode(chainId, a))) return { invalid: a };
            return { collection: await readCollection(client, getAddress(a)) };
          } catch (err) {
            if (err instanceof AppError && err.kind !== 'upstream') throw err;
            // No code, or code that does not answer the collection calls.
            return { invalid: a };
          }
        }),
      );
      return {
        collections: results.flatMap((x) => (x.collection ? [x.collection] : [])),
        invalidAddresses: results.flatMap((x) => (x.invalid ? [x.invalid] : [])),
      };
    },

    /** A collection's document, one token's, or the first MAX_ENUMERATED_TOKENS tokens' URIs and owners. */
    async metadata(q: { chainId: number; address: string; type: MetadataRead['type']; tokenId?: string }): Promise<MetadataRead> {
      const { chainId, type } = q;
      const addr = await requireContract(chain, chainId, q.address);
      const client = chain.client(chainId);
      const fetched = async (uri: string) => {
        const m = await fetchMetadata(uri, fetchOptions);
        return { metadata: m.ok ? m.metadata : null, ...(m.ok ? {} : { metadataError: m.error }) };
      };
      const notACollection = `query.address: ${addr} is not a collection contract on chain ${chainId}`;
      if (type === 'contract') {
        const uri = await rpc('contractURI()', () => read<string>(client, addr, 'contractURI'), notACollection);
        return { type, uri, ...(await fetched(uri)) };
      }
      const totalSupply = () => rpc('totalSupply()', () => read<bigint>(client, addr, 'totalSupply'), notACollection);
      if (type === 'token') {
        if (q.tokenId === undefined) throw new AppError('invalid', 'query.tokenId: required when type is token');
        const tokenId = BigInt(q.tokenId);
        const total = await totalSupply();
        if (tokenId < 1n || tokenId > total) throw new AppError('not_found', `token ${tokenId} of ${addr}`);
        const [uri, owner] = await rpc('tokenURI/ownerOf', () =>
          Promise.all([read<string>(client, addr, 'tokenURI', [tokenId]), read<string>(client, addr, 'ownerOf', [tokenId])]),
        );
        return { type, uri, owner: getAddress(owner), ...(await fetched(uri)) };
      }
      const total = await totalSupply();
      const count = Number(total < BigInt(MAX_ENUMERATED_TOKENS) ? total : BigInt(MAX_ENUMERATED_TOKENS));
      const tokens = await rpc('tokenURI/ownerOf', () =>
        Promise.all(
          Array.from({ length: count }, async (_, i) => {
            const id = BigInt(i + 1);
            const [uri, owner] = await Promise.all([
              read<string>(client, addr, 'tokenURI', [id]),
              read<string>(client, addr, 'ownerOf', [id]),
            ]);
            return { tokenId: id.toString(), uri, owner: getAddress(owner) };
          }),
        ),
      );
      return { type, tokens, totalSupply: total.toString(), capped: total > BigInt(MAX_ENUMERATED_TOKENS) };
    },
  };
}
