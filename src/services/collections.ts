/**
 * Collections (docs/api/nft.md §2.1, §3, §4.2, §4.1.1, §4.3 setup): create, read, update, reset,
 * and definitions from a text concept. Writes are authorized through domain/policy.ts: a
 * collection belongs to the user who made it, or (user_id null) to the platform, which only the
 * operator changes. Decisions: docs/collections.md.
 */
import { randomUUID } from 'node:crypto';
import { getAddress } from 'viem';
import type { CollectionPatch, CollectionRow, NewCollection } from '../db/collections.ts';
import { conflict, invalid } from '../domain/errors.ts';
import { ExactCountsError, dealtShapeOf, exactSpecOf, isExact } from '../domain/exact-deck.ts';
import { normalizeGenerationData, type GenerationData, type GenerationDataInput } from '../domain/generation-data.ts';
import { authorize, ownerFor, type Caller } from '../domain/policy.ts';
import { assertUploadSize, decodeBase64, decodedLength } from '../domain/uploads.ts';
import { EXTENSION, isImageType, sniffType } from '../storage/mime.ts';
import type { Storage } from '../storage/types.ts';
import { AppError } from '../domain/errors.ts';
import type { ConceptExpander, GeneratedCollection } from '../generation/concept/index.ts';

export interface CollectionStore {
  createCollection(input: NewCollection): Promise<CollectionRow>;
  getCollection(id: string): Promise<CollectionRow>;
  updateCollection(id: string, patch: CollectionPatch): Promise<CollectionRow>;
  resetCollection(id: string): Promise<CollectionRow>;
  /** An exact deck was dealt for the collection (db/fairness.ts); absent: never (unit tests). */
  hasExactDeck?(collectionId: string): Promise<boolean>;
}

export interface CollectionPorts {
  store: CollectionStore;
  /** Whether a contract still has code (reset's check); absent: no chain, the check is skipped. */
  contractExists?: (chainId: number, address: string) => Promise<boolean>;
  expander: ConceptExpander;
  /** Where cover images go (absent: 503 for a cover upload). */
  storage?: Pick<Storage, 'put'>;
  /** The collection's public documents changed (metadata caches drop them). */
  onDocumentsChanged?: (collectionId: string) => void;
  /** A new collection's `blockchain` when the request names none: the platform chain's family. */
  defaultBlockchain?: string;
}

export interface CreateInput {
  title: string;
  description: string;
  editions: number;
  price: number;
  /** Absent: the family of the platform's chain (defaultBlockchain). */
  blockchain?: string;
  data: GenerationDataInput;
  project_id?: string;
  social_org?: string;
  social_identifier?: string;
  /** The creator a service-key call names (domain/policy.ts ownerFor). */
  owner_user_id?: string;
}

export interface UpdateInput {
  title?: string;
  description?: string;
  editions?: number;
  price?: number;
  data?: GenerationDataInput;
  // the mint policy (docs/minting.md "Mint policy"); null clears a field
  mint_access?: 'owner' | 'public';
  mint_price?: string | null;
  payout_address?: string | null;
  max_per_wallet?: number | null;
  mint_allowlist?: string[] | null;
  mint_merkle_root?: string | null;
  mint_start?: string | null;
  mint_end?: string | null;
}

const instant = (v: string | null | undefined) => (v === undefined ? undefined : v === null ? null : new Date(v));

/** The policy fields as stored: addresses lowercase (compared so), times as dates, start before end. */
function mintPolicyPatch(input: UpdateInput, current: CollectionRow): CollectionPatch {
  const start = instant(input.mint_start);
  const end = instant(input.mint_end);
  const s = start === undefined ? current.mint_start : start;
  const e = end === undefined ? current.mint_end : end;
  if (s && e && s >= e) throw invalid(`body.mint_end: the mint must end after it starts (${s.toISOString()})`);
  const patch: CollectionPatch = {
    mint_access: input.mint_access,
    mint_price: input.mint_price,
    payout_address:
      input.payout_address === undefined || input.payout_address === null ? input.payout_address : getAddress(input.payout_address),
    max_per_wallet: input.max_per_wallet,
    mint_allowlist:
      input.mint_allowlist === undefined || input.mint_allowlist === null
        ? input.mint_allowlist
        : [...new Set(input.mint_allowlist.map((a) => a.toLowerCase()))],
    mint_merkle_root: input.mint_merkle_root?.toLowerCase() ?? input.mint_merkle_root,
    mint_start: start,
    mint_end: end,
  };
  return Object.fromEntries(Object.entries(patch).filter(([, v]) => v !== undefined));
}

export interface GenerateInput {
  concept: string;
  save: boolean;
  /** Absent: the family of the platform's chain (defaultBlockchain). */
  blockchain?: string;
  project_id?: string;
  social_org?: string;
  social_identifier?: string;
  owner_user_id?: string;
}

export type CollectionService = ReturnType<typeof createCollectionService>;

/** Exact counts (docs/fairness.md "Exact counts") are checked against the editions: 400 `body.<field>`. */
function checkExactCounts(data: GenerationData, editions: number) {
  try {
    exactSpecOf(data, editions);
  } catch (err) {
    if (err instanceof ExactCountsError) throw invalid(`body.${err.message}`, { field: `body.${err.field}` });
    throw err;
  }
}

