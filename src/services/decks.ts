import type { deckStats, listCollectionDecks, listUserDecks, DeckDetail, DeckFilter, DeckPatch, DeckRow, NewDeck } from '../db/decks.ts';
import { conflict, invalid } from '../domain/errors.ts';
import { authorize, type Action, type Caller } from '../domain/policy.ts';
import { ownership, requireOwner } from './ownership.ts';

export interface DeckPorts {
  /** `collection_exact`: the deck's collection has exact counts (absent: it has not). */
  get(id: string): Promise<DeckRow & { collection_owner_id: string | null; collection_exact?: boolean }>;
  detail(id: string): Promise<DeckDetail>;
  create(input: NewDeck): Promise<DeckRow>;
  update(id: string, patch: DeckPatch): Promise<DeckRow>;
  archive(id: string): Promise<DeckRow>;
  publish(id: string): Promise<DeckRow>;
  lock(id: string): Promise<DeckRow>;
  stats(id: string): ReturnType<typeof deckStats>;
  listForCollection(collectionId: string, filter: DeckFilter): ReturnType<typeof listCollectionDecks>;
  listForUser(userId: string, filter: DeckFilter): ReturnType<typeof listUserDecks>;
  /**
   * A minted token's public document changed (its deck's cover): every replica drops its cached
   * copy (services/metadata-invalidation.ts); the MetadataUpdate emitter sees the new cover itself.
   */
  tokenChanged?(collectionId: string, tokenId: number): void;
}

export function createDeckService(decks: DeckPorts) {
  /** Loads the deck (404) and checks the caller may do `action` to it (403). */
  async function checked(caller: Caller, id: string, action: Action) {
    const row = await decks.get(id);
    authorize(caller, action, ownership(row));
    return row;
  }

  return {
    /** A new active deck in any collection; it is the caller's. */
    async create(caller: Caller, input: Omit<NewDeck, 'userId'>): Promise<DeckRow> {
      authorize(caller, 'deck.create');
      return decks.create({ ...input, userId: requireOwner(caller) });
    },

    async update(caller: Caller, id: string, patch: DeckPatch): Promise<DeckRow> {
      if (Object.values(patch).every((v) => v === undefined)) {
        throw invalid('body: give at least one of name, description, cover_output_id, status');
      }
      const current = await checked(caller, id, patch.status === 'locked' ? 'deck.lock' : 'deck.update');
      // An exact token's artwork is the one dealt at the reveal: its cover is not chosen by anyone.
      if (patch.cover_output_id !== undefined && current.token_id !== null && current.collection_exact) {
        throw conflict(
          `body.cover_output_id: deck ${id} is token ${current.token_id} of a collection with exact counts, whose artwork is dealt at the reveal (docs/fairness.md "Exact counts")`,
          { code: 'EXACT_COUNTS' },
        );
      }
      const row = await decks.update(id, patch);
      if (patch.cover_output_id !== undefined && row.token_id !== null) decks.tokenChanged?.(row.collection_id, row.token_id);
      return row;
    },

    async archive(caller: Caller, id: string): Promise<DeckRow> {
      await checked(caller, id, 'deck.delete');
      return decks.archive(id);
    },

    async publish(caller: Caller, id: string): Promise<DeckRow> {
      await checked(caller, id, 'deck.publish');
      return decks.publish(id);
    },

    async lock(caller: Caller, id: string): Promise<DeckRow> {
      await checked(caller, id, 'deck.lock');
      return decks.lock(id);
    },

    /** The caller's own decks (the user a service call names). */
    mine: async (caller: Caller, filter: DeckFilter) => decks.listForUser(requireOwner(caller), filter),
    get: (id: string) => decks.detail(id),
    stats: (id: string) => decks.stats(id),
    listForCollection: (collectionId: string, filter: DeckFilter) => decks.listForCollection(collectionId, filter),
  };
}

export type DeckService = ReturnType<typeof createDeckService>;
