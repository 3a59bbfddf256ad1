/**
 * Minted tokens (decks with a token id, docs/api/nft.md §2.5): the SQL of the mint path, the public
 * metadata read, the crash repair's and the MetadataUpdate emitter's candidates. Rows only: the
 * responses are shaped in http/present/minting.ts.
 */
import { and, asc, desc, eq, isNotNull, isNull, or, sql } from 'drizzle-orm';
import { firstRow, rows, type Db, type Executor } from './client.ts';
import { recordWebhookEvent } from './webhooks.ts';
import { collections, decks, jobs, outputs, userIdentities, users } from './schema/index.ts';
import { notFound } from '../domain/errors.ts';
import { UUID_RE } from '../domain/ids.ts';
import { tokenDeckName } from '../domain/deck-name.ts';

/** tokens_minted follows the chain: ids are sequential from 1, so the highest id minted is the count. */
export async function recordMinted(db: Db, collectionId: string, highestTokenId: number) {
  await db
    .update(collections)
    .set({ tokens_minted: sql`greatest(${collections.tokens_minted}, ${highestTokenId})`, updated_at: sql`now()` })
    .where(eq(collections.id, collectionId));
}

export async function findTokenDeck(db: Db, collectionId: string, tokenId: number) {
  const [row] = await db
    .select()
    .from(decks)
    .where(and(eq(decks.collection_id, collectionId), eq(decks.token_id, tokenId)));
  return row;
}

/** A deck for a minted token without artwork yet (design-stage mint, backend mint without outputId). */
export async function createMintedDeck(
  db: Db,
  m: {
    collectionId: string;
    title: string;
    tokenId: number;
    txHash: string;
    recipient: string;
    metadataUri: string;
    userId: string | null;
  },
) {
  // The deck and its `token.minted` webhook event commit together (docs/webhooks.md "Outbox").
  const row = await db.transaction(async (t) => {
    const [inserted] = await t
      .insert(decks)
      .values({
        collection_id: m.collectionId,
        user_id: m.userId,
        name: tokenDeckName(m.title, m.tokenId),
        token_id: m.tokenId,
        mint_tx_hash: m.txHash,
        mint_recipient: m.recipient,
        mint_status: 'minted',
        minted_at: new Date(),
        metadata_uri: m.metadataUri,
      })
      .onConflictDoNothing()
      .returning();
    if (inserted) await recordTokenMinted(t, m.collectionId, { ...m, deckId: inserted.id });
    return inserted;
  });
  return row ?? (await findTokenDeck(db, m.collectionId, m.tokenId))!;
}

/** The `token.minted` event of one token (once per collection and token id, whatever retries). */
async function recordTokenMinted(
  t: Executor,
  collectionId: string,
  m: { tokenId: number; txHash: string; recipient: string; metadataUri: string; deckId: string },
) {
  const c = await firstRow<{ user_id: string | null; chain_id: number | null; contract_address: string | null }>(
    t,
    sql`SELECT user_id, chain_id, contract_address FROM collections WHERE id = ${collectionId}`,
  );
  await recordWebhookEvent(t, {
    key: `token.minted:${collectionId}:${m.tokenId}:${m.txHash.toLowerCase()}`,
    type: 'token.minted',
    ownerId: c?.user_id ?? null,
    payload: {
      collection_id: collectionId,
      chain_id: c?.chain_id ?? null,
      contract_address: c?.contract_address ?? null,
      token_id: m.tokenId,
      deck_id: m.deckId,
      recipient: m.recipient,
      tx_hash: m.txHash,
      metadata_uri: m.metadataUri,
    },
  });
}

/**
 * Writes a token's mint state onto an existing deck. A deck that already holds another token is never rewritten (its token
 * would lose its document): false then, and the caller gives the token a deck of its own.
 */
export async function setMintState(
  db: Db,
  deckId: string,
  m: { tokenId: number; txHash: string; recipient: string; metadataUri: string },
): Promise<boolean> {
  return db.transaction(async (t) => {
    const updated = await t
      .update(decks)
      .set({
        token_id: m.tokenId,
        mint_tx_hash: m.txHash,
        mint_recipient: m.recipient,
        mint_status: 'minted',
        minted_at: sql`now()`,
        metadata_uri: m.metadataUri,
        updated_at: sql`now()`,
      })
      .where(and(eq(decks.id, deckId), or(isNull(decks.token_id), eq(decks.token_id, m.tokenId))))
      .returning({ id: decks.id, collection_id: decks.collection_id });
    if (updated[0]) await recordTokenMinted(t, updated[0].collection_id, { ...m, deckId });
    return updated.length > 0;
  });
}

