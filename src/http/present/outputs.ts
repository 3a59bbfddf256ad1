/** Outputs as the API shows them (docs/api/content.md §2.1, §4.1). */
import type { OutputDetail, OutputRow, listCollectionOutputs } from '../../db/outputs.ts';
import { iso } from '../../domain/time.ts';

export function presentOutput(row: OutputRow) {
  return {
    id: row.id,
    collection_id: row.collection_id,
    deck_id: row.deck_id,
    job_id: row.job_id,
    user_id: row.user_id,
    status: row.status,
    source: row.source,
    url: row.url,
    mime_type: row.mime_type,
    thumbnail_url: row.thumbnail_url,
    flat_file_id: row.flat_file_id,
    input_metadata: (row.input_metadata ?? null) as Record<string, unknown> | null,
    output_metadata: (row.output_metadata ?? null) as Record<string, unknown> | null,
    error_message: row.error_message,
    is_custodial: row.is_custodial,
    custodied_for: row.custodied_for,
    parent_output_id: row.parent_output_id,
    token_metadata: (row.token_metadata ?? null) as Record<string, unknown> | null,
    created_at: iso(row.created_at)!,
    completed_at: iso(row.completed_at),
  };
}

export const presentOutputDetail = (d: OutputDetail) => ({ ...presentOutput(d.output), deck: d.deck, collection: d.collection });

export const presentCompletion = (row: OutputRow) => ({
  id: row.id,
  status: row.status,
  url: row.url,
  mime_type: row.mime_type,
  thumbnail_url: row.thumbnail_url,
  completed_at: iso(row.completed_at),
});

type ListRow = Awaited<ReturnType<typeof listCollectionOutputs>>[number];

export const presentOutputListItem = ({ output: o, deck }: ListRow) => ({
  id: o.id,
  url: o.url,
  status: o.status,
  mime_type: o.mime_type,
  thumbnail_url: o.thumbnail_url,
  deck_id: o.deck_id,
  deck,
  created_at: iso(o.created_at)!,
  completed_at: iso(o.completed_at),
});
