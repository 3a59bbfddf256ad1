/** The one presentation of a collection record, used by both apps (schema: http/schemas/collections.ts). */
import type { CollectionRow } from '../../db/collections.ts';
import { chainName } from '../../domain/chain-names.ts';
import { deriveContractParams } from '../../domain/contract-params.ts';
import { mintPriceOf, type MintAccess } from '../../domain/mint-policy.ts';
import type { GenerationData, Variable } from '../../domain/generation-data.ts';
import type { GeneratedCollection } from '../../generation/concept/index.ts';

/** Generation data as the loose record the schemas document (they pass every field through). */
type DataRecord = { version: string; [field: string]: unknown };
const dataRecord = (data: unknown) => data as DataRecord;

export function presentCollection(row: CollectionRow) {
  return {
    id: row.id,
    title: row.title,
    description: row.description,
    editions: row.editions,
    price: row.price,
    blockchain: row.blockchain,
    data: dataRecord(row.data),
    project_id: row.project_id,
    user_id: row.user_id,
    social_org: row.social_org,
    social_identifier: row.social_identifier,
    is_custodial: row.is_custodial,
    custodied_for: row.custodied_for,
    status: row.status,
    cover_image_url: row.cover_image_url,
    contract_address: row.contract_address,
    chain_id: row.chain_id,
    chain_name: row.chain_id === null ? null : chainName(row.chain_id),
    is_global: row.is_global,
    deploy_tx_hash: row.deploy_tx_hash,
    base_token_uri: row.base_token_uri,
    mint_status: row.mint_status,
    deployed: row.contract_address !== null,
    max_supply: row.max_supply,
    tokens_minted: row.tokens_minted,
    royalty_bps: row.royalty_bps,
    royalty_receiver: row.royalty_receiver,
    mint_policy: {
      access: row.mint_access as MintAccess,
      price: mintPriceOf(row).toString(),
      mint_price: row.mint_price,
      payout_address: row.payout_address,
      max_per_wallet: row.max_per_wallet,
      allowlist: row.mint_allowlist,
      merkle_root: row.mint_merkle_root,
      start: row.mint_start?.toISOString() ?? null,
      end: row.mint_end?.toISOString() ?? null,
    },
    created_at: row.created_at.toISOString(),
    updated_at: row.updated_at.toISOString(),
  };
}

export type CollectionView = ReturnType<typeof presentCollection>;

export function collectionWithParams(row: CollectionRow, metadataBaseUrl: string) {
  return { collection: presentCollection(row), contractParams: deriveContractParams(row, metadataBaseUrl) };
}

/** A definition generated from a concept (§4.1.1). */
export function presentGenerated(g: GeneratedCollection) {
  return {
    ...g,
    variables: g.variables as Array<Variable & { [field: string]: unknown }>,
    data: dataRecord(g.data satisfies GenerationData),
  };
}
