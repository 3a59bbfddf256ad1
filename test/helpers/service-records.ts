/**
 * In-memory records for the unit tests of the services (used by src/services/*.test.ts):
 * a collection row with every column, and a deck row, with the fields a test names.
 */
import type { CollectionRow } from '../../src/db/collections.ts';
import type { DeckRow } from '../../src/db/minting.ts';

let n = 0;
const id = () => `00000000-0000-4000-8000-${String(++n).padStart(12, '0')}`;

export function collectionRow(fields: Partial<CollectionRow> = {}): CollectionRow {
  const at = new Date('2025-01-01T00:00:00.000Z');
  return {
    id: id(),
    user_id: null,
    title: 'Test Collection',
    description: '',
    editions: 100,
    price: 0,
    blockchain: 'ARBITRUM',
    data: { version: 'v2', steps: [], variables: [] },
    project_id: null,
    social_org: null,
    social_identifier: null,
    is_custodial: false,
    custodied_for: null,
    status: 'draft',
    cover_image_url: null,
    component: null,
    source_metadata: null,
    contract_address: null,
    chain_id: null,
    deploy_tx_hash: null,
    base_token_uri: null,
    frozen_at: null,
    frozen_root_cid: null,
    frozen_tx_hash: null,
    mint_status: 'draft',
    max_supply: null,
    tokens_minted: 0,
    royalty_bps: null,
    royalty_receiver: null,
    is_global: false,
    input_type: null,
    output_type: null,
    is_featured: false,
    generations_per_payment: 1,
    free_samples_per_collection: 10,
    free_samples_per_user: 3,
    compute_cost_per_sample: '1000000',
    mint_access: 'owner',
    mint_price: null,
    payout_address: null,
    max_per_wallet: null,
    mint_allowlist: null,
    mint_merkle_root: null,
    mint_start: null,
    mint_end: null,
    created_at: at,
    updated_at: at,
    ...fields,
  };
}

export function deckRow(fields: Partial<DeckRow> = {}): DeckRow {
  const at = new Date('2025-01-01T00:00:00.000Z');
  return {
    id: id(),
    collection_id: id(),
    user_id: null,
    name: '',
    description: '',
    status: 'active',
    output_count: 0,
    cover_output_id: null,
    published_at: null,
    is_custodial: false,
    custodied_for: null,
    token_id: null,
    mint_tx_hash: null,
    mint_recipient: null,
    mint_status: null,
    minted_at: null,
    metadata_uri: null,
    current_owner: null,
    last_transfer_at: null,
    created_at: at,
    updated_at: at,
    ...fields,
  };
}

export const OPERATOR = { kind: 'service', userId: null } as const;
export const ALICE = { kind: 'user', userId: 'alice' } as const;
export const BOB = { kind: 'user', userId: 'bob' } as const;
