/**
 * Whether a collection's sale is closed, the condition for exporting and freezing it
 * (docs/permanence.md): sold out by the record, or from the contract — minting turned off, or the
 * on-chain sale's window ended. A contract that does not answer counts as what the record says.
 */
import { conflict } from '../domain/errors.ts';
import { saleClosed } from '../domain/permanence.ts';

/** The record's side of the decision. */
export interface SaleRecord {
  editions: number;
  tokens_minted: number;
  mint_status: string;
  contract_address: string | null;
  chain_id: number | null;
}

export interface SaleClosedDeps {
  /** The contract's mintActive() and on-chain sale end (unix seconds, 0 = none); absent without a chain. */
  readChain?: (chainId: number, address: string) => Promise<{ mintActive?: boolean; saleEnd?: bigint }>;
  now: () => number;
  log?: (err: unknown, message: string) => void;
}

/** Why the sale counts as closed (sold_out | minting_off | sale_ended); 409 SALE_OPEN naming why not. */
export async function closedReason(deps: SaleClosedDeps, c: SaleRecord): Promise<string> {
  const deployed = Boolean(c.contract_address && c.chain_id !== null);
  let chainFacts: { mintActive?: boolean; saleEnd?: bigint } = {};
  const soldOut = c.editions > 0 && c.tokens_minted >= c.editions;
  if (!soldOut && deployed && deps.readChain) {
    try {
      chainFacts = await deps.readChain(c.chain_id!, c.contract_address!);
    } catch (err) {
      deps.log?.(err, `export: reading the sale state of ${c.contract_address} failed`);
    }
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
