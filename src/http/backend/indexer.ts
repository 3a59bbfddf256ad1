/**
 * Ownership and indexer routes of the backend (nft-service.md §4.2 ownership, transfers, indexer
 * status) and the indexer package API (§4.4) over the same tables. docs/indexer.md.
 * Every route needs authentication (any credential): /api/read spends RPC calls, and the rest
 * follow §5.1. socket.io (src/indexer/realtime.ts) is public.
 */
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { sql } from 'drizzle-orm';
import { getAddress, type Abi } from 'viem';
import { z } from 'zod';
import * as abis from '../../../contracts/abi/index.ts';
import { readDeploymentRecord } from '../../chain/deploy-platform.ts';
import { publicClientForUrl, rpcUrlFor } from '../../chain/chains.ts';
import type { Config } from '../../config.ts';
import { getCollection } from '../../db/collections.ts';
import { getDeck } from '../../db/decks.ts';
import { AppError, invalid, notFound } from '../../domain/errors.ts';
import type { IndexerHost } from '../../indexer/host.ts';
import { readState, rows } from '../../indexer/indexer.ts';
import { localIndexer } from '../../indexer/service.ts';
import { sendError } from '../plugins/errors.ts';
import { address, collectionIdParams, ok, queryInt, uuid } from '../schemas/common.ts';
import type { BackendDeps } from './app.ts';

export type { IndexerHost } from '../../indexer/host.ts';

/** Contract names of /api/read and /api/contract-info, with their ABIs. */
export const CONTRACT_ABIS: Record<string, Abi> = {
  Collection: abis.collectionAbi as Abi,
  DiamondFactory: abis.diamondFactoryAbi as Abi,
  DiamondCutFacet: abis.diamondCutFacetAbi as Abi,
  DiamondLoupeFacet: abis.diamondLoupeFacetAbi as Abi,
  OwnershipFacet: abis.ownershipFacetAbi as Abi,
  ERC721Facet: abis.erc721FacetAbi as Abi,
  MintFacet: abis.mintFacetAbi as Abi,
  ContractURIFacet: abis.contractURIFacetAbi as Abi,
  MetadataUpdateFacet: abis.metadataUpdateFacetAbi as Abi,
  RoyaltyFacet: abis.royaltyFacetAbi as Abi,
  CollectionInit: abis.collectionInitAbi as Abi,
  DiamondRouter: abis.diamondRouterAbi as Abi,
};

const contractName = (raw: string): string | undefined =>
  Object.keys(CONTRACT_ABIS).find((n) => n.toLowerCase() === raw.toLowerCase()) ?? (raw.toLowerCase() === 'app' ? 'Collection' : undefined);

const iso = (v: unknown) =>
  v === null || v === undefined ? null : v instanceof Date ? v.toISOString() : new Date(String(v)).toISOString();
const str = (v: unknown) => (v === null || v === undefined ? null : String(v));

const pageQuery = z.object({
  limit: queryInt(1, 1000).optional(),
  offset: queryInt(0, 1_000_000_000).optional(),
  chainId: queryInt(1, 2 ** 31 - 1).optional(),
});
const appQuery = pageQuery.extend({ appAddress: address.optional() });
const appParams = z.object({ appId: address });
const readParams = z.object({ contract: z.string().min(1).max(100), function: z.string().min(1).max(100) });
const readQuery = z.object({
  address,
  args: z.string().max(10_000).optional(),
  chainId: queryInt(1, 2 ** 31 - 1).optional(),
});

function stringify(value: unknown): string {
  if (typeof value === 'bigint') return value.toString();
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return JSON.stringify(value, (_k, v) => (typeof v === 'bigint' ? v.toString() : v));
}

