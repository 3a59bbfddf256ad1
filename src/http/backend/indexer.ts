/**
 * Ownership and indexer routes (docs/indexer.md "Routes"), on the backend and on `atelier
 * indexer`: §4.2 ownership, transfers and indexer status; the indexer package API (§4.4: owner
 * tokens, apps, app tokens, mints, contract reads and info). socket.io for the indexer's events is
 * attached by the process that hosts the app (src/processes/realtime.ts).
 *
 * Every route needs authentication (any credential, §5.1; /api/read spends RPC calls); the
 * socket.io events mirror public chain logs and need none. Handlers parse, call the read service
 * (src/services/indexer-reads.ts) and present. The admin proxy's /api/nft/ownership* forward to
 * the §4.2 routes: their paths and bodies are a contract.
 */
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { ContractReads } from '../../services/contract-reads.ts';
import type { IndexerReads } from '../../services/indexer-reads.ts';
import { requires } from '../plugins/availability.ts';
import * as present from '../present/indexer.ts';
import { collectionIdParams } from '../schemas/common.ts';
import { envelope } from '../schemas/envelope.ts';
import * as s from '../schemas/indexer.ts';
import { deckIdParams } from '../schemas/minting.ts';

export interface IndexerRoutesOptions {
  /** Ownership, transfers, status and the package API's reads (over this process's indexer, if any). */
  reads: IndexerReads;
  /** Contract reads and info (RPC and contracts of the indexed chain). */
  contracts: ContractReads;
}

const ok = <T>(data: T) => ({ data, error: null });
const page = (q: { limit?: number; offset?: number }) => ({ limit: q.limit ?? 100, offset: q.offset ?? 0 });

/** Registered with `app.register(indexerRoutes, options)`. */
export async function indexerRoutes(app: FastifyInstance, opts: IndexerRoutesOptions): Promise<void> {
  await app.register(ownershipRoutes, { reads: opts.reads });
  await app.register(indexerApiRoutes, { reads: opts.reads });
  await app.register(contractRoutes, { contracts: opts.contracts });
}

/** §4.2: a collection's token owners, a deck's transfers, the indexer status. */
async function ownershipRoutes(app: FastifyInstance, { reads }: { reads: IndexerReads }) {
  const r = app.withTypeProvider<ZodTypeProvider>();
  const tags = ['ownership'];

  r.get(
    '/nft/collections/:collectionId/ownership',
    {
      schema: {
        summary: 'Token owners of a collection',
        description:
          'The decks of the collection that have a token id, by token id, with the current owner and the time of the last transfer as indexed from Transfer events. 404 for an unknown collection.',
        operationId: 'getCollectionOwnership',
        tags,
        params: collectionIdParams,
        response: { 200: envelope(z.array(s.ownershipToken)) },
      },
    },
    async (req) => ok((await reads.collectionOwnership(req.params.collectionId)).map(present.presentOwnershipToken)),
  );

  r.get(
    '/nft/decks/:deckId/transfers',
    {
      schema: {
        summary: 'Transfers of a deck’s token',
        description:
          'Every indexed Transfer of the deck’s token, newest first (block number, then log index, descending); a mint is a transfer from the zero address. 404 for an unknown deck.',
        operationId: 'getDeckTransfers',
        tags,
        params: deckIdParams,
        response: { 200: envelope(z.array(s.transferRecord)) },
      },
    },
    async (req) => {
      const { deck, transfers } = await reads.deckTransfers(req.params.deckId);
      return ok(transfers.map((t) => present.presentTransfer(t, deck)));
    },
  );

  r.get(
    '/nft/indexer/status',
    {
      schema: {
        summary: 'Indexer status',
        description:
          'The ownership indexer’s state for the configured chain (status idle, indexing or reindexing; last indexed block) and, when it runs in this process, the watchdog’s live view (head, lag, behind, stalled, warnings).',
        operationId: 'getIndexerStatus',
        tags,
        response: { 200: envelope(s.indexerStateView) },
      },
    },
    async () => ok(present.presentIndexerStatus(await reads.status())),
  );
}