/** The output becomes the token's artwork: the deck's cover, carrying token_metadata. */
export async function linkCover(db: Db, deckId: string, outputId: string, tokenMetadata: (traits: unknown) => Record<string, unknown>) {
  const [o] = await db.select({ input_metadata: outputs.input_metadata }).from(outputs).where(eq(outputs.id, outputId));
  const traits = (o?.input_metadata as { traits?: unknown } | null)?.traits ?? [];
  await db
    .update(outputs)
    // The artwork may have completed before the link (a fast renderer): keep its image then.
    .set({
      token_metadata: sql`${JSON.stringify(tokenMetadata(traits))}::jsonb || case when ${outputs.status} = 'completed' and ${outputs.url} is not null
        then jsonb_build_object('image', ${outputs.url}) else '{}'::jsonb end`,
      updated_at: sql`now()`,
    })
    .where(eq(outputs.id, outputId));
  await db.update(decks).set({ cover_output_id: outputId, updated_at: sql`now()` }).where(eq(decks.id, deckId));
}

export type DeckRow = typeof decks.$inferSelect;

/** The minted tokens (decks with a token id) of a collection, by token id. */
export async function listMints(db: Db, collectionId: string): Promise<DeckRow[]> {
  return db
    .select()
    .from(decks)
    .where(and(eq(decks.collection_id, collectionId), isNotNull(decks.token_id)))
    .orderBy(asc(decks.token_id));
}

/** A deck with its artwork (the cover output, else its newest output) and that output's job. */
export async function deckWithArtwork(db: Db, deckId: string) {
  const [deck] = await db.select().from(decks).where(eq(decks.id, deckId));
  if (!deck) throw notFound(`deck ${deckId}`);
  const [output] = deck.cover_output_id
    ? await db.select().from(outputs).where(eq(outputs.id, deck.cover_output_id))
    : await db.select().from(outputs).where(eq(outputs.deck_id, deckId)).orderBy(desc(outputs.created_at)).limit(1);
  const [job] = output?.job_id ? await db.select().from(jobs).where(eq(jobs.id, output.job_id)) : [];
  return { deck, output, job };
}

/**
 * The public token documents' one indexed query: minted tokens of one collection with their
 * collection and cover output, for a list of token ids (`token_id = any(…)` on the
 * (collection_id, token_id) index, in the generic plan too). Prepared once per database: a
 * marketplace crawling a collection hits it for every token, and building the query per request
 * cost more CPU than running it (docs/minting.md "Bench"). The metadata service batches the
 * reads of one event-loop turn into one call.
 */
function prepareTokensForMetadata(db: Db) {
  return db
    .select({
      token_id: decks.token_id,
      collection: {
        id: collections.id,
        title: collections.title,
        description: collections.description,
        cover_image_url: collections.cover_image_url,
        // Exact counts: a token's document says `revealed` (docs/fairness.md "Exact counts").
        exact: sql<boolean>`coalesce((${collections.data}->>'distribution') = 'exact', false)`,
      },
      /** Set once the metadata is frozen on chain: the document is the bundle's (docs/permanence.md). */
      frozen_root_cid: collections.frozen_root_cid,
      output: {
        id: outputs.id,
        status: outputs.status,
        url: outputs.url,
        token_metadata: outputs.token_metadata,
        input_metadata: outputs.input_metadata,
      },
    })
    .from(decks)
    .innerJoin(collections, eq(collections.id, decks.collection_id))
    .leftJoin(outputs, eq(outputs.id, decks.cover_output_id))
    .where(
      and(
        eq(decks.collection_id, sql.placeholder('collectionId')),
        sql`${decks.token_id} = any(${sql.placeholder('tokenIds')}::bigint[])`,
        isNotNull(decks.mint_status),
      ),
    )
    .prepare('tokens_for_metadata');
}

const preparedTokensForMetadata = new WeakMap<Db, ReturnType<typeof prepareTokensForMetadata>>();

/** Minted tokens of a collection with their collection and cover output (public metadata); absent ids are left out. */
export async function tokensForMetadata(db: Db, collectionId: string, tokenIds: number[]) {
  let query = preparedTokensForMetadata.get(db);
  if (!query) {
    query = prepareTokensForMetadata(db);
    preparedTokensForMetadata.set(db, query);
  }
  const found = await query.execute({ collectionId, tokenIds });
  return found.map((r) => ({ ...r, token_id: Number(r.token_id) }));
}

