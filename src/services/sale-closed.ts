/**
 * Whether a collection's sale is closed, the condition for exporting and freezing it
 * (docs/permanence.md): sold out by the record, or from the contract — minting turned off, or the
 * on-chain sale's window ended. A contract that does not answer counts as what the record says.
 */
import { conflict } from '../domain/errors.ts';
import { saleClosed } from '../domain/permanence.ts';

/** What the contract says (each part undefined when it could not be read). */
export interface ChainSaleState {
  mintActive?: boolean;
  saleEnd?: bigint;
  chainSupply?: { total: number; max: number };
}

/** The record's side of the decision. */
export interface SaleRecord {
  editions: number;
  tokens_minted: number;
  mint_status: string;
  contract_address: string | null;
  chain_id: number | null;
}

export interface SaleClosedDeps {
  /**
   * The contract's mintActive(), on-chain sale end (unix seconds, 0 = none), totalSupply() and
   * maxSupply(); absent without a chain.
   */
  readChain?: (chainId: number, address: string) => Promise<ChainSaleState>;
  now: () => number;
  log?: (err: unknown, message: string) => void;
}

/** The deps of closedReason from a service's optional ones (the clock defaults to now). */
export function saleClosedDeps(d: Partial<SaleClosedDeps>): SaleClosedDeps {
  return {
    now: d.now ?? (() => Math.floor(Date.now() / 1000)),
    ...(d.readChain ? { readChain: d.readChain } : {}),
    ...(d.log ? { log: d.log } : {}),
  };
}

/**
 * Why the sale counts as closed (sold_out | minting_off | sale_ended); 409 SALE_OPEN naming why not.
 * 409 TOKENS_NOT_FOLLOWED when the contract has minted tokens the platform has not recorded yet (a
 * purchase not followed yet): a bundle without them would freeze their tokenURIs at missing files.
 */
export async function closedReason(deps: SaleClosedDeps, c: SaleRecord): Promise<string> {
  const deployed = Boolean(c.contract_address && c.chain_id !== null);
  let chainFacts: ChainSaleState = {};
  if (deployed && deps.readChain) {
    try {
      chainFacts = await deps.readChain(c.chain_id!, c.contract_address!);
    } catch (err) {
      deps.log?.(err, `reading the sale state of ${c.contract_address} failed (the record decides)`);
    }
  }
  const onChain = chainFacts.chainSupply?.total;
  if (onChain !== undefined && onChain !== c.tokens_minted) {
    throw conflict(
      `the contract has minted ${onChain} tokens but the platform has recorded ${c.tokens_minted}: ` +
        'the missing ones (purchases not followed yet) get their records and artwork first; ask again once they have',
      { code: 'TOKENS_NOT_FOLLOWED', on_chain: onChain, recorded: c.tokens_minted },
    );
  }
  const decision = saleClosed({
    editions: c.editions,
    tokens_minted: c.tokens_minted,
    mint_status: c.mint_status,
    deployed,
    ...chainFacts,
    now: deps.now(),
  });
  if ('open' in decision) throw conflict(decision.open, { code: 'SALE_OPEN' });
  return decision.closed;
}
