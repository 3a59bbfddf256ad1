/**
 * What the console shows of collections (docs/collections.md "Console views"): the list
 * (a creator's own, every collection for the operator), an overview agreeing with the chain, tokens
 * with traits, owner and generation state, one token in full, trait rarity and the activity feed.
 * Reads only. A collection's own views are open to every signed-in caller, like the record itself
 * (GET /nft/collections/:id) and the chain they mirror; the list is scoped by owner.
 */
import type { CollectionRow } from '../db/collections.ts';
import type { CollectionListFilter, CollectionListRow, GasSpentRow, TokenViewRow, TransferViewRow } from '../db/collection-views.ts';
import { chainName } from '../domain/chain-names.ts';
import { decodeCursor, encodeCursor } from '../domain/cursor.ts';
import { weiToEther } from '../domain/ether.ts';
import { invalid, notFound } from '../domain/errors.ts';
import { authorize, type Caller } from '../domain/policy.ts';
import type { Rendered } from '../domain/metadata.ts';

export interface CollectionViewStore {
  getCollection(id: string): Promise<CollectionRow>;
  listCollections(f: CollectionListFilter): Promise<CollectionListRow[]>;
  tokenPage(
    collectionId: string,
    opts: { traits: Array<{ type: string; value: string }>; page: number; limit: number },
  ): Promise<{ rows: TokenViewRow[]; total: number }>;
  tokenView(collectionId: string, tokenId: number): Promise<TokenViewRow | undefined>;
  traitCounts(collectionId: string): Promise<{ minted: number; counts: Array<{ trait_type: string; value: string; n: number }> }>;
  transfersOf(
    contract: { chainId: number; address: string },
    opts: { tokenId?: number; before?: { block: number; log: number }; limit: number },
  ): Promise<TransferViewRow[]>;
  tokenTransactions(
    mintTxHash: string | null,
    outputId: string | null,
  ): Promise<Array<{ purpose: string; hash: string | null; status: string; created_at: string }>>;
  collectionGasSpent(c: { chainId: number | null; address: string | null; deployTxHash: string | null }): Promise<GasSpentRow>;
}

/** What the contract says (chain/collection.ts readCollection plus the royalty). */
export interface ChainState {
  name: string;
  symbol: string;
  owner: string;
  minter: string;
  totalSupply: string;
  maxSupply: string;
  mintActive: boolean;
  royalty: { receiver: string; bps: number } | null;
}

export interface CollectionViewPorts {
  store: CollectionViewStore;
  /** Reads a deployed collection's contract; absent: no chain configured (overview.chain null). */
  readChain?: (chainId: number, address: string) => Promise<ChainState>;
  /** The token's ERC-721 document (services/metadata-documents.ts). */
  tokenDocument(collectionId: string, tokenId: number): Promise<Rendered>;
}

export type GenerationState = 'queued' | 'generating' | 'completed' | 'failed' | 'none';

/** The artwork's state as the console shows it (job states: docs/api/content.md §3). */
export function generationState(row: Pick<TokenViewRow, 'output_id' | 'output_status' | 'job_status'>): GenerationState {
  if (!row.output_id) return 'none';
  if (row.output_status === 'completed') return 'completed';
  if (row.output_status === 'failed' || row.job_status === 'failed') return 'failed';
  if (!row.job_status || row.job_status === 'pending' || row.output_status === 'pending') return 'queued';
  return 'generating';
}

/** The paged list's artwork status: none, generating, completed or failed. */
const artworkStatusOf = (row: Pick<TokenViewRow, 'output_status'>): 'none' | 'generating' | 'completed' | 'failed' =>
  !row.output_status ? 'none' : row.output_status === 'completed' ? 'completed' : row.output_status === 'failed' ? 'failed' : 'generating';

const ZERO = '0x0000000000000000000000000000000000000000';
const ISO_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export type CollectionViews = ReturnType<typeof createCollectionViews>;