const TRANSFER_TOPIC = '0xddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef';
const ZERO_TOPIC = `0x${'0'.repeat(64)}`;

/** A mined mint transaction and the collection it minted on. */
export interface MintTransaction {
  hash: string;
  receipt: unknown;
  to_address: string;
  collection_id: string;
  title: string;
}

/**
 * Mined `mint` transactions (updated between `lookbackS` and `graceS` seconds ago) whose stored
 * receipt has more Transfer-from-0x0 logs of the collection than there are decks carrying the hash.
 */
export async function mintsMissingDecks(db: Db, graceS: number, lookbackS: number, limit = 100): Promise<MintTransaction[]> {
  return rows<MintTransaction>(
    db,
    sql`
    select t.hash, t.receipt, t.to_address, c.id as collection_id, c.title
    from chain_transactions t
    join collections c on c.chain_id = t.chain_id and lower(c.contract_address) = lower(t.to_address)
    where t.purpose = 'mint' and t.status = 'mined' and t.receipt is not null
      and t.updated_at < now() - make_interval(secs => ${graceS})
      and t.updated_at > now() - make_interval(secs => ${lookbackS})
      and (select count(*) from decks d where d.collection_id = c.id and lower(d.mint_tx_hash) = lower(t.hash))
        < (select count(*) from jsonb_array_elements(t.receipt->'logs') l
           where lower(l->>'address') = lower(t.to_address)
             and l->'topics'->>0 = ${TRANSFER_TOPIC} and l->'topics'->>1 = ${ZERO_TOPIC})
    order by t.updated_at
    limit ${limit}`,
  );
}

/** A minted token whose artwork completed and whose MetadataUpdate was not sent yet. */
export interface PendingMetadataUpdate {
  output_id: string;
  token_id: number;
  contract_address: string;
  chain_id: number;
}

/**
 * Minted decks whose cover output completed in the last 7 days and that have no chain transaction
 * with the idempotency key `<keyPrefix><outputId>` yet, oldest first.
 */
export async function pendingMetadataUpdates(db: Db, keyPrefix: string, limit: number): Promise<PendingMetadataUpdate[]> {
  const found = await rows<PendingMetadataUpdate>(
    db,
    sql`
    select o.id as output_id, d.token_id, c.contract_address, c.chain_id
    from decks d
    join outputs o on o.id = d.cover_output_id
    join collections c on c.id = d.collection_id
    where d.mint_status = 'minted' and d.token_id is not null and o.status = 'completed'
      and c.contract_address is not null and c.chain_id is not null
      -- a frozen contract's documents are final (docs/permanence.md "Freezing"): no update to signal
      and c.frozen_at is null
      and o.completed_at > now() - interval '7 days'
      and not exists (select 1 from chain_transactions t where t.idempotency_key = ${keyPrefix} || o.id::text)
      -- an exact collection's reveal is one BatchMetadataUpdate (docs/fairness.md "Exact counts")
      and not exists (select 1 from exact_decks x where x.collection_id = c.id)
    order by o.completed_at
    limit ${limit}`,
  );
  return found.map((r) => ({ ...r, token_id: Number(r.token_id), chain_id: Number(r.chain_id) }));
}

/** The profile picture of a user id (users.avatar_url), when the id is an internal user. */
export async function avatarOfUser(db: Db, userId: string | null | undefined): Promise<string | null> {
  if (!userId || !UUID_RE.test(userId)) return null;
  const [u] = await db.select({ avatar_url: users.avatar_url }).from(users).where(eq(users.id, userId));
  return u?.avatar_url ?? null;
}

/** The profile picture of the user holding a wallet identity (provider `wallet`, provider_user_id = address). */
export async function avatarOfWallet(db: Db, address: string): Promise<string | null> {
  const [u] = await db
    .select({ avatar_url: users.avatar_url })
    .from(userIdentities)
    .innerJoin(users, eq(users.id, userIdentities.user_id))
    .where(and(eq(userIdentities.provider, 'wallet'), sql`lower(${userIdentities.provider_user_id}) = ${address.toLowerCase()}`))
    .limit(1);
  return u?.avatar_url ?? null;
}

