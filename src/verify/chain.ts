/**
 * `atelier verify`'s chain reads: plain eth_calls and logs through any JSON-RPC endpoint, no
 * account, no platform. The collection's commitment and reveal, its contractURI and tokenURIs, the
 * block of each token's mint (its Transfer from the zero address) and canonical block hashes.
 */
import { BlockNotFoundError, createPublicClient, http, zeroAddress, zeroHash, type Address, type Hex, type PublicClient } from 'viem';
import { collectionAbi } from '../../contracts/abi/index.ts';

/** The RPC cannot be reached or does not answer as the collection's chain: exit 2. */
export class ChainUnavailableError extends Error {
  override name = 'ChainUnavailableError';
}

export interface CollectionOnChain {
  commitment: Hex;
  /** The revealed secret; null before the reveal. */
  secret: Hex | null;
  totalSupply: bigint;
  contractURI: string | null;
  /** Token id → the block of its Transfer-from-zero log, in token-id order. */
  mints: Map<number, { blockNumber: number; blockHash: Hex }>;
}

export interface ChainReader {
  collection(): Promise<CollectionOnChain>;
  tokenURI(tokenId: number): Promise<string>;
  /** The canonical chain's hash of block `n`, or null when the chain has no such block. */
  blockHash(n: number): Promise<Hex | null>;
  /** provenanceHash() of an exact collection (docs/fairness.md "Exact counts"); null when the contract has none. */
  provenanceHash?(): Promise<Hex | null>;
}

const message = (err: unknown) => (err instanceof Error ? (err as { shortMessage?: string }).shortMessage || err.message : String(err));

export async function openChain(rpc: string, chainId: number, address: Address, fromBlock: bigint): Promise<ChainReader> {
  const client = createPublicClient({ transport: http(rpc, { retryCount: 1, timeout: 20_000 }) }) as PublicClient;
  let actual: number;
  try {
    actual = await client.getChainId();
  } catch (err) {
    throw new ChainUnavailableError(`cannot reach the RPC ${rpc}: ${message(err)}`);
  }
  if (actual !== chainId) throw new ChainUnavailableError(`the RPC ${rpc} serves chain ${actual}, not ${chainId}`);
  const code = await client.getCode({ address }).catch((err: unknown) => {
    throw new ChainUnavailableError(`cannot read ${address} through ${rpc}: ${message(err)}`);
  });
  if (!code || code === '0x') throw new ChainUnavailableError(`${address} has no contract on chain ${chainId}`);

  const read = <T>(functionName: string, args: unknown[] = []) =>
    client.readContract({ address, abi: collectionAbi, functionName, args } as never) as Promise<T>;

  return {
    async collection() {
      let commitment: Hex;
      let revealed: readonly [boolean, Hex];
      try {
        [commitment, revealed] = await Promise.all([read<Hex>('seedCommitment'), read<readonly [boolean, Hex]>('revealedSeed')]);
      } catch (err) {
        throw new ChainUnavailableError(
          `${address} answers no seed commitment (not an Atelier collection with FairnessFacet?): ${message(err)}`,
        );
      }
      const [totalSupply, contractURI] = await Promise.all([read<bigint>('totalSupply'), read<string>('contractURI').catch(() => null)]);
      const logs = await client
        .getContractEvents({
          address,
          abi: collectionAbi,
          eventName: 'Transfer',
          args: { from: zeroAddress },
          fromBlock,
          toBlock: 'latest',
        })
        .catch((err: unknown) => {
          throw new ChainUnavailableError(
            `cannot read the mints (Transfer logs from block ${fromBlock}): ${message(err)}; an RPC that limits log ranges needs --from-block <the collection's deployment block>`,
          );
        });
      const mints = new Map<number, { blockNumber: number; blockHash: Hex }>();
      for (const log of logs) {
        const tokenId = (log.args as { tokenId?: bigint }).tokenId;
        if (tokenId === undefined || log.blockNumber === null || log.blockHash === null) continue;
        mints.set(Number(tokenId), { blockNumber: Number(log.blockNumber), blockHash: log.blockHash });
      }
      const sorted = new Map([...mints].sort(([a], [b]) => a - b));
      return {
        commitment,
        secret: revealed[0] && revealed[1] !== zeroHash ? revealed[1] : null,
        totalSupply,
        contractURI: contractURI || null,
        mints: sorted,
      };
    },
    tokenURI: (tokenId) => read<string>('tokenURI', [BigInt(tokenId)]),
    provenanceHash: () => read<Hex>('provenanceHash').catch(() => null),
    async blockHash(n) {
      try {
        return (await client.getBlock({ blockNumber: BigInt(n) })).hash;
      } catch (err) {
        if (err instanceof BlockNotFoundError) return null;
        throw new ChainUnavailableError(`cannot read block ${n}: ${message(err)}`);
      }
    },
  };
}
