/**
 * The collection's seed commitment and reveal (contracts FairnessFacet; docs/fairness.md), written
 * through the platform TxSender under fixed idempotency keys (one commit and one reveal per
 * contract, whoever asks and however often), read with plain eth_calls.
 */
import { encodeFunctionData, getAddress, zeroHash, type Hex, type PublicClient } from 'viem';
import { collectionAbi } from '../../contracts/abi/index.ts';
import { AppError, conflict } from '../domain/errors.ts';
import { revertNameIn } from './collection.ts';
import type { MintingChainAccess } from './mint.ts';
import { TxFailedError, TxTimeoutError } from './tx/api.ts';

export interface SeedState {
  commitment: Hex;
  revealed: boolean;
  secret: Hex;
}

/** Commitment and reveal as the contract holds them; `null` when the contract has no FairnessFacet. */
export async function readSeedState(client: PublicClient, collection: string): Promise<SeedState | null> {
  const address = getAddress(collection);
  try {
    const [commitment, [revealed, secret]] = await Promise.all([
      client.readContract({ address, abi: collectionAbi, functionName: 'seedCommitment' }),
      client.readContract({ address, abi: collectionAbi, functionName: 'revealedSeed' }),
    ]);
    return { commitment, revealed, secret: revealed ? secret : zeroHash };
  } catch (err) {
    if (/FunctionNotFound|0x69323d76|returned no data/.test(String((err as Error)?.message ?? err))) return null;
    throw err;
  }
}

async function write(
  chain: MintingChainAccess,
  req: { chainId: number; collection: string; purpose: string; data: Hex; idempotencyKey: string },
): Promise<Hex> {
  try {
    const res = await chain
      .sender(req.chainId)
      .send({ purpose: req.purpose, to: getAddress(req.collection), data: req.data, idempotencyKey: req.idempotencyKey });
    if (res.status !== 'mined') throw conflict(`${req.purpose} transaction ${res.hash} reverted on chain`);
    return res.hash;
  } catch (err) {
    if (err instanceof TxFailedError) {
      const name = revertNameIn(err.message);
      throw conflict(`${req.purpose} refused by the contract${name ? `: ${name}` : ''}`, { code: name ?? 'CHAIN_REFUSED' });
    }
    if (err instanceof TxTimeoutError) throw new AppError('unavailable', `${req.purpose} transaction is not mined yet; try again`);
    throw err;
  }
}

export function commitSeed(chain: MintingChainAccess, req: { chainId: number; collection: string; commitment: Hex }): Promise<Hex> {
  return write(chain, {
    ...req,
    purpose: 'seed_commit',
    data: encodeFunctionData({ abi: collectionAbi, functionName: 'commitSeed', args: [req.commitment] }),
    idempotencyKey: `seed-commit:${req.chainId}:${req.collection.toLowerCase()}`,
  });
}

export function revealSeed(chain: MintingChainAccess, req: { chainId: number; collection: string; secret: Hex }): Promise<Hex> {
  return write(chain, {
    ...req,
    purpose: 'seed_reveal',
    data: encodeFunctionData({ abi: collectionAbi, functionName: 'reveal', args: [req.secret] }),
    idempotencyKey: `seed-reveal:${req.chainId}:${req.collection.toLowerCase()}`,
  });
}

/**
 * Waits until the block that mined a token has `confirmations` (1 = the block itself) and is still
 * on the canonical chain; answers its hash. A mint whose block was replaced is 503 (crash repair
 * settles reorged mints; docs/minting.md).
 */
export async function confirmedBlockHash(
  client: PublicClient,
  mined: { blockNumber: number; blockHash: Hex },
  confirmations: number,
  timeoutMs = 120_000,
): Promise<Hex> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const head = Number(await client.getBlockNumber({ cacheTime: 0 }));
    if (head >= mined.blockNumber + confirmations - 1) break;
    if (Date.now() > until)
      throw new AppError('unavailable', `block ${mined.blockNumber} has not reached ${confirmations} confirmations yet`);
    await new Promise((r) => setTimeout(r, 500));
  }
  const block = await client.getBlock({ blockNumber: BigInt(mined.blockNumber) });
  if (block.hash !== mined.blockHash) {
    throw new AppError(
      'unavailable',
      `the block of this mint (${mined.blockNumber}) was replaced by a reorganisation; it is being settled`,
    );
  }
  return block.hash;
}

// ---------------------------------------------------------------------------------------------
// Exact counts (docs/fairness.md "Exact counts")
// ---------------------------------------------------------------------------------------------

/** provenanceHash(); `null` when the contract's FairnessFacet predates it. */
export async function readProvenance(client: PublicClient, collection: string): Promise<Hex | null> {
  try {
    return await client.readContract({ address: getAddress(collection), abi: collectionAbi, functionName: 'provenanceHash' });
  } catch (err) {
    if (/FunctionNotFound|0x69323d76|returned no data/.test(String((err as Error)?.message ?? err))) return null;
    throw err;
  }
}

export function setProvenance(chain: MintingChainAccess, req: { chainId: number; collection: string; provenance: Hex }): Promise<Hex> {
  return write(chain, {
    ...req,
    purpose: 'provenance',
    data: encodeFunctionData({ abi: collectionAbi, functionName: 'setProvenance', args: [req.provenance] }),
    idempotencyKey: `provenance:${req.chainId}:${req.collection.toLowerCase()}`,
  });
}

/** One BatchMetadataUpdate(from, to) per contract: the exact collection's reveal. */
export function emitRevealBatchUpdate(chain: MintingChainAccess, req: { chainId: number; collection: string; to: number }): Promise<Hex> {
  return write(chain, {
    ...req,
    purpose: 'metadata_update',
    data: encodeFunctionData({ abi: collectionAbi, functionName: 'emitBatchMetadataUpdate', args: [1n, BigInt(req.to)] }),
    idempotencyKey: `exact-reveal-update:${req.chainId}:${req.collection.toLowerCase()}`,
  });
}

/** The block (number, hash) that mined a transaction; null when it is not mined (or not known). */
export async function minedBlockOf(client: PublicClient, txHash: Hex): Promise<{ blockNumber: number; blockHash: Hex } | null> {
  const receipt = await client.getTransactionReceipt({ hash: txHash }).catch(() => null);
  return receipt ? { blockNumber: Number(receipt.blockNumber), blockHash: receipt.blockHash } : null;
}

/**
 * Block `number` once it has `confirmations` (1 = the block itself): its hash, or null while the
 * chain has not got that far (the caller tries again later; nothing waits here).
 */
export async function confirmedBlock(client: PublicClient, number: number, confirmations: number): Promise<Hex | null> {
  const head = Number(await client.getBlockNumber({ cacheTime: 0 }));
  if (head < number + Math.max(1, confirmations) - 1) return null;
  return (await client.getBlock({ blockNumber: BigInt(number) })).hash;
}
