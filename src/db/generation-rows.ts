/**
 * The rows one generation starts with: the deck (new, or +1 on a given one), the pending output,
 * the job, its "job created" history entry and step 0's row (jobs of several steps only: a one-step
 * job is its own step, docs/jobs.md "One-step jobs"), in ONE statement (data-modifying
 * CTEs): one round trip, and all of it or none of it. The same statement:
 * - checks that the collection and the workflow the job was built from are still the versions the
 *   caller read (a digest of the fields a job is built from, `collectionVersionSql`,
 *   `workflowVersionSql`), so a caller may build the job from a cached copy and learns when the
 *   copy is stale; nothing is written then;
 * - debits a charged user's credits (creating the balance row with its starting grant the first
 *   time); without enough credits nothing is written. A failed statement debits nothing.
 * A given deck that is locked (or of another collection) matches nothing, so nothing is inserted.
 * With a mint state the output is the token's artwork: the deck's cover, carrying the token's
 * ERC-721 document (docs/api/nft.md §4.2 step 6).
 */
import { createHash } from 'node:crypto';
import { webhookMessageId } from '../domain/standard-webhooks.ts';
import type { Db } from './client.ts';
import { collectionVersionSql } from './collections.ts';
import { isUniqueViolation } from './errors.ts';
import { firstOf, statementBuilder } from './prepared.ts';
import { workflowVersionSql } from './workflows.ts';

/** A minted token's fields on its deck (the mint path only). */
export interface DeckMintFields {
  token_id: number;
  tx_hash?: string;
  recipient?: string;
  metadata_uri?: string;
}

/** A row and the version the caller read it at. */
export interface RowVersion {
  id: string;
  version: string;
}

export interface GenerationRows {
  jobId: string;
  outputId: string;
  /** Existing deck (the output joins it unless it is locked), or null for `newDeck`. */
  deckId: string | null;
  newDeck: { id: string; name: string; userId: string | null; custodiedFor: string | null };
  mintState?: DeckMintFields;
  outputCollectionId: string;
  /** The versions the job's data was built from: nothing is written unless both are current. */
  built: { collection: RowVersion; workflow: RowVersion };
  /** A charged user's debit, made by the same statement (none for the operator). */
  charge?: { userId: string; amount: number; initialGrant: number };
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
  /** Step 0's row; none for a one-step job (the job is its step). */
  step0?: { stepName: string; stepType: string; queueJobId: string; input: unknown };
}

/** The deck the output joined, or why nothing was inserted. */
export type GenerationRowsResult =
  | { deckId: string }
  /** `debited`: the charge was taken although the deck refused (a deck locked meanwhile): refund it. */
  | { refused: 'deck_unavailable' | 'token_taken'; debited?: boolean }
  /** The collection or the workflow changed since it was read: read them again. */
  | { stale: true }
  | { insufficient: { balance: number } };

interface ResultRow {
  deck_id: string | null;
  fresh: boolean;
  debited: boolean | null;
  balance: number | null;
  /** With a given deck and a charge: whether the deck could take the output. */
  deck_open?: boolean;
}

/**
 * The statement's text depends only on the variant (given deck or new, mint state or not, charged
 * or not), so each variant is one named statement, planned once per connection.
 */