/**
 * A reorg took a mined mint off the chain and the tx sender re-sent it (tx/restore.ts): its row is
 * back to `sent`, or already mined again in another block, where the chain may have given it other
 * token ids (another mint took the old ones first). Decks carrying its hash whose token id the
 * transaction does not hold (now) are no longer minted: the id is freed and the deck `pending`
 * until the re-sent transaction is mined (`remintedDecks`) or can never land
 * (`releaseDecksOfUnlandedMints`); hash and recipient stay. Mints mined in the last `lookbackS`
 * seconds (default an hour: a reorg follows its block within minutes) are compared. Collections
 * whose count changed get `tokens_minted` from the decks again. The decks' ids.
 */
export async function unmintDecksOfReorgedMints(db: Db, lookbackS = 3600): Promise<string[]> {
  const unminted = await rows<{ id: string; collection_id: string }>(
    db,
    sql`
    update decks d
    set token_id = null, mint_status = 'pending', minted_at = null, metadata_uri = null, updated_at = now()
    from chain_transactions t
    where t.purpose = 'mint' and t.hash is not null
      and d.mint_tx_hash is not null and lower(d.mint_tx_hash) = lower(t.hash) and d.token_id is not null
      and (t.status in ('signed', 'sent')
        or (t.status = 'mined' and t.receipt is not null
          and t.updated_at > now() - make_interval(secs => ${lookbackS})
          and not exists (
            select 1 from jsonb_array_elements(t.receipt->'logs') l
            where lower(l->>'address') = lower(t.to_address)
              and l->'topics'->>0 = ${TRANSFER_TOPIC} and l->'topics'->>1 = ${ZERO_TOPIC}
              and lower(l->'topics'->>3) = '0x' || lpad(to_hex(d.token_id), 64, '0'))))
    returning d.id, d.collection_id`,
  );
  for (const collectionId of new Set(unminted.map((r) => r.collection_id))) {
    await db.execute(sql`
      update collections c
      set tokens_minted = coalesce((select max(d.token_id) from decks d where d.collection_id = c.id), 0), updated_at = now()
      where c.id = ${collectionId}`);
  }
  return unminted.map((r) => r.id);
}

/** A mined mint with decks left `pending` by a reorg: the decks, oldest first, get the receipt's tokens. */
export interface RemintedMint extends MintTransaction {
  deck_ids: string[];
}

export function remintedDecks(db: Db, limit = 100): Promise<RemintedMint[]> {
  return rows<RemintedMint>(
    db,
    sql`
    select t.hash, t.receipt, t.to_address, c.id as collection_id, c.title,
           array_agg(d.id order by d.created_at, d.id) as deck_ids
    from chain_transactions t
    join collections c on c.chain_id = t.chain_id and lower(c.contract_address) = lower(t.to_address)
    join decks d on d.collection_id = c.id and lower(d.mint_tx_hash) = lower(t.hash)
    where t.purpose = 'mint' and t.status = 'mined' and t.receipt is not null
      and d.token_id is null and d.mint_status = 'pending'
    group by t.hash, t.receipt, t.to_address, c.id, c.title
    limit ${limit}`,
  );
}

/**
 * Decks whose mint transaction can never land (the chain lost it and it was dropped, or it
 * failed) are released: their token id and mint state cleared, so the deck no longer claims a
 * token the chain does not have (docs/minting.md "Crash repair", "Reorgs"). The collection's `tokens_minted` then follows
 * the highest token id still held by a deck. Returns the released deck ids.
 */
export async function releaseDecksOfUnlandedMints(db: Db): Promise<string[]> {
  const released = await rows<{ id: string; collection_id: string }>(
    db,
    sql`
    update decks d
    set token_id = null, mint_tx_hash = null, mint_recipient = null, mint_status = null, minted_at = null,
        metadata_uri = null, updated_at = now()
    from chain_transactions t
    where t.purpose = 'mint' and t.status in ('dropped', 'failed', 'reverted') and t.hash is not null
      and d.mint_tx_hash is not null and lower(d.mint_tx_hash) = lower(t.hash)
      and not exists (
        select 1 from chain_transactions m
        where m.status in ('signed', 'sent', 'mined') and lower(m.hash) = lower(t.hash))
    returning d.id, d.collection_id`,
  );
  for (const collectionId of new Set(released.map((r) => r.collection_id))) {
    await db.execute(sql`
      update collections c
      set tokens_minted = coalesce((select max(d.token_id) from decks d where d.collection_id = c.id), 0), updated_at = now()
      where c.id = ${collectionId}`);
  }
  return released.map((r) => r.id);
}