export function indexerRoutes(app: FastifyInstance, deps: Pick<BackendDeps, 'config' | 'database'> & { indexer?: IndexerHost }) {
  const r = app.withTypeProvider<ZodTypeProvider>();
  const { db } = deps.database;
  const config: Config = deps.config;
  const defaultChain = deps.indexer?.chainId ?? config.NFT_CHAIN_ID;

  // ---------- §4.2 ownership ----------

  r.get('/nft/collections/:collectionId/ownership', { schema: { params: collectionIdParams, tags: ['ownership'] } }, async (req) => {
    await getCollection(db, req.params.collectionId);
    const tokens = await rows<Record<string, unknown>>(
      db,
      sql`
        SELECT id, token_id, current_owner, mint_recipient, mint_status, last_transfer_at
        FROM decks WHERE collection_id = ${req.params.collectionId} AND token_id IS NOT NULL ORDER BY token_id`,
    );
    return ok(
      tokens.map((t) => ({
        id: t.id,
        token_id: Number(t.token_id),
        current_owner: t.current_owner,
        mint_recipient: t.mint_recipient,
        mint_status: t.mint_status,
        last_transfer_at: iso(t.last_transfer_at),
      })),
    );
  });

  r.get('/nft/decks/:deckId/transfers', { schema: { params: z.object({ deckId: uuid }), tags: ['ownership'] } }, async (req) => {
    const deck = await getDeck(db, req.params.deckId);
    // Linked rows, plus rows indexed before the deck existed (matched by collection and token id).
    const list = await rows<Record<string, unknown>>(
      db,
      sql`
      SELECT t.* FROM transfers t
      WHERE t.deck_id = ${deck.id}
         OR (t.deck_id IS NULL AND ${deck.token_id}::bigint IS NOT NULL AND t.token_id = ${deck.token_id}::numeric AND EXISTS (
              SELECT 1 FROM collections c WHERE c.id = ${deck.collection_id} AND c.chain_id = t.chain_id
                AND lower(c.contract_address) = lower(t.collection_address)))
      ORDER BY t.block_number DESC, t.log_index DESC`,
    );
    return ok(
      list.map((t) => ({
        id: t.id,
        deck_id: deck.id,
        chain_id: t.chain_id,
        collection_address: t.collection_address,
        token_id: str(t.token_id),
        from_address: t.from_address,
        to_address: t.to_address,
        block_number: str(t.block_number),
        block_hash: t.block_hash,
        tx_hash: t.tx_hash,
        log_index: Number(t.log_index),
        timestamp: iso(t.timestamp),
        is_mint: t.from_address === '0x0000000000000000000000000000000000000000',
      })),
    );
  });

  r.get('/nft/indexer/status', { schema: { tags: ['ownership'] } }, async () => {
    const state = await readState(db, defaultChain);
    const live = (deps.indexer ?? localIndexer(defaultChain))?.liveStatus?.();
    const head = live?.head_block ?? state?.head_block ?? null;
    const last = state?.last_indexed_block ?? null;
    return ok({
      id: 'singleton',
      status: state?.status ?? 'idle',
      last_indexed_block: last === null ? '0' : String(last),
      chain_id: defaultChain,
      started_at: iso(state?.started_at),
      updated_at: iso(state?.updated_at),
      // extras (docs/indexer.md)
      head_block: head === null ? null : String(head),
      lag_blocks: head !== null && last !== null ? Math.max(0, head - (live?.confirmations ?? 0) - last) : null,
      running: live?.running ?? false,
      behind: live?.behind ?? false,
      stalled: live?.stalled ?? false,
      warnings: live?.warnings ?? [],
      last_error: state?.last_error ?? null,
      initialized: state !== undefined,
    });
  });

  // ---------- §4.4 indexer package ----------

  const tags = ['indexer'];

  const ownerTokens = async (chainId: number, app?: string) =>
    rows<Record<string, unknown>>(
      db,
      sql`
      SELECT cur.app_address, cur.to_address AS owner, cur.block_number, cur.timestamp AS updated_at,
             first.block_number AS minted_block, first.timestamp AS minted_at, first.tx_hash AS mint_tx_hash
      FROM (SELECT DISTINCT ON (app_address) * FROM owner_token_transfers WHERE chain_id = ${chainId}
              ${app ? sql`AND app_address = ${app}` : sql``}
            ORDER BY app_address, block_number DESC, log_index DESC) cur
      JOIN (SELECT DISTINCT ON (app_address) * FROM owner_token_transfers WHERE chain_id = ${chainId}
              ${app ? sql`AND app_address = ${app}` : sql``}
            ORDER BY app_address, block_number ASC, log_index ASC) first ON first.app_address = cur.app_address
      ORDER BY first.block_number DESC, first.log_index DESC`,
    );
  const presentOwnerToken = (t: Record<string, unknown>, chainId: number) => ({
    id: t.app_address,
    token_id: t.app_address,
    contract_address: t.app_address,
    chain_id: chainId,
    owner: t.owner,
    minted_block: str(t.minted_block),
    minted_at: iso(t.minted_at),
    mint_tx_hash: t.mint_tx_hash,
    updated_block: str(t.block_number),
    updated_at: iso(t.updated_at),
  });

  r.get('/api/owner-tokens', { schema: { querystring: pageQuery, tags } }, async (req) => {
    const chainId = req.query.chainId ?? defaultChain;
    const all = await ownerTokens(chainId);
    const offset = req.query.offset ?? 0;
    return ok(all.slice(offset, offset + (req.query.limit ?? 100)).map((t) => presentOwnerToken(t, chainId)));
  });

  r.get('/api/owner-tokens/:id', { schema: { params: z.object({ id: address }), querystring: pageQuery, tags } }, async (req) => {
    const chainId = req.query.chainId ?? defaultChain;
    const id = getAddress(req.params.id);
    const [t] = await ownerTokens(chainId, id);
    if (!t) throw notFound(`owner token ${id}`);
    const transfers = await rows<Record<string, unknown>>(
      db,
      sql`
      SELECT from_address, to_address, block_number, tx_hash, log_index, timestamp FROM owner_token_transfers
      WHERE chain_id = ${chainId} AND app_address = ${id} ORDER BY block_number DESC, log_index DESC`,
    );
    return ok({
      ...presentOwnerToken(t, chainId),
      transfers: transfers.map((x) => ({ ...x, block_number: str(x.block_number), timestamp: iso(x.timestamp) })),
    });
  });

  const listApps = (chainId: number, app?: string, limit = 100, offset = 0) =>
    rows<Record<string, unknown>>(
      db,
      sql`
      SELECT a.*,
        (SELECT count(*) FROM transfers t WHERE t.chain_id = a.chain_id AND t.collection_address = a.address
           AND t.from_address = '0x0000000000000000000000000000000000000000')::int AS total_minted,
        (SELECT o.to_address FROM owner_token_transfers o WHERE o.chain_id = a.chain_id AND o.app_address = a.address
           ORDER BY o.block_number DESC, o.log_index DESC LIMIT 1) AS owner,
        (SELECT c.id FROM collections c WHERE c.chain_id = a.chain_id AND lower(c.contract_address) = lower(a.address)
           ORDER BY c.created_at DESC LIMIT 1) AS collection_id
      FROM apps a WHERE a.chain_id = ${chainId} ${app ? sql`AND a.address = ${app}` : sql``}
      ORDER BY a.block_number DESC, a.log_index DESC LIMIT ${limit} OFFSET ${offset}`,
    );
  const presentApp = (a: Record<string, unknown>) => ({
    id: a.address,
    address: a.address,
    chain_id: a.chain_id,
    type: 'collection',
    name: a.name,
    symbol: a.symbol,
    creator: a.creator,
    owner: a.owner ?? null,
    owner_token_id: a.address,
    factory_address: a.factory_address,
    collection_id: a.collection_id ?? null,
    totalMinted: Number(a.total_minted),
    block_number: str(a.block_number),
    tx_hash: a.tx_hash,
    created_at: iso(a.timestamp),
  });

  r.get('/api/apps', { schema: { querystring: pageQuery, tags } }, async (req) => {
    const list = await listApps(req.query.chainId ?? defaultChain, undefined, req.query.limit ?? 100, req.query.offset ?? 0);
    return ok(list.map(presentApp));
  });

  r.get('/api/apps/:appId', { schema: { params: appParams, querystring: pageQuery, tags } }, async (req) => {
    const id = getAddress(req.params.appId);
    const [a] = await listApps(req.query.chainId ?? defaultChain, id);
    if (!a) throw notFound(`app ${id}`);
    return ok(presentApp(a));
  });

  const appTokens = async (chainId: number, app: string | undefined, limit: number, offset: number) => {
    const list = await rows<Record<string, unknown>>(
      db,
      sql`
      SELECT cur.collection_address, cur.token_id, cur.to_address AS owner, cur.block_number, cur.timestamp AS last_transfer_at,
             m.to_address AS minted_to, m.timestamp AS minted_at, m.tx_hash AS mint_tx_hash
      FROM (SELECT DISTINCT ON (collection_address, token_id) * FROM transfers WHERE chain_id = ${chainId}
              ${app ? sql`AND collection_address = ${app}` : sql``}
            ORDER BY collection_address, token_id, block_number DESC, log_index DESC) cur
      LEFT JOIN transfers m ON m.chain_id = ${chainId} AND m.collection_address = cur.collection_address AND m.token_id = cur.token_id
        AND m.from_address = '0x0000000000000000000000000000000000000000'
      ORDER BY cur.collection_address, cur.token_id LIMIT ${limit} OFFSET ${offset}`,
    );
    return list.map((t) => ({
      app_address: t.collection_address,
      token_id: str(t.token_id),
      owner: t.owner,
      minted_to: t.minted_to ?? null,
      minted_at: iso(t.minted_at),
      mint_tx_hash: t.mint_tx_hash ?? null,
      last_transfer_block: str(t.block_number),
      last_transfer_at: iso(t.last_transfer_at),
    }));
  };

  const appExists = async (chainId: number, app: string) => {
    const [x] = await rows(
      db,
      sql`
      SELECT 1 FROM apps WHERE chain_id = ${chainId} AND address = ${app}
      UNION ALL SELECT 1 FROM transfers WHERE chain_id = ${chainId} AND collection_address = ${app} LIMIT 1`,
    );
    return x !== undefined;
  };

  type AppList = (chainId: number, app: string | undefined, limit: number, offset: number) => Promise<unknown[]>;
  /** `path` lists rows of every app (or `?appAddress=`); `path/:appId` those of one known app, else 404. */
  const appListRoutes = (path: string, list: AppList) => {
    r.get(path, { schema: { querystring: appQuery, tags } }, async (req) => {
      const app = req.query.appAddress ? getAddress(req.query.appAddress) : undefined;
      return ok(await list(req.query.chainId ?? defaultChain, app, req.query.limit ?? 100, req.query.offset ?? 0));
    });
    r.get(`${path}/:appId`, { schema: { params: appParams, querystring: pageQuery, tags } }, async (req) => {
      const chainId = req.query.chainId ?? defaultChain;
      const app = getAddress(req.params.appId);
      if (!(await appExists(chainId, app))) throw notFound(`app ${app}`);
      return ok(await list(chainId, app, req.query.limit ?? 100, req.query.offset ?? 0));
    });
  };

  appListRoutes('/api/app-tokens', appTokens);

  const mints = async (chainId: number, app: string | undefined, limit: number, offset: number) => {
    const list = await rows<Record<string, unknown>>(
      db,
      sql`
      SELECT * FROM app_token_mints WHERE chain_id = ${chainId} ${app ? sql`AND app_address = ${app}` : sql``}
      ORDER BY block_number DESC, log_index DESC LIMIT ${limit} OFFSET ${offset}`,
    );
    return list.map((m) => ({
      id: m.id,
      app_address: m.app_address,
      to: m.to_address,
      start_token_id: str(m.start_token_id),
      quantity: Number(m.quantity),
      block_number: str(m.block_number),
      tx_hash: m.tx_hash,
      log_index: Number(m.log_index),
      timestamp: iso(m.timestamp),
    }));
  };

  appListRoutes('/api/app-token-mints', mints);

  const knownContracts = (chainId: number): Record<string, string> => {
    if (deps.indexer?.contracts && chainId === deps.indexer.chainId) return deps.indexer.contracts;
    return (readDeploymentRecord(chainId)?.contracts as Record<string, string> | undefined) ?? {};
  };

  r.get(
    '/api/read/:contract/:function',
    // Zod messages name the field; a missing address is a 400 ("query.address: ...").
    { schema: { params: readParams, querystring: readQuery, tags } },
    async (req, reply) => {
      const name = contractName(req.params.contract);
      if (!name) throw notFound(`contract ${req.params.contract} (known: ${Object.keys(CONTRACT_ABIS).join(', ')})`);
      const abi = CONTRACT_ABIS[name]!;
      const fn = (abi as { type: string; name?: string; stateMutability?: string; inputs?: unknown[] }[]).filter(
        (x) => x.type === 'function' && x.name === req.params.function,
      );
      if (fn.length === 0) throw notFound(`function ${req.params.function} in the ABI of ${name}`);
      if (!fn.some((f) => f.stateMutability === 'view' || f.stateMutability === 'pure')) {
        throw invalid(`path.function: ${req.params.function} is not a view function`);
      }
      let args: unknown[] = [];
      if (req.query.args !== undefined) {
        let parsed: unknown;
        try {
          parsed = JSON.parse(req.query.args);
        } catch {
          throw invalid('query.args: expected a JSON array');
        }
        if (!Array.isArray(parsed)) throw invalid('query.args: expected a JSON array');
        args = parsed;
      }
      if (!fn.some((f) => (f.inputs?.length ?? 0) === args.length)) {
        throw invalid(
          `query.args: ${req.params.function} takes ${fn.map((f) => f.inputs?.length ?? 0).join(' or ')} argument(s), got ${args.length}`,
        );
      }
      const chainId = req.query.chainId ?? defaultChain;
      let rpcUrl: string;
      try {
        rpcUrl = chainId === deps.indexer?.chainId && deps.indexer.rpcUrl ? deps.indexer.rpcUrl : rpcUrlFor(chainId, config);
      } catch (err) {
        throw invalid(`query.chainId: ${(err as Error).message}`);
      }
      try {
        const client = publicClientForUrl(chainId, rpcUrl, { retryCount: 0 });
        const result = await client.readContract({
          address: getAddress(req.query.address),
          abi,
          functionName: req.params.function,
          args,
        } as never);
        return ok({
          contract: name,
          function: req.params.function,
          address: getAddress(req.query.address),
          chain_id: chainId,
          result: stringify(result),
        });
      } catch (err) {
        if (err instanceof AppError) throw err;
        const e = err as { shortMessage?: string; message?: string };
        return sendError(reply, 'envelope', 500, `read failed: ${e.shortMessage ?? e.message ?? String(err)}`);
      }
    },
  );

  r.get(
    '/api/contract-info/:contract',
    { schema: { params: z.object({ contract: z.string().min(1).max(100) }), querystring: pageQuery.pick({ chainId: true }), tags } },
    async (req) => {
      const name = contractName(req.params.contract);
      if (!name) throw notFound(`contract ${req.params.contract}`);
      const chainId = req.query.chainId ?? defaultChain;
      return ok({ name, abi: CONTRACT_ABIS[name], address: knownContracts(chainId)[name] ?? null, chain_id: chainId });
    },
  );
}
