/** Token (deck) queries of the minting routes (nft-service.md §2.5, §4.2, §4.3). */
import { and, asc, desc, eq, isNotNull, sql } from 'drizzle-orm';
import type { Db } from './client.ts';
import { collections, decks, jobs, outputs, userIdentities, users } from './schema/index.ts';
import { notFound } from '../domain/errors.ts';

const iso = (d: Date | null) => (d ? d.toISOString() : null);
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

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
  const [row] = await db
    .insert(decks)
    .values({
      collection_id: m.collectionId,
      user_id: m.userId,
      name: `${m.title} #${m.tokenId}`,
      token_id: m.tokenId,
      mint_tx_hash: m.txHash,
      mint_recipient: m.recipient,
      mint_status: 'minted',
      minted_at: new Date(),
      metadata_uri: m.metadataUri,
    })
    .onConflictDoNothing()
    .returning();
  return row ?? (await findTokenDeck(db, m.collectionId, m.tokenId))!;
}

/** Writes a token's mint state onto an existing deck. */
export async function setMintState(db: Db, deckId: string, m: { tokenId: number; txHash: string; recipient: string; metadataUri: string }) {
  await db
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
    .where(eq(decks.id, deckId));
}

/** The output becomes the token's artwork: the deck's cover, carrying token_metadata. */
export async function linkCover(db: Db, deckId: string, outputId: string, tokenMetadata: (traits: unknown) => Record<string, unknown>) {
  const [o] = await db.select({ input_metadata: outputs.input_metadata }).from(outputs).where(eq(outputs.id, outputId));
  const traits = (o?.input_metadata as { traits?: unknown } | null)?.traits ?? [];
  await db
    .update(outputs)
    .set({ token_metadata: tokenMetadata(traits), updated_at: sql`now()` })
    .where(eq(outputs.id, outputId));
  await db.update(decks).set({ cover_output_id: outputId, updated_at: sql`now()` }).where(eq(decks.id, deckId));
}

export async function listMints(db: Db, collectionId: string) {
  const rows = await db
    .select()
    .from(decks)
    .where(and(eq(decks.collection_id, collectionId), isNotNull(decks.token_id)))
    .orderBy(asc(decks.token_id));
  return rows.map((d) => ({
    id: d.id,
    token_id: d.token_id,
    mint_tx_hash: d.mint_tx_hash,
    mint_recipient: d.mint_recipient,
    mint_status: d.mint_status,
    minted_at: iso(d.minted_at),
  }));
}

export async function listTokens(db: Db, collectionId: string, page: number, limit: number) {
  const where = and(eq(decks.collection_id, collectionId), isNotNull(decks.token_id));
  const [count] = await db.select({ n: sql<number>`count(*)::int` }).from(decks).where(where);
  const rows = await db
    .select({ deck: decks, output: { status: outputs.status, url: outputs.url } })
    .from(decks)
    .leftJoin(outputs, eq(outputs.id, decks.cover_output_id))
    .where(where)
    .orderBy(asc(decks.token_id))
    .limit(limit)
    .offset((page - 1) * limit);
  return {
    tokens: rows.map(({ deck, output }) => ({
      token_id: deck.token_id,
      deck_id: deck.id,
      metadata_uri: deck.metadata_uri,
      mint_status: deck.mint_status,
      mint_tx_hash: deck.mint_tx_hash,
      mint_recipient: deck.mint_recipient,
      minted_at: iso(deck.minted_at),
      current_owner: deck.current_owner,
      artwork_status: output
        ? output.status === 'completed'
          ? 'completed'
          : output.status === 'failed'
            ? 'failed'
            : 'generating'
        : 'none',
      image: output?.status === 'completed' ? output.url : null,
    })),
    page,
    limit,
    total: Number(count?.n ?? 0),
  };
}

/** GET /nft/decks/:deckId/mint-status. */
export async function mintStatus(db: Db, deckId: string) {
  const [deck] = await db.select().from(decks).where(eq(decks.id, deckId));
  if (!deck) throw notFound(`deck ${deckId}`);
  let output = deck.cover_output_id
    ? (await db.select().from(outputs).where(eq(outputs.id, deck.cover_output_id)))[0]
    : (await db.select().from(outputs).where(eq(outputs.deck_id, deckId)).orderBy(desc(outputs.created_at)).limit(1))[0];
  output ??= undefined;
  const job = output?.job_id ? (await db.select().from(jobs).where(eq(jobs.id, output.job_id)))[0] : undefined;
  const status = !output ? 'none' : output.status === 'completed' ? 'completed' : output.status === 'failed' ? 'failed' : 'generating';
  return {
    deck_id: deck.id,
    collection_id: deck.collection_id,
    token_id: deck.token_id,
    mint_status: deck.mint_status,
    mint_tx_hash: deck.mint_tx_hash,
    mint_recipient: deck.mint_recipient,
    minted_at: iso(deck.minted_at),
    metadata_uri: deck.metadata_uri,
    current_owner: deck.current_owner,
    last_transfer_at: iso(deck.last_transfer_at),
    generation: {
      status,
      output_id: output?.id ?? null,
      job_id: output?.job_id ?? null,
      job_status: job?.status ?? null,
      progress: job?.progress ?? null,
      image: output?.status === 'completed' ? output.url : null,
      error: output?.error_message ?? job?.error_message ?? null,
    },
  };
}

/** The profile picture of a user id (users.avatar_url), when the id is an internal user. */
export async function avatarOfUser(db: Db, userId: string | null | undefined): Promise<string | null> {
  if (!userId || !UUID.test(userId)) return null;
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
