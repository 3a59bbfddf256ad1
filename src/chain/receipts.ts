/**
 * Reading deployments and mints back: from what the tx sender stored (receipt JSON and calldata,
 * no RPC: the minted token ids of a mint, the deployment of a createCollection), and a deployment
 * made elsewhere checked on chain. Decoding and checks only; the services decide what to record.
 */
import { decodeFunctionData, getAddress, parseEventLogs, zeroAddress, type Address, type Hex, type Log, type PublicClient } from 'viem';
import { collectionAbi, diamondFactoryAbi } from '../../contracts/abi/index.ts';
import { AppError, invalid } from '../domain/errors.ts';
import { receiptCreatedCollection } from './factory.ts';
import { assertSupportedChain, shortError, type ChainServices } from './platform-chain.ts';

function logsOf(receipt: unknown): Log[] {
  const logs = (receipt as { logs?: unknown[] } | null)?.logs;
  return Array.isArray(logs) ? (logs as Log[]) : [];
}

/** Tokens a mint receipt created on `collection`: Transfer logs from 0x0 emitted by it. */
export function mintedTokensOf(receipt: unknown, collection: string): Array<{ tokenId: number; recipient: Address }> {
  return parseEventLogs({ abi: collectionAbi, logs: logsOf(receipt), eventName: 'Transfer', strict: false })
    .filter((l) => l.address.toLowerCase() === collection.toLowerCase() && l.args.from === zeroAddress && l.args.tokenId !== undefined)
    .map((l) => ({ tokenId: Number(l.args.tokenId), recipient: getAddress(l.args.to as Address) }));
}

/** A collection deployment read from its createCollection transaction. */
export interface StoredDeployment {
  address: Address;
  chainId: number;
  txHash: string;
  baseURI: string;
  maxSupply: number;
  royaltyBps: number;
  royaltyReceiver: Address;
}

/**
 * The deployment a mined createCollection made: the address from the factory's CollectionCreated
 * event in the stored receipt, the parameters from the calldata. Undefined when there is none.
 */
export function deploymentOf(tx: {
  chain_id: number;
  hash: string | null;
  to_address: string | null;
  data: string | null;
  receipt: unknown;
}): StoredDeployment | undefined {
  if (!tx.to_address || !tx.hash || !tx.data) return undefined;
  const factory = getAddress(tx.to_address);
  const created = parseEventLogs({ abi: diamondFactoryAbi, eventName: 'CollectionCreated', logs: logsOf(tx.receipt), strict: false }).find(
    (l) => getAddress(l.address) === factory,
  );
  const diamond = (created?.args as { diamond?: Address } | undefined)?.diamond;
  if (!diamond) return undefined;
  const { args } = decodeFunctionData({ abi: diamondFactoryAbi, data: tx.data as Hex });
  const p = (args as unknown as [{ baseURI: string; maxSupply: bigint; royaltyReceiver: Address; royaltyBps: bigint | number }])[0];
  return {
    address: getAddress(diamond),
    chainId: tx.chain_id,
    txHash: tx.hash.toLowerCase(),
    baseURI: p.baseURI,
    maxSupply: Number(p.maxSupply),
    royaltyBps: Number(p.royaltyBps),
    royaltyReceiver: getAddress(p.royaltyReceiver),
  };
}

/** What a checked deployment names: its transaction (given, or found) and the contract's maxSupply. */
export interface VerifiedDeployment {
  txHash: Hex;
  /** `maxSupply()` of the contract; undefined when it does not answer or does not fit a record. */
  maxSupply: number | undefined;
}

/**
 * Checks that `contract` has code on `chainId` and that a transaction created it through the
 * chain's known factory (a CollectionCreated event of that factory naming it): `hash` when given,
 * else the transaction of the factory's CollectionCreated event for `contract` (docs/api/nft.md
 * §4.2: deploy-status "carries at least the contract address"). 400 naming the field.
 */
export async function verifyDeployment(chain: ChainServices, chainId: number, contract: Address, hash?: Hex): Promise<VerifiedDeployment> {
  assertSupportedChain(chainId, 'body.chain_id');
  const record = chain.deployment(chainId);
  if (!record) throw invalid(`body.chain_id: no factory deployment is known for chain ${chainId}`);
  if (!(await chain.hasCode(chainId, contract))) {
    throw invalid(`body.contract_address: no contract code at ${contract} on chain ${chainId}`);
  }
  const client = chain.client(chainId);
  const factory = record.contracts.DiamondFactory;
  const txHash = hash ?? (await creationOf(client, factory, record.blockNumber, chainId, contract));
  let receipt;
  try {
    receipt = await client.getTransactionReceipt({ hash: txHash });
  } catch (err) {
    if ((err as Error).name === 'TransactionReceiptNotFoundError' || /could not be found/i.test((err as Error).message)) {
      throw invalid(`body.deploy_tx_hash: no mined transaction ${txHash} on chain ${chainId}`);
    }
    throw new AppError('upstream', `chain ${chainId} RPC did not answer: ${shortError(err)}`);
  }
  if (receipt.status !== 'success' || !receiptCreatedCollection(receipt, factory, contract)) {
    throw invalid(`body.contract_address: ${contract} was not created by the platform factory ${factory} in transaction ${txHash}`);
  }
  const maxSupply = await client
    .readContract({ address: contract, abi: collectionAbi, functionName: 'maxSupply' })
    .then((v) => (v <= BigInt(2 ** 31 - 1) ? Number(v) : undefined))
    .catch(() => undefined);
  return { txHash, maxSupply };
}

/** The transaction of `factory`'s CollectionCreated event for `contract` (from the factory's deployment block). */
async function creationOf(client: PublicClient, factory: Address, fromBlock: number, chainId: number, contract: Address): Promise<Hex> {
  let logs;
  try {
    logs = await client.getContractEvents({
      address: factory,
      abi: diamondFactoryAbi,
      eventName: 'CollectionCreated',
      args: { diamond: contract },
      // A record written before blockNumber was kept has none: from the genesis then.
      fromBlock: BigInt(Number.isSafeInteger(fromBlock) && fromBlock > 0 ? fromBlock : 0),
      toBlock: 'latest',
    });
  } catch (err) {
    throw new AppError('upstream', `chain ${chainId} RPC did not answer the factory's events (send deploy_tx_hash): ${shortError(err)}`);
  }
  const created = logs.at(-1)?.transactionHash;
  if (!created) throw invalid(`body.contract_address: ${contract} was not created by the platform factory ${factory} on chain ${chainId}`);
  return created;
}
