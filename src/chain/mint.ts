/**
 * Minting through the platform TxSender (DESIGN.md: every chain write goes through the sender;
 * token ids come from the receipt's Transfer logs, never from totalSupply read before the tx).
 */
import { encodeFunctionData, getAddress, parseEventLogs, zeroAddress, type Address, type Hex, type PublicClient } from 'viem';
import { collectionAbi } from '../../contracts/abi/index.ts';
import { AppError, conflict } from '../domain/errors.ts';
import { revertNameIn } from './collection.ts';
import { IdempotencyConflictError, TxFailedError, TxTimeoutError, type TxSender } from './tx/api.ts';

/** What minting and payments need from the per-process chain context (ChainServices fits). */
export interface MintingChainAccess {
  client(chainId: number): PublicClient;
  sender(chainId: number): TxSender;
  walletAddress?(chainId: number): Address;
  deployment?(chainId: number): { contracts: Record<string, unknown> } | undefined;
}

export interface MintResult {
  txHash: Hex;
  tokenIds: number[];
  recipient: Address;
  /** The block that mined it (a token's fair seed mixes its hash: docs/fairness.md). */
  blockHash: Hex;
  blockNumber: number;
}

/** The revert names the contract uses, in words a caller can act on. */
const REFUSALS: Record<string, string> = {
  MaxSupplyExceeded: 'the collection is sold out (maxSupply reached)',
  MintNotActive: 'minting is paused on this collection (setMintActive)',
  NotOwnerOrMinter: 'the platform wallet is neither owner nor minter of this collection',
  InvalidQuantity: 'invalid quantity',
};

function refusal(message: string): string | undefined {
  const decoded = revertNameIn(message);
  for (const [name, words] of Object.entries(REFUSALS)) if (decoded === name || message.includes(name)) return `${words} (${name})`;
  return decoded ? `the contract refused: ${decoded}` : undefined;
}

export async function mintTokens(
  chain: MintingChainAccess,
  req: { chainId: number; collection: string; recipient: string; quantity: number; idempotencyKey: string },
): Promise<MintResult> {
  const collection = getAddress(req.collection);
  const recipient = getAddress(req.recipient);
  const data = encodeFunctionData({ abi: collectionAbi, functionName: 'mintTo', args: [recipient, BigInt(req.quantity)] });
  let res;
  try {
    res = await chain.sender(req.chainId).send({ purpose: 'mint', to: collection, data, idempotencyKey: req.idempotencyKey });
  } catch (err) {
    if (err instanceof TxFailedError) {
      const why = refusal(err.message);
      if (why) throw conflict(`mint refused: ${why}`);
      throw new AppError('upstream', `mint transaction could not be sent: ${err.message}`);
    }
    if (err instanceof TxTimeoutError)
      throw new AppError('unavailable', `mint transaction ${err.hash ?? ''} is not mined yet; retry with the same Idempotency-Key`);
    if (err instanceof IdempotencyConflictError) throw conflict('Idempotency-Key was already used for a different mint');
    throw err;
  }
  if (res.status !== 'mined') throw conflict(`mint transaction ${res.hash} reverted on chain`);
  const tokenIds = parseEventLogs({ abi: collectionAbi, logs: res.receipt.logs, eventName: 'Transfer' })
    .filter((l) => l.address.toLowerCase() === collection.toLowerCase() && l.args.from === zeroAddress)
    .map((l) => Number(l.args.tokenId))
    .sort((a, b) => a - b);
  if (tokenIds.length !== req.quantity)
    throw new AppError('upstream', `mint ${res.hash}: expected ${req.quantity} Transfer logs, found ${tokenIds.length}`);
  return { txHash: res.hash, tokenIds, recipient, blockHash: res.receipt.blockHash, blockNumber: Number(res.receipt.blockNumber) };
}

/** ERC-4906 MetadataUpdate(tokenId) through the sender; idempotent per (collection, token, output). */
export async function emitMetadataUpdate(
  chain: MintingChainAccess,
  req: { chainId: number; collection: string; tokenId: number; idempotencyKey: string },
): Promise<Hex> {
  const data = encodeFunctionData({ abi: collectionAbi, functionName: 'emitMetadataUpdate', args: [BigInt(req.tokenId)] });
  const res = await chain
    .sender(req.chainId)
    .send({ purpose: 'metadata_update', to: getAddress(req.collection), data, idempotencyKey: req.idempotencyKey });
  return res.hash;
}
