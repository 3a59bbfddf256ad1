/**
 * The on-chain sale of a collection (docs/contracts.md "Sale", docs/minting.md "On-chain sale"):
 * PUT sends setSale through the platform wallet for a contract the platform wallet owns; for a
 * creator-owned contract it answers 409 with the exact call data the owner signs. GET reads the
 * contract. Authorization: `collection.sale` (owner or operator) from domain/policy.ts.
 */
import { getAddress, type Address } from 'viem';
import { collectionAbi } from '../../contracts/abi/index.ts';
import type { MintingChainAccess } from '../chain/mint.ts';
import { SET_SALE_SIGNATURE, encodeSetSale, readSale, sendSetSale } from '../chain/sale.ts';
import { AppError, conflict } from '../domain/errors.ts';
import { authorize, type Caller } from '../domain/policy.ts';
import { fromSaleTuple, toSaleTuple, type SaleSettings } from '../domain/sale-config.ts';

export interface SaleCollection {
  id: string;
  user_id: string | null;
  contract_address: string | null;
  chain_id: number | null;
}

export interface SaleServiceDeps {
  getCollection(id: string): Promise<SaleCollection>;
  /** The platform wallet's chain access (client, tx sender). */
  chain?: MintingChainAccess;
  /**
   * Commits the collection's seed secret when it is not yet (services/fair-seeds.ts): a sale opens
   * only over a commitment, so no purchased token's seed can be targeted (docs/fairness.md).
   */
  ensureSeedCommitted?: (collectionId: string) => Promise<unknown>;
}

export function createSaleService({ getCollection, chain, ensureSeedCommitted }: SaleServiceDeps) {
  const needChain = () => {
    if (!chain) throw new AppError('unavailable', 'the on-chain sale is not available: this backend has no chain configured');
    return chain;
  };
  const deployed = (c: SaleCollection) => {
    if (!c.contract_address || c.chain_id === null) {
      throw conflict(`collection ${c.id} is not deployed: deploy it before configuring its sale`, { code: 'NOT_DEPLOYED' });
    }
    return { address: getAddress(c.contract_address), chainId: c.chain_id };
  };

  return {
    async read(collectionId: string) {
      const ch = needChain();
      const { address, chainId } = deployed(await getCollection(collectionId));
      const s = await readSale(ch.client(chainId), address);
      return { collection_address: address, chain_id: chainId, ...fromSaleTuple(s.tuple, s.paused, s.configured) };
    },

    async configure(caller: Caller, collectionId: string, settings: SaleSettings) {
      const c = await getCollection(collectionId);
      authorize(caller, 'collection.sale', { ownerId: c.user_id });
      const ch = needChain();
      const { address, chainId } = deployed(c);
      const tuple = toSaleTuple(settings);
      const client = ch.client(chainId);
      const wallet = getAddress(ch.walletAddress?.(chainId) ?? ch.sender(chainId).address);
      let owner: Address;
      try {
        owner = getAddress((await client.readContract({ address, abi: collectionAbi, functionName: 'owner' })) as string);
      } catch (err) {
        throw new AppError('upstream', `reading owner() of ${address}: ${(err as Error).message.split('\n')[0]}`);
      }
      // The commitment comes first, whoever sends setSale (the platform may commit as the minter).
      await ensureSeedCommitted?.(c.id);
      if (owner !== wallet) {
        // The creator signs it: the exact transaction, ready for eth_sendTransaction (EIP-1193).
        throw new AppError(
          'conflict',
          `collection ${address} is owned by ${owner}, not by the platform wallet ${wallet}: the owner sends setSale from their own wallet with the call data in "call" (docs/contracts.md "Sale")`,
          {
            code: 'OWNER_MUST_SIGN',
            owner,
            platformWallet: wallet,
            call: { chainId, from: owner, to: address, data: encodeSetSale(tuple), value: '0x0', function: SET_SALE_SIGNATURE },
          },
        );
      }
      const sent = await sendSetSale({ client, sender: ch.sender(chainId), address, tuple });
      const s = await readSale(client, address);
      return { tx_hash: sent.txHash, collection_address: address, chain_id: chainId, ...fromSaleTuple(s.tuple, s.paused, s.configured) };
    },
  };
}

export type SaleService = ReturnType<typeof createSaleService>;