export function createCollectionService({
  store,
  contractExists,
  expander,
  storage,
  onDocumentsChanged,
  defaultBlockchain = 'ARBITRUM',
}: CollectionPorts) {
  async function create(caller: Caller, input: CreateInput): Promise<CollectionRow> {
    authorize(caller, 'collection.create');
    const { owner_user_id, ...fields } = input;
    const data = normalizeGenerationData(input.data);
    checkExactCounts(data, input.editions);
    return store.createCollection({
      ...fields,
      blockchain: input.blockchain ?? defaultBlockchain,
      data,
      userId: ownerFor(caller, owner_user_id),
    });
  }

  return {
    create,
    get: (id: string) => store.getCollection(id),

    async update(caller: Caller, id: string, input: UpdateInput): Promise<CollectionRow> {
      if (Object.values(input).every((v) => v === undefined)) {
        throw invalid('body: give at least one of title, description, editions, price, data, or a mint policy field');
      }
      const current = await store.getCollection(id);
      authorize(caller, 'collection.update', { ownerId: current.user_id });
      // The claim's time (updated_at) names its chain transaction: no change until it is settled.
      if (current.mint_status === 'deploying' && !current.contract_address) {
        throw conflict(`collection ${current.id} is being deployed: change it once the deployment is recorded`);
      }
      if (input.editions !== undefined && current.contract_address && input.editions !== current.editions) {
        throw conflict('editions cannot change after deployment: the contract holds maxSupply (use the setMaxSupply admin action)');
      }
      if (input.editions !== undefined && input.editions < current.tokens_minted) {
        throw conflict(`editions cannot be below the ${current.tokens_minted} tokens already minted`);
      }
      const { data, title, description, editions, price } = input;
      const normalized = data ? normalizeGenerationData(data) : undefined;
      // A deck is dealt before the first token: a sale already under way cannot switch to or from it.
      if (normalized && current.tokens_minted > 0 && isExact(normalized) !== isExact(current.data as GenerationData)) {
        throw conflict('body.data.distribution cannot change once tokens are minted (docs/fairness.md "Exact counts")', {
          code: 'EXACT_COUNTS',
        });
      }
      // Once a deck is dealt, its stored values are what the reveal submits against the current
      // data: a counted variable, its presets or counts, the exclusions and the distribution stay.
      if (
        normalized &&
        dealtShapeOf(normalized) !== dealtShapeOf(current.data as GenerationData) &&
        (await store.hasExactDeck?.(current.id))
      ) {
        throw conflict(
          'body.data: the exact deck of this collection is dealt: its counted variables (names, values, counts), exclusions and distribution cannot change (docs/fairness.md "Exact counts")',
          { code: 'EXACT_COUNTS' },
        );
      }
      if (normalized || editions !== undefined) {
        checkExactCounts(normalized ?? (current.data as GenerationData), editions ?? current.editions);
      }
      return store.updateCollection(current.id, {
        ...Object.fromEntries(Object.entries({ title, description, editions, price }).filter(([, v]) => v !== undefined)),
        ...(normalized ? { data: normalized } : {}),
        ...mintPolicyPatch(input, current),
      });
    },

    /**
     * The cover image (an image file, base64 or a data URL, at most 10 MB, its type checked by its
     * bytes): stored, then the collection's `cover_image_url`, which is the ERC-7572 document's
     * `image` and every token's image until its artwork completes. Owner or operator.
     */
    async setCover(caller: Caller, id: string, input: { base64Data: string; mimeType?: string }): Promise<CollectionRow> {
      const current = await store.getCollection(id);
      authorize(caller, 'collection.update', { ownerId: current.user_id });
      if (!storage) throw new AppError('unavailable', 'file storage is not configured in this backend');
      assertUploadSize(decodedLength(input.base64Data));
      const { bytes, declaredType } = decodeBase64(input.base64Data);
      const actual = sniffType(bytes);
      if (!actual || !isImageType(actual))
        throw invalid('body.base64Data: the content is not a png, jpeg, webp or gif image (checked by its bytes)');
      const declared = input.mimeType ?? declaredType;
      if (declared && declared !== actual) throw invalid(`body.mimeType: declared ${declared}, but the content is ${actual}`);
      const stored = await storage.put(`collection-covers/${current.id}/${randomUUID()}.${EXTENSION[actual]}`, bytes, actual);
      const row = await store.updateCollection(current.id, { cover_image_url: stored.url });
      onDocumentsChanged?.(current.id);
      return row;
    },

    /** Allowed only when the contract is gone from its chain (e.g. after a dev chain reset). */
    async reset(caller: Caller, id: string): Promise<CollectionRow> {
      const current = await store.getCollection(id);
      authorize(caller, 'collection.reset', { ownerId: current.user_id });
      if (current.contract_address && current.chain_id !== null && contractExists) {
        if (await contractExists(current.chain_id, current.contract_address)) {
          throw conflict(
            `collection contract ${current.contract_address} still exists on chain ${current.chain_id}; reset is only for a contract that is gone (for example after a dev chain reset)`,
          );
        }
      }
      return store.resetCollection(current.id);
    },

    /** A definition from a concept; with `save` also the collection (editions 100, price 0). */
    async generate(caller: Caller, input: GenerateInput): Promise<{ generated: GeneratedCollection; collection?: CollectionRow }> {
      if (input.save) {
        authorize(caller, 'collection.create');
        ownerFor(caller, input.owner_user_id); // refused before the language model is asked
      }
      const generated = await expander.expand({ concept: input.concept });
      if (!input.save) return { generated };
      const collection = await store.createCollection({
        title: generated.title,
        description: generated.description,
        editions: 100,
        price: 0,
        blockchain: input.blockchain ?? defaultBlockchain,
        data: generated.data,
        project_id: input.project_id ?? null,
        social_org: input.social_org ?? null,
        social_identifier: input.social_identifier ?? null,
        userId: ownerFor(caller, input.owner_user_id),
      });
      return { generated, collection };
    },

    /** Design-stage setup: only the v2 data of a generated definition. */
    async setup(prompt: string, style?: string) {
      return (await expander.expand({ concept: prompt, style })).data;
    },
  };
}