export function createCollectionViews(ports: CollectionViewPorts) {
  const { store } = ports;

  const transferView = (t: TransferViewRow) => ({
    kind: t.from_address.toLowerCase() === ZERO ? ('mint' as const) : ('transfer' as const),
    token_id: Number(t.token_id),
    from: t.from_address,
    to: t.to_address,
    tx_hash: t.tx_hash,
    block_number: t.block_number,
    log_index: t.log_index,
    timestamp: t.timestamp,
    // A collector's on-chain purchase: the payment of the whole purchase and its payouts.
    ...(t.buyer
      ? {
          purchase: {
            buyer: t.buyer,
            currency: t.currency && /^0x0{40}$/i.test(t.currency) ? 'native' : t.currency,
            amount: t.amount,
            quantity: t.quantity,
            payouts: t.payouts,
          },
        }
      : {}),
  });

  const tokenItem = (row: TokenViewRow) => ({
    token_id: row.token_id,
    deck_id: row.deck_id,
    owner: row.current_owner ?? row.mint_recipient,
    recipient: row.mint_recipient,
    mint_status: row.mint_status,
    // The paged list's earlier fields (GET /nft/collections/:id/tokens, §4.3), kept for its clients.
    metadata_uri: row.metadata_uri,
    mint_tx_hash: row.mint_tx_hash,
    mint_recipient: row.mint_recipient,
    current_owner: row.current_owner,
    artwork_status: artworkStatusOf(row),
    traits: row.traits
      .filter((a) => a && typeof a.trait_type === 'string')
      .map((a) => ({ trait_type: a.trait_type, value: typeof a.value === 'number' ? a.value : String(a.value) })),
    image: row.output_status === 'completed' ? row.output_url : null,
    generation: {
      state: generationState(row),
      job_id: row.job_id,
      progress: row.output_status === 'completed' ? 100 : (row.job_progress ?? 0),
    },
    tx_hash: row.mint_tx_hash,
    minted_at: row.minted_at,
  });

  return {
    /** The caller's own collections; the operator sees every one (or one user's with `user_id`). */
    async list(
      caller: Caller,
      q: { cursor?: string; limit: number; q?: string; status?: string; chain_id?: number; user_id?: string; contract_address?: string },
    ) {
      const ownerId = caller.kind === 'service' ? q.user_id : caller.kind === 'user' ? caller.userId : undefined;
      if (caller.kind === 'user' && q.user_id && q.user_id !== caller.userId)
        throw invalid('query.user_id: a user lists only their own collections (leave user_id out)');
      const after = q.cursor ? decodeCursor(q.cursor, { c: 'string', i: 'string' }, 'query.cursor') : undefined;
      // The cursor's parts go into the query as a time and a uuid: a forged one is a 400, not a failed cast.
      if (after && !(ISO_TIME.test(after.c as string) && UUID.test(after.i as string)))
        throw invalid('query.cursor: not a cursor returned by this API');
      const found = await store.listCollections({
        ...(ownerId !== undefined ? { ownerId } : {}),
        ...(q.q ? { q: q.q } : {}),
        ...(q.status ? { status: q.status } : {}),
        ...(q.chain_id !== undefined ? { chainId: q.chain_id } : {}),
        ...(q.contract_address ? { contractAddress: q.contract_address } : {}),
        ...(after ? { after: { createdAt: after.c as string, id: after.i as string } } : {}),
        limit: q.limit,
      });
      const page = found.slice(0, q.limit);
      const last = page.at(-1);
      return {
        collections: page.map((c) => ({
          id: c.id,
          title: c.title,
          status: c.status,
          mint_status: c.mint_status,
          chain_id: c.chain_id,
          chain_name: c.chain_id === null ? null : chainName(c.chain_id),
          is_global: c.is_global,
          contract_address: c.contract_address,
          cover_image_url: c.cover_image_url,
          editions: c.editions,
          minted: c.tokens_minted,
          max_supply: c.max_supply,
          user_id: c.user_id,
          created_at: c.created_at,
        })),
        next_cursor: found.length > q.limit && last ? encodeCursor({ c: last.created_at, i: last.id }) : null,
      };
    },

    /** The record beside what its contract says now (null before deployment or without a chain). */
    async overview(collectionId: string) {
      const c = await store.getCollection(collectionId);
      if (!c.contract_address || !c.chain_id || !ports.readChain) return { collection: c, chain: null, chain_error: null };
      try {
        const chain = await ports.readChain(c.chain_id, c.contract_address);
        return { collection: c, chain: { ...chain, chain_id: c.chain_id, address: c.contract_address }, chain_error: null };
      } catch {
        // The record still answers when the node does not; the console says why the chain side is missing.
        return { collection: c, chain: null, chain_error: `chain ${c.chain_id} did not answer for ${c.contract_address}` };
      }
    },

    /**
     * What the platform paid in gas for the collection's recorded transactions (deploy, mints,
     * admin calls): its owner and the operator (`collection.read_costs`); 404 for an unknown one.
     */
    async gasSpent(caller: Caller, collectionId: string) {
      const c = await store.getCollection(collectionId);
      authorize(caller, 'collection.read_costs', { ownerId: c.user_id });
      const g = await store.collectionGasSpent({ chainId: c.chain_id, address: c.contract_address, deployTxHash: c.deploy_tx_hash });
      return {
        collection_id: c.id,
        chain_id: c.chain_id,
        transactions: g.transactions,
        gas_used: g.gas_used,
        gas_wei: g.gas_wei,
        gas_eth: weiToEther(g.gas_wei),
      };
    },

    async tokens(collectionId: string, q: { page: number; limit: number; trait?: string[] }) {
      await store.getCollection(collectionId); // 404 for an unknown collection
      const traits = (q.trait ?? []).map((t) => {
        const at = t.indexOf(':');
        if (at <= 0) throw invalid(`query.trait: "${t}" is not <trait_type>:<value>`);
        return { type: t.slice(0, at), value: t.slice(at + 1) };
      });
      const page = await store.tokenPage(collectionId, { traits, page: q.page, limit: q.limit });
      return { tokens: page.rows.map(tokenItem), page: q.page, limit: q.limit, total: page.total };
    },

    /** One token: its item, ERC-721 document, transfers (newest first, 100 at most) and transactions. */
    async token(collectionId: string, tokenId: number) {
      const c = await store.getCollection(collectionId);
      const row = await store.tokenView(collectionId, tokenId);
      if (!row) throw notFound(`token ${tokenId} of collection ${collectionId}`);
      const document = await ports.tokenDocument(collectionId, tokenId).catch(() => null);
      const transfers =
        c.contract_address && c.chain_id
          ? (await store.transfersOf({ chainId: c.chain_id, address: c.contract_address }, { tokenId, limit: 100 })).slice(0, 100)
          : [];
      return {
        ...tokenItem(row),
        metadata: document ? (JSON.parse(document.body) as Record<string, unknown>) : null,
        transfers: transfers.map(transferView),
        transactions: (await store.tokenTransactions(row.mint_tx_hash, row.output_id)).map((t) => ({
          kind: t.purpose,
          tx_hash: t.hash,
          status: t.status,
          created_at: t.created_at,
        })),
      };
    },

    async rarity(collectionId: string) {
      await store.getCollection(collectionId);
      const { minted, counts } = await store.traitCounts(collectionId);
      const byType = new Map<string, Array<{ value: string; count: number; share: number }>>();
      for (const r of counts) {
        const values = byType.get(r.trait_type) ?? [];
        values.push({ value: r.value, count: r.n, share: minted > 0 ? r.n / minted : 0 });
        byType.set(r.trait_type, values);
      }
      return { minted, traits: [...byType].map(([trait_type, values]) => ({ trait_type, values })) };
    },

    /** Mints and transfers of the collection's contract, newest first. */
    async activity(collectionId: string, q: { cursor?: string; limit: number }) {
      const c = await store.getCollection(collectionId);
      const before = q.cursor ? decodeCursor(q.cursor, { b: 'number', l: 'number' }, 'query.cursor') : undefined;
      if (before && !(Number.isSafeInteger(before.b) && Number.isSafeInteger(before.l)))
        throw invalid('query.cursor: not a cursor returned by this API');
      if (!c.contract_address || !c.chain_id) return { events: [], next_cursor: null };
      const found = await store.transfersOf(
        { chainId: c.chain_id, address: c.contract_address },
        { ...(before ? { before: { block: before.b as number, log: before.l as number } } : {}), limit: q.limit },
      );
      const page = found.slice(0, q.limit);
      const last = page.at(-1);
      return {
        events: page.map(transferView),
        next_cursor: found.length > q.limit && last ? encodeCursor({ b: last.block_number, l: last.log_index }) : null,
      };
    },
  };
}
