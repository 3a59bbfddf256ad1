/**
 * Chain actions of the on-chain sale (SaleFacet; docs/contracts.md "Sale"): read the sale back,
 * encode setSale for an owner to sign, and send it through the platform's tx sender.
 */
import { encodeFunctionData, type Address, type Hex, type PublicClient } from 'viem';
import { collectionAbi } from '../../contracts/abi/index.ts';
import { AppError } from '../domain/errors.ts';
import type { SaleTuple } from '../domain/sale-config.ts';
import { revertError, simulateOrThrow } from './collection.ts';
import type { TxSender } from './tx/api.ts';

export const SET_SALE_SIGNATURE = 'setSale((address,uint256,uint64,uint64,uint32,bytes32,(address,uint16)[]))';

export const encodeSetSale = (t: SaleTuple): Hex => encodeFunctionData({ abi: collectionAbi, functionName: 'setSale', args: [t] });

/** A contract without SaleFacet (an older factory's collection) answers FunctionNotFound. */
function noSaleFacet(address: Address, err: unknown): AppError | undefined {
  const mapped = revertError(err, 'saleConfig');
  if (mapped && /FunctionNotFound/.test(mapped.message)) {
    return new AppError(
      'conflict',
      `collection ${address} has no sale facet (it was created by an older factory): its owner adds it with diamondCut, see docs/contracts.md "Sale"`,
      { code: 'NO_SALE_FACET' },
    );
  }
  return mapped;
}

/** The sale as the contract holds it now, or at the end of block `blockNumber`. */
export async function readSale(
  client: PublicClient,
  address: Address,
  blockNumber?: bigint,
): Promise<{ tuple: SaleTuple; paused: boolean; configured: boolean }> {
  try {
    const [tuple, paused, configured] = (await client.readContract({
      address,
      abi: collectionAbi,
      functionName: 'saleConfig',
      ...(blockNumber === undefined ? {} : { blockNumber }),
    })) as [SaleTuple, boolean, boolean];
    return { tuple: { ...tuple, payouts: [...tuple.payouts] }, paused, configured };
  } catch (err) {
    throw (
      noSaleFacet(address, err) ?? new AppError('upstream', `reading saleConfig() of ${address}: ${(err as Error).message.split('\n')[0]}`)
    );
  }
}

export async function sendSetSale(opts: { client: PublicClient; sender: TxSender; address: Address; tuple: SaleTuple }) {
  const { client, sender, address, tuple } = opts;
  try {
    await simulateOrThrow(client, { address, abi: collectionAbi, functionName: 'setSale', args: [tuple], account: sender.address });
  } catch (err) {
    throw noSaleFacet(address, err) ?? err;
  }
  let r;
  try {
    r = await sender.send({ purpose: 'admin:setSale', to: address, data: encodeSetSale(tuple) });
  } catch (err) {
    throw revertError(err, 'setSale') ?? err;
  }
  if (r.status !== 'mined') throw new AppError('conflict', `setSale reverted on chain (tx ${r.hash})`, { txHash: r.hash });
  return { txHash: r.hash, blockNumber: r.receipt.blockNumber.toString() };
}
