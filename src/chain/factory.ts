/**
 * Factory reads (docs/api/nft.md §2.8) and collection deployment (§4.1.5): salt from
 * collectionCount, predicted address, createCollection through the TxSender, and the
 * CollectionCreated event as the source of truth for the address.
 */
import {
  encodeAbiParameters,
  encodeFunctionData,
  getAddress,
  getContractAddress,
  keccak256,
  parseEventLogs,
  type Address,
  type Hex,
  type PublicClient,
  type TransactionReceipt,
} from 'viem';
import { diamondFactoryAbi } from '../../contracts/abi/index.ts';
import { AppError } from '../domain/errors.ts';
import { revertError, simulateOrThrow } from './collection.ts';
import type { TxSender } from './tx/api.ts';

export interface FactoryState {
  address: Address;
  collectionCount: string;
  owner: Address;
  facets: Record<(typeof FACTORY_COMPONENTS)[number], Address>;
}

/** The factory's component getters (§2.8), in the order of `GET /api/nft/factory`'s `facets`. */
export const FACTORY_COMPONENTS = [
  'diamondCutFacet',
  'diamondLoupeFacet',
  'ownershipFacet',
  'erc721Facet',
  'mintFacet',
  'collectionInit',
  'contractURIFacet',
  'metadataUpdateFacet',
  'royaltyFacet',
  'fairnessFacet',
  'saleFacet',
  'router',
] as const;

export async function readFactory(client: PublicClient, address: Address): Promise<FactoryState> {
  const read = (functionName: string) =>
    client.readContract({ address, abi: diamondFactoryAbi, functionName: functionName as never }) as Promise<unknown>;
  const [count, owner, ...components] = await Promise.all(['collectionCount', 'owner', ...FACTORY_COMPONENTS].map(read));
  return {
    address: getAddress(address),
    collectionCount: String(count),
    owner: getAddress(owner as string),
    facets: Object.fromEntries(FACTORY_COMPONENTS.map((name, i) => [name, getAddress(components[i] as string)])) as FactoryState['facets'],
  };
}

export interface CollectionParams {
  name: string;
  symbol: string;
  baseURI: string;
  contractURI: string;
  maxSupply: bigint;
  royaltyReceiver: Address;
  royaltyBps: number;
  owner: Address;
  minter: Address;
}

export interface DeployedCollection {
  address: Address;
  txHash: Hex;
  /** The CREATE2 salt the factory used: keccak256(abi.encode(sender, index)). */
  salt: Hex;
  /** The address predicted before sending (from collectionCount); differs when another creation landed first. */
  predictedAddress: Address;
  index: string;
  blockNumber: string;
  receipt: TransactionReceipt;
}

export const collectionSalt = (creator: Address, index: bigint): Hex =>
  keccak256(encodeAbiParameters([{ type: 'address' }, { type: 'uint256' }], [creator, index]));

const initCodeHashes = new Map<string, Hex>();

export async function deployCollection(opts: {
  client: PublicClient;
  sender: TxSender;
  factory: Address;
  params: CollectionParams;
  idempotencyKey?: string;
}): Promise<DeployedCollection> {
  const { client, sender, factory, params } = opts;
  const creator = sender.address;
  // (1) collectionCount gives the salt, (2) the factory predicts the address.
  const count = (await client.readContract({ address: factory, abi: diamondFactoryAbi, functionName: 'collectionCount' })) as bigint;
  const predictedAddress = getAddress(
    (await client.readContract({
      address: factory,
      abi: diamondFactoryAbi,
      functionName: 'predictCollectionAddress',
      args: [creator, count],
    })) as Address,
  );
  const key = `${client.chain?.id}:${factory.toLowerCase()}`;
  let initCodeHash = initCodeHashes.get(key);
  if (!initCodeHash) {
    initCodeHash = (await client.readContract({ address: factory, abi: diamondFactoryAbi, functionName: 'collectionInitCodeHash' })) as Hex;
    initCodeHashes.set(key, initCodeHash);
  }
  const args = [params] as const;
  // A parameter the factory refuses is the caller's mistake: find out before anything is sent.
  await simulateOrThrow(client, { address: factory, abi: diamondFactoryAbi, functionName: 'createCollection', args, account: creator });
  // (3) createCollection through the sender.
  const data = encodeFunctionData({ abi: diamondFactoryAbi, functionName: 'createCollection', args: args as never });
  let result;
  try {
    result = await sender.send({ purpose: 'create-collection', to: factory, data, idempotencyKey: opts.idempotencyKey });
  } catch (err) {
    throw revertError(err, 'createCollection') ?? err;
  }
  if (result.status !== 'mined') {
    throw new AppError('conflict', `createCollection reverted (tx ${result.hash})`, { txHash: result.hash });
  }
  const created = parseEventLogs({ abi: diamondFactoryAbi, eventName: 'CollectionCreated', logs: result.receipt.logs }).find(
    (l) => getAddress(l.address) === getAddress(factory),
  );
  if (!created) throw new AppError('upstream', `createCollection mined without a CollectionCreated event (tx ${result.hash})`);
  const address = getAddress((created.args as { diamond: Address }).diamond);
  // The index this creation got: the prediction when nothing landed first, else search upward.
  let index = count;
  const after = (await client.readContract({
    address: factory,
    abi: diamondFactoryAbi,
    functionName: 'collectionCount',
    blockNumber: result.receipt.blockNumber,
  })) as bigint;
  for (let i = count; i < after; i++) {
    const a = getContractAddress({ opcode: 'CREATE2', from: factory, salt: collectionSalt(creator, i), bytecodeHash: initCodeHash });
    if (getAddress(a) === address) {
      index = i;
      break;
    }
  }
  return {
    address,
    txHash: result.hash,
    salt: collectionSalt(creator, index),
    predictedAddress,
    index: index.toString(),
    blockNumber: result.receipt.blockNumber.toString(),
    receipt: result.receipt,
  };
}

/** True when `receipt` holds a CollectionCreated event of `factory` for `collection`. */
export function receiptCreatedCollection(receipt: TransactionReceipt, factory: Address, collection: Address): boolean {
  return parseEventLogs({ abi: diamondFactoryAbi, eventName: 'CollectionCreated', logs: receipt.logs }).some(
    (l) => getAddress(l.address) === getAddress(factory) && getAddress((l.args as { diamond: Address }).diamond) === getAddress(collection),
  );
}