function statement(r: GenerationRows) {
  const b = statementBuilder();
  const { p } = b;
  const m = r.mintState;
  const variant = `generation_rows_${r.deckId ? 'deck' : 'new'}${m ? '_mint' : ''}${r.charge ? '_charged' : ''}${r.step0 ? '_step0' : ''}`;
  const outputId = p(r.outputId);
  const outputCollection = p(r.outputCollectionId);
  const fresh = `exists (select 1 from collections c where c.id = ${p(r.built.collection.id)}::uuid and ${collectionVersionSql('c')} = ${p(r.built.collection.version)}::text)
      and exists (select 1 from workflows w where w.id = ${p(r.built.workflow.id)}::uuid and ${workflowVersionSql('w')} = ${p(r.built.workflow.version)}::text)`;
  const deckId = r.deckId ? p(r.deckId) : null;
  let charge = '';
  let gate = 'g';
  let result = 'null::boolean as debited, null::int as balance, null::boolean as deck_open';
  if (r.charge) {
    const user = p(r.charge.userId);
    const amount = p(r.charge.amount);
    const grant = p(r.charge.initialGrant);
    // A given deck that cannot take the output is checked before the debit: no debit for a refusal.
    const deckOpen = deckId
      ? `exists (select 1 from decks where id = ${deckId}::uuid and collection_id = ${outputCollection}::uuid and status <> 'locked')`
      : 'true';
    // Insert-or-debit: a new user's row starts at the grant minus this generation; an existing
    // row is debited only while it covers the amount (concurrent debits serialize on the row).
    charge = `,
    c as (
      insert into credit_balances (user_id, balance, updated_at)
      select ${user}::text, ${grant}::int - ${amount}::int, now() from g
      where ${deckOpen} and (${grant}::int >= ${amount}::int or exists (select 1 from credit_balances where user_id = ${user}::text))
      on conflict (user_id) do update set balance = credit_balances.balance - ${amount}::int, updated_at = now()
        where credit_balances.balance >= ${amount}::int
      returning balance)`;
    gate = 'c';
    result = `exists (select 1 from c) as debited,
      coalesce((select balance from credit_balances where user_id = ${user}::text), ${grant}::int) as balance, ${deckOpen} as deck_open`;
  }
  const mintSet =
    m && r.deckId
      ? `, token_id = ${p(m.token_id)}::bigint, mint_tx_hash = ${p(m.tx_hash ?? null)}::varchar, mint_recipient = ${p(m.recipient ?? null)}::varchar,
        mint_status = 'minted', minted_at = now(), metadata_uri = ${p(m.metadata_uri ?? null)}::text, cover_output_id = ${outputId}::uuid`
      : '';
  const deck = r.deckId
    ? `update decks set output_count = output_count + 1, updated_at = now()${mintSet}
        where id = ${deckId}::uuid and collection_id = ${outputCollection}::uuid and status <> 'locked' and exists (select 1 from ${gate})
        returning id`
    : `insert into decks (id, collection_id, user_id, name, description, output_count, is_custodial, custodied_for${
        m ? ', token_id, mint_tx_hash, mint_recipient, mint_status, minted_at, metadata_uri, cover_output_id' : ''
      })
        select ${p(r.newDeck.id)}::uuid, ${outputCollection}::uuid, ${p(r.newDeck.userId)}::text, ${p(r.newDeck.name.slice(0, 200))}::varchar, '', 1,
          ${p(r.newDeck.custodiedFor !== null)}::boolean, ${p(r.newDeck.custodiedFor)}::uuid${
            m
              ? `, ${p(m.token_id)}::bigint, ${p(m.tx_hash ?? null)}::varchar, ${p(m.recipient ?? null)}::varchar, 'minted', now(),
          ${p(m.metadata_uri ?? null)}::text, ${outputId}::uuid`
              : ''
          }
        from ${gate}
        returning id`;
  const o = r.output;
  const j = r.job;
  const jobId = p(r.jobId);
  const text = `
    with g as (select 1 where ${fresh})${charge},
    d as (${deck}),
    o as (
      insert into outputs (id, collection_id, deck_id, job_id, user_id, source, input_metadata, is_custodial, custodied_for, parent_output_id, token_metadata)
      select ${outputId}::uuid, ${outputCollection}::uuid, d.id, ${jobId}::text, ${p(o.userId)}::text, ${p(o.source)}::varchar,
        ${p(JSON.stringify(o.inputMetadata))}::jsonb, ${p(o.custodiedFor !== null)}::boolean, ${p(o.custodiedFor)}::uuid,
        ${p(o.parentOutputId)}::uuid, ${p(o.tokenMetadata ? JSON.stringify(o.tokenMetadata) : null)}::jsonb
      from d
      returning id),
    j as (
      insert into jobs (id, name, description, status, progress, job_type, priority, workflow_id, data, user_id, collection_id, output_id)
      select ${jobId}::text, ${p(j.name.slice(0, 200))}::varchar, ${p(j.description)}::text, 'pending', 0, ${p(j.jobType)}::varchar,
        ${p(j.priority)}::int, ${p(j.workflowId)}::text, ${p(JSON.stringify(j.data))}::jsonb, ${p(j.userId)}::text,
        ${p(j.collectionId)}::uuid, o.id
      from o
      returning id),
    h as (insert into job_history (job_id, status, message, progress) select id, 'pending', 'job created', 0 from j)${
      r.step0
        ? `,
    s as (
      insert into job_steps (job_id, step_name, step_type, step_order, retry_attempt, status, input_data, queue_job_id)
      select id, ${p(r.step0.stepName.slice(0, 100))}::varchar, ${p(r.step0.stepType.slice(0, 50))}::varchar, 0, 0, 'pending',
        ${p(JSON.stringify(r.step0.input))}::jsonb, ${p(r.step0.queueJobId)}::text
      from j)`
        : ''
    }${m ? tokenMintedOutbox(p, r.built.collection.id, m) : ''}
    select (select id::text from d) as deck_id, exists (select 1 from g) as fresh, ${result}`;
  return { statement: { name: variant, text }, values: b.values };
}

