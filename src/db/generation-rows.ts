/**
 * The rows one generation starts with: the deck (new, or +1 on a given one), the pending output,
 * the job, its "job created" history entry and step 0's row, in ONE statement (data-modifying
 * CTEs): one round trip, and all of it or none of it. A given deck that is locked (or of another
 * collection) matches nothing, so nothing is inserted. With a mint state the output is the token's
 * artwork: the deck's cover, carrying the token's ERC-721 document (nft-service.md §4.2 step 6).
 */
import { sql } from 'drizzle-orm';
import { firstRow, type Db } from './client.ts';
import { isUniqueViolation } from './errors.ts';

/** A minted token's fields on its deck (the mint path only). */
export interface DeckMintFields {
  token_id: number;
  tx_hash?: string;
  recipient?: string;
  metadata_uri?: string;
}

export interface GenerationRows {
  jobId: string;
  outputId: string;
  /** Existing deck (the output joins it unless it is locked), or null for `newDeck`. */
  deckId: string | null;
  newDeck: { id: string; name: string; userId: string | null; custodiedFor: string | null };
  mintState?: DeckMintFields;
  outputCollectionId: string;
  output: {
    userId: string | null;
    source: string;
    inputMetadata: Record<string, unknown>;
    custodiedFor: string | null;
    parentOutputId: string | null;
    /** A minted token's ERC-721 document (with mintState): the output is the token's artwork. */
    tokenMetadata?: Record<string, unknown> | null;
  };
  job: {
    name: string;
    description: string;
    jobType: string;
    priority: number;
    workflowId: string;
    data: unknown;
    userId: string | null;
    collectionId: string;
  };
  step0: { stepName: string; stepType: string; queueJobId: string; input: unknown };
}

/** The deck the output joined, or why nothing was inserted. */
export type GenerationRowsResult = { deckId: string } | { refused: 'deck_unavailable' | 'token_taken' };

export async function insertGenerationRows(db: Db, r: GenerationRows): Promise<GenerationRowsResult> {
  const m = r.mintState;
  const mint = m
    ? sql`${m.token_id}::bigint, ${m.tx_hash ?? null}::varchar, ${m.recipient ?? null}::varchar, 'minted', now(), ${m.metadata_uri ?? null}::text`
    : sql`null::bigint, null::varchar, null::varchar, null::varchar, null::timestamptz, null::text`;
  const deck = r.deckId
    ? sql`update decks set output_count = output_count + 1, updated_at = now()
          ${m ? sql`, token_id = ${m.token_id}, mint_tx_hash = ${m.tx_hash ?? null}, mint_recipient = ${m.recipient ?? null}, mint_status = 'minted', minted_at = now(), metadata_uri = ${m.metadata_uri ?? null}, cover_output_id = ${r.outputId}::uuid` : sql``}
          where id = ${r.deckId} and collection_id = ${r.outputCollectionId} and status <> 'locked'
          returning id`
    : sql`insert into decks (id, collection_id, user_id, name, description, output_count, is_custodial, custodied_for,
            token_id, mint_tx_hash, mint_recipient, mint_status, minted_at, metadata_uri, cover_output_id)
          values (${r.newDeck.id}::uuid, ${r.outputCollectionId}, ${r.newDeck.userId}, ${r.newDeck.name.slice(0, 200)}, '', 1, ${r.newDeck.custodiedFor !== null},
            ${r.newDeck.custodiedFor}::uuid, ${mint}, ${m ? r.outputId : null}::uuid)
          returning id`;
  const o = r.output;
  const j = r.job;
  try {
    const row = await firstRow<{ deck_id: string }>(
      db,
      sql`
      with d as (${deck}),
      o as (
        insert into outputs (id, collection_id, deck_id, job_id, user_id, source, input_metadata, is_custodial, custodied_for, parent_output_id, token_metadata)
        select ${r.outputId}::uuid, ${r.outputCollectionId}::uuid, d.id, ${r.jobId}, ${o.userId}, ${o.source}, ${JSON.stringify(o.inputMetadata)}::jsonb,
          ${o.custodiedFor !== null}::boolean, ${o.custodiedFor}::uuid, ${o.parentOutputId}::uuid,
          ${o.tokenMetadata ? JSON.stringify(o.tokenMetadata) : null}::jsonb
        from d
        returning id),
      j as (
        insert into jobs (id, name, description, status, progress, job_type, priority, workflow_id, data, user_id, collection_id, output_id)
        select ${r.jobId}, ${j.name.slice(0, 200)}, ${j.description}, 'pending', 0, ${j.jobType}, ${j.priority}::int, ${j.workflowId},
          ${JSON.stringify(j.data)}::jsonb, ${j.userId}, ${j.collectionId}::uuid, o.id
        from o
        returning id),
      h as (insert into job_history (job_id, status, message, progress) select id, 'pending', 'job created', 0 from j),
      s as (
        insert into job_steps (job_id, step_name, step_type, step_order, retry_attempt, status, input_data, queue_job_id)
        select id, ${r.step0.stepName.slice(0, 100)}, ${r.step0.stepType.slice(0, 50)}, 0, 0, 'pending', ${JSON.stringify(r.step0.input)}::jsonb,
          ${r.step0.queueJobId}
        from j)
      select d.id as deck_id from d join j on true`,
    );
    return row ? { deckId: row.deck_id } : { refused: 'deck_unavailable' };
  } catch (err) {
    if (m && isUniqueViolation(err, 'decks_collection_token')) return { refused: 'token_taken' };
    throw err;
  }
}
