import type { DeckRow } from '../db/decks.ts';
import type {
  collectionOutputStats,
  listCollectionOutputs,
  Completion,
  NewOutput,
  OutputDetail,
  OutputFilter,
  OutputRow,
} from '../db/outputs.ts';
import { invalid, notFound } from '../domain/errors.ts';
import { authorize, can, type Caller } from '../domain/policy.ts';
import { ownership, requireOwner } from './ownership.ts';

type WithOwners<T> = T & { collection_owner_id: string | null };

export interface OutputPorts {
  outputs: {
    get(id: string): Promise<WithOwners<OutputRow>>;
    detail(id: string): Promise<OutputDetail>;
    create(input: NewOutput): Promise<OutputRow>;
    complete(id: string, c: Completion): Promise<OutputRow>;
    fail(id: string, message: string | undefined): Promise<OutputRow>;
    hide(id: string): Promise<OutputRow>;
    move(id: string, deckId: string | null): Promise<OutputRow>;
    setThumbnail(id: string, url: string): Promise<void>;
    list(collectionId: string, filter: OutputFilter): ReturnType<typeof listCollectionOutputs>;
    stats(collectionId: string): ReturnType<typeof collectionOutputStats>;
  };
  decks: { get(id: string): Promise<WithOwners<DeckRow>> };
  /** Renders a thumbnail of a stored image and returns its URL (null: not an image of ours). */
  thumbnails?: (outputId: string, url: string, mimeType: string | null) => Promise<string | null>;
  log?: (msg: string, extra: Record<string, unknown>) => void;
}

export type OutputCreate = Omit<NewOutput, 'userId'>;

export function createOutputService(ports: OutputPorts) {
  const { outputs, decks } = ports;

  async function changeable(caller: Caller, id: string, action: 'output.complete' | 'output.fail' | 'output.hide' | 'output.move') {
    const output = await outputs.get(id);
    authorize(caller, action, ownership(output));
    return output;
  }

  return {
    /** A pending output in any collection (the mini app generates into other people's); it is the caller's. */
    async create(caller: Caller, input: OutputCreate): Promise<OutputRow> {
      authorize(caller, 'output.create');
      const userId = requireOwner(caller);
      if (input.deck_id) authorize(caller, 'deck.add_output', ownership(await decks.get(input.deck_id)));
      return outputs.create({ ...input, userId });
    },

    /** pending|processing → completed; then a thumbnail when none was given (a failure is logged, not returned). */
    async complete(caller: Caller, id: string, completion: Completion): Promise<OutputRow> {
      await changeable(caller, id, 'output.complete');
      const row = await outputs.complete(id, completion);
      if (!ports.thumbnails || !row.url || row.thumbnail_url) return row;
      try {
        const thumb = await ports.thumbnails(row.id, row.url, row.mime_type);
        if (!thumb) return row;
        await outputs.setThumbnail(row.id, thumb);
        return { ...row, thumbnail_url: thumb };
      } catch (err) {
        ports.log?.('thumbnail failed', { err: String(err), outputId: row.id });
        return row;
      }
    },

    async fail(caller: Caller, id: string, message: string | undefined): Promise<OutputRow> {
      await changeable(caller, id, 'output.fail');
      return outputs.fail(id, message);
    },

    async hide(caller: Caller, id: string): Promise<OutputRow> {
      await changeable(caller, id, 'output.hide');
      return outputs.hide(id);
    },

    /** The output with its deck and collection; a hidden one only for whoever may see hidden outputs (404 otherwise). */
    async get(caller: Caller, id: string): Promise<OutputDetail> {
      const detail = await outputs.detail(id);
      const owners = { ownerId: detail.output.user_id, collectionOwnerId: detail.collectionOwnerId };
      if (detail.output.status === 'hidden' && !can(caller, 'output.read_hidden', owners)) throw notFound(`output ${id}`);
      return detail;
    },

    /** Into another deck of its collection (which the caller may add to), or out of any deck (null). */
    async move(caller: Caller, id: string, deckId: string | null): Promise<OutputRow> {
      const output = await changeable(caller, id, 'output.move');
      if (deckId) {
        const deck = await decks.get(deckId);
        if (deck.collection_id !== output.collection_id) throw invalid(`body.deck_id: deck ${deckId} belongs to another collection`);
        authorize(caller, 'deck.add_output', ownership(deck));
      }
      return outputs.move(id, deckId);
    },

    list: (collectionId: string, filter: OutputFilter) => outputs.list(collectionId, filter),
    stats: (collectionId: string) => outputs.stats(collectionId),
  };
}

export type OutputService = ReturnType<typeof createOutputService>;