/**
 * The `token.minted` webhook event of a token minted with its artwork job, in the same statement
 * as its deck (the outbox, docs/webhooks.md): the same event as db/minting.ts writes, keyed alike.
 */
function tokenMintedOutbox(p: (v: unknown) => string, collectionId: string, m: DeckMintFields): string {
  const key = `token.minted:${collectionId}:${m.token_id}:${String(m.tx_hash ?? '').toLowerCase()}`;
  const id = webhookMessageId(createHash('sha256').update(key).digest('hex'));
  return `,
    we as (
      insert into webhook_events (id, type, owner_id, payload)
      select ${p(id)}::text, 'token.minted', c.user_id, jsonb_build_object('type', 'token.minted', 'timestamp', now(), 'data', jsonb_build_object(
        'collection_id', c.id, 'chain_id', c.chain_id, 'contract_address', c.contract_address, 'token_id', ${p(m.token_id)}::bigint,
        'deck_id', d.id, 'recipient', ${p(m.recipient ?? null)}::text, 'tx_hash', ${p(m.tx_hash ?? null)}::text, 'metadata_uri', ${p(m.metadata_uri ?? null)}::text))
      from d, collections c where c.id = ${p(collectionId)}::uuid
      on conflict do nothing
      returning id, owner_id),
    wd as (
      insert into webhook_deliveries (subscription_id, event_id)
      select s.id, we.id from we, webhook_subscriptions s
      where s.enabled and 'token.minted' = any(s.events) and (s.owner_id is null or s.owner_id = we.owner_id)
      on conflict do nothing)`;
}

export async function insertGenerationRows(db: Db, r: GenerationRows): Promise<GenerationRowsResult> {
  const { statement: s, values } = statement(r);
  let row: ResultRow | undefined;
  try {
    row = await firstOf<ResultRow>(db, s, values);
  } catch (err) {
    if (r.mintState && isUniqueViolation(err, 'decks_collection_token')) return { refused: 'token_taken' };
    throw err;
  }
  if (!row?.fresh) return { stale: true };
  if (row.deck_id) return { deckId: row.deck_id };
  if (r.charge && !row.debited) {
    // Either a given deck refused (checked before the debit) or the balance is short.
    if (r.deckId && !row.deck_open) return { refused: 'deck_unavailable' };
    return { insufficient: { balance: Number(row.balance ?? 0) } };
  }
  return { refused: 'deck_unavailable', ...(r.charge ? { debited: true } : {}) };
}
