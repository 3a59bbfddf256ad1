/**
 * Response mappers of the ownership and indexer routes (schemas in ../schemas/indexer.ts): block
 * numbers and token ids as strings (they outgrow JSON numbers), times as ISO 8601.
 */
import type { AppRow, AppTokenRow, DeckToken, MintRow, OwnerTokenRow, TransferRow } from '../../db/indexer-queries.ts';
import { ZERO_ADDRESS } from '../../indexer/decode.ts';
import type { ContractReads } from '../../services/contract-reads.ts';
import type { IndexerReads } from '../../services/indexer-reads.ts';
import { iso } from '../../domain/time.ts';

export function presentOwnershipToken(t: {
  id: string;
  token_id: number | null;
  current_owner: string | null;
  mint_recipient: string | null;
  mint_status: string | null;
  last_transfer_at: Date | null;
}) {
  return {
    id: t.id,
    token_id: Number(t.token_id),
    current_owner: t.current_owner,
    mint_recipient: t.mint_recipient,
    mint_status: t.mint_status,
    last_transfer_at: iso(t.last_transfer_at),
  };
}

export function presentTransfer(t: TransferRow, deck: DeckToken) {
  return {
    id: t.id,
    deck_id: deck.id,
    chain_id: t.chain_id,
    collection_address: t.collection_address,
    token_id: t.token_id,
    from_address: t.from_address,
    to_address: t.to_address,
    block_number: String(t.block_number),
    block_hash: t.block_hash,
    tx_hash: t.tx_hash,
    log_index: t.log_index,
    timestamp: t.timestamp.toISOString(),
    is_mint: t.from_address === ZERO_ADDRESS,
  };
}

export function presentIndexerStatus(s: Awaited<ReturnType<IndexerReads['status']>>) {
  const { state, live } = s;
  return {
    id: 'singleton' as const,
    status: state?.status ?? 'idle',
    last_indexed_block: String(state?.last_indexed_block ?? 0),
    chain_id: s.chainId,
    started_at: iso(state?.started_at),
    updated_at: iso(state?.updated_at),
    // extras (docs/indexer.md)
    head_block: s.head === null ? null : String(s.head),
    lag_blocks: s.lag,
    // Running here, or in another process that holds the chain's indexer lease.
    running: s.process !== 'none',
    /** No process follows the chain: the persisted status is the last one a dead indexer wrote. */
    down: s.process === 'none',
    behind: live?.behind ?? false,
    stalled: live?.stalled ?? false,
    warnings: live?.warnings ?? [],
    last_error: state?.last_error ?? null,
    initialized: state !== undefined,
    indexer_process: { running_in: s.process, holder: s.holder },
  };
}

export function presentOwnerToken(t: OwnerTokenRow, chainId: number) {
  return {
    id: t.app_address,
    token_id: t.app_address,
    contract_address: t.app_address,
    chain_id: chainId,
    owner: t.owner,
    minted_block: String(t.minted_block),
    minted_at: t.minted_at.toISOString(),
    mint_tx_hash: t.mint_tx_hash,
    updated_block: String(t.updated_block),
    updated_at: t.updated_at.toISOString(),
  };
}

export function presentOwnerTokenTransfer(x: {
  from_address: string;
  to_address: string;
  block_number: number;
  tx_hash: string;
  log_index: number;
  timestamp: Date;
}) {
  return { ...x, block_number: String(x.block_number), timestamp: x.timestamp.toISOString() };
}

export function presentApp(a: AppRow) {
  return {
    id: a.address,
    address: a.address,
    chain_id: a.chain_id,
    type: 'collection' as const,
    name: a.name,
    symbol: a.symbol,
    creator: a.creator,
    owner: a.owner ?? null,
    owner_token_id: a.address,
    factory_address: a.factory_address,
    collection_id: a.collection_id ?? null,
    totalMinted: Number(a.total_minted),
    block_number: String(a.block_number),
    tx_hash: a.tx_hash,
    created_at: a.timestamp.toISOString(),
  };
}

export function presentAppToken(t: AppTokenRow) {
  return {
    app_address: t.app_address,
    token_id: t.token_id,
    owner: t.owner,
    minted_to: t.minted_to ?? null,
    minted_at: iso(t.minted_at),
    mint_tx_hash: t.mint_tx_hash ?? null,
    last_transfer_block: String(t.last_transfer_block),
    last_transfer_at: t.last_transfer_at.toISOString(),
  };
}

export function presentMint(m: MintRow) {
  return {
    id: m.id,
    app_address: m.app_address,
    to: m.to_address,
    start_token_id: m.start_token_id,
    quantity: m.quantity,
    block_number: String(m.block_number),
    tx_hash: m.tx_hash,
    log_index: m.log_index,
    timestamp: m.timestamp.toISOString(),
  };
}

export function presentContractInfo(info: ReturnType<ContractReads['info']>) {
  return { ...info, abi: [...info.abi] };
}