/** §4.4 lists over the indexed tables. */
async function indexerApiRoutes(app: FastifyInstance, { reads }: { reads: IndexerReads }) {
  const r = app.withTypeProvider<ZodTypeProvider>();
  const tags = ['indexer'];
  const chainOf = (q: { chainId?: number }) => q.chainId ?? reads.defaultChain;

  r.get(
    '/api/owner-tokens',
    {
      schema: {
        summary: 'List owner tokens',
        description:
          'One owner token per collection created by the factory (its ownership, from OwnershipTransferred), newest mint first. Paged by limit (1–1000, default 100) and offset; chainId defaults to the configured chain.',
        operationId: 'listOwnerTokens',
        tags,
        querystring: s.pageQuery,
        response: { 200: envelope(z.array(s.ownerToken)) },
      },
    },
    async (req) => {
      const chainId = chainOf(req.query);
      return ok((await reads.ownerTokens(chainId, page(req.query))).map((t) => present.presentOwnerToken(t, chainId)));
    },
  );

  r.get(
    '/api/owner-tokens/:id',
    {
      schema: {
        summary: 'Get an owner token',
        description: 'The owner token of a collection (id = the collection’s address) with its transfers, newest first. 404 when unknown.',
        operationId: 'getOwnerToken',
        tags,
        params: s.ownerTokenParams,
        querystring: s.chainQuery,
        response: { 200: envelope(s.ownerTokenDetail) },
      },
    },
    async (req) => {
      const chainId = chainOf(req.query);
      const { token, transfers } = await reads.ownerToken(chainId, req.params.id);
      return ok({ ...present.presentOwnerToken(token, chainId), transfers: transfers.map(present.presentOwnerTokenTransfer) });
    },
  );

  r.get(
    '/api/apps',
    {
      schema: {
        summary: 'List apps',
        description:
          'Collections created by the factory, newest first, with totalMinted (the count of mint transfers), the current owner and the platform’s collection id when it has a record. Paged by limit and offset.',
        operationId: 'listApps',
        tags,
        querystring: s.pageQuery,
        response: { 200: envelope(z.array(s.app)) },
      },
    },
    async (req) => ok((await reads.apps(chainOf(req.query), page(req.query))).map(present.presentApp)),
  );

  r.get(
    '/api/apps/:appId',
    {
      schema: {
        summary: 'Get an app',
        description: 'One collection created by the factory, by address, with totalMinted and its owner. 404 when unknown.',
        operationId: 'getApp',
        tags,
        params: s.appParams,
        querystring: s.chainQuery,
        response: { 200: envelope(s.app) },
      },
    },
    async (req) => ok(present.presentApp(await reads.app(chainOf(req.query), req.params.appId))),
  );

  r.get(
    '/api/app-tokens',
    {
      schema: {
        summary: 'List app tokens',
        description:
          'The collections’ NFTs with their current owner and mint, by collection address and token id; appAddress limits the list to one collection. Paged by limit and offset.',
        operationId: 'listAppTokens',
        tags,
        querystring: s.appListQuery,
        response: { 200: envelope(z.array(s.appToken)) },
      },
    },
    async (req) => ok((await reads.appTokens(chainOf(req.query), page(req.query), req.query.appAddress)).map(present.presentAppToken)),
  );

  r.get(
    '/api/app-tokens/:appId',
    {
      schema: {
        summary: 'List the tokens of an app',
        description: 'The NFTs of one collection with their current owner and mint, by token id. 404 when the collection is unknown.',
        operationId: 'listAppTokensOfApp',
        tags,
        params: s.appParams,
        querystring: s.pageQuery,
        response: { 200: envelope(z.array(s.appToken)) },
      },
    },
    async (req) => ok((await reads.appTokensOf(chainOf(req.query), req.params.appId, page(req.query))).map(present.presentAppToken)),
  );

  r.get(
    '/api/app-token-mints',
    {
      schema: {
        summary: 'List app token mints',
        description:
          'Mint calls (a run of consecutive token ids minted to one recipient in one transaction: start token id and quantity), newest first; appAddress limits the list to one collection.',
        operationId: 'listAppTokenMints',
        tags,
        querystring: s.appListQuery,
        response: { 200: envelope(z.array(s.appTokenMint)) },
      },
    },
    async (req) => ok((await reads.mints(chainOf(req.query), page(req.query), req.query.appAddress)).map(present.presentMint)),
  );

  r.get(
    '/api/app-token-mints/:appId',
    {
      schema: {
        summary: 'List the mints of an app',
        description: 'Mint calls of one collection, newest first. 404 when the collection is unknown.',
        operationId: 'listAppTokenMintsOfApp',
        tags,
        params: s.appParams,
        querystring: s.pageQuery,
        response: { 200: envelope(z.array(s.appTokenMint)) },
      },
    },
    async (req) => ok((await reads.mintsOf(chainOf(req.query), req.params.appId, page(req.query))).map(present.presentMint)),
  );
}

/** §4.4 direct contract reads (need a chain) and contract info. */
async function contractRoutes(app: FastifyInstance, { contracts }: { contracts: ContractReads }) {
  const r = app.withTypeProvider<ZodTypeProvider>();
  const tags = ['indexer'];

  r.get(
    '/api/contract-info/:contract',
    {
      schema: {
        summary: 'Contract ABI and address',
        description:
          'The ABI of a platform contract by name (Collection = every facet merged, DiamondFactory, each facet, CollectionInit, DiamondRouter; app = Collection) and its address from the chain’s deployment record (null for Collection). 404 for an unknown name.',
        operationId: 'getContractInfo',
        tags,
        params: s.contractParams,
        querystring: s.chainQuery,
        response: { 200: envelope(s.contractInfo) },
      },
    },
    async (req) => ok(present.presentContractInfo(contracts.info(req.params.contract, req.query.chainId ?? contracts.defaultChain))),
  );

  await app.register(async (scope) => {
    requires(scope, () => contracts.canReadChain(), 'contract reads need a chain: set NFT_RPC_URL (or run the dev chain)');
    scope.withTypeProvider<ZodTypeProvider>().get(
      '/api/read/:contract/:function',
      {
        schema: {
          summary: 'Read a contract',
          description:
            'Calls a view function of a named ABI at `address` with `args` (a JSON array) and returns the result as a string (bigints in decimal, tuples as JSON). 400: missing or invalid address, args not a JSON array, wrong argument count, not a view function. 400 also when the call reverts (the reason is named) or the address returns no data (no contract there, or another kind). 404: unknown contract or function. 502: the chain’s RPC node failed.',
          operationId: 'readContract',
          tags,
          params: s.readParams,
          querystring: s.readQuery,
          response: { 200: envelope(s.contractRead) },
        },
      },
      async (req) =>
        ok(
          await contracts.read({
            contract: req.params.contract,
            function: req.params.function,
            address: req.query.address,
            args: req.query.args,
            chainId: req.query.chainId ?? contracts.defaultChain,
          }),
        ),
    );
  });
}
