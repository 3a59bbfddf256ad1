/**
 * The admin proxy's database operations (docs/api/nft.md §4.1): each is forwarded to a backend
 * route over HTTP — the operator's with the service key (and the user_id it names), a signed-in
 * user's with that user's own credential, so the backend authorizes the user as the user
 * (`actingAs`; docs/auth.md "The admin proxy"). One table declares them all:
 * method and admin path, request schema (shared with the backend, src/http/schemas/), the backend
 * route it calls, and the answer `{success: true, …}` built from the backend's `data` (the table's
 * shape and shared helpers: forward-table.ts; the console's views: forwards-views.ts). Backend
 * errors keep their status and message (backend-client.ts).
 */
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { forbidden } from '../../domain/errors.ts';
import { can } from '../../domain/policy.ts';
import { assertUploadSize, decodedLength } from '../../domain/uploads.ts';
import { exampleOf } from '../plugins/openapi.ts';
import { EXAMPLE_ID, EXAMPLE_PNG_BASE64, withExample } from '../schemas/examples.ts';
import { indexerStateView, ownershipToken, transferRecord } from '../schemas/indexer.ts';
import { relType, uploadFilename, uploadResult } from '../schemas/uploads.ts';
import {
  collectionWithParams,
  createCollectionBody,
  generateCollectionBody,
  generateCollectionResult,
  updateCollectionBody,
} from '../schemas/collections.ts';
import { uuid } from '../schemas/common.ts';
import { adminSuccess } from '../schemas/envelope.ts';
import { mintAndGenerateBody, mintAndGenerateResult, mintsList } from '../schemas/minting.ts';
import { exportView, freezeView } from '../schemas/permanence.ts';
import { SALE_EXAMPLE, saleSettingsBody, saleState } from '../schemas/sale.ts';
import { sample, sampleAllowance, samplesBody, startedSample } from '../schemas/samples.ts';
import { walletHealthList, walletHealthQuery } from '../schemas/wallet-health.ts';
import type { AdminDeps } from './deps.ts';
import { actingAs, byCollection, collectionId, type Forward, forward, type Input, plusCollection } from './forward-table.ts';
import { VIEW_FORWARDS } from './forwards-views.ts';
import { WEBHOOK_FORWARDS } from './forwards-webhooks.ts';

const byCollectionAndWallet = byCollection.extend({ wallet_address: samplesBody.shape.wallet_address.optional() });

const IMAGE_TYPES = ['image/png', 'image/jpeg', 'image/webp', 'image/gif'] as const;

export const FORWARDS: Forward[] = [
  // ---- collections ----
  forward({
    method: 'POST',
    url: '/api/nft/collections/create',
    operationId: 'adminCreateCollection',
    summary: 'Create a collection',
    description: 'Forwarded to POST /nft/collections: the record (owned by the user_id sent, else the platform) and its contractParams.',
    tags: ['collections'],
    input: createCollectionBody,
    backend: (body, req) => ({ method: 'POST', path: 'nft/collections', body, userId: req.auth.userId }),
    response: collectionWithParams,
  }),
  forward({
    method: 'POST',
    url: '/api/nft/collections/generate',
    operationId: 'adminGenerateCollection',
    summary: 'Generate a collection definition from a concept',
    description: 'Forwarded to POST /nft/collections/generate; with save: true the collection is created and collection_id returned.',
    tags: ['collections'],
    input: generateCollectionBody,
    backend: (body, req) => ({ method: 'POST', path: 'nft/collections/generate', body, userId: req.auth.userId }),
    response: generateCollectionResult,
  }),
  forward({
    method: 'GET',
    url: '/api/nft/collections/lookup',
    operationId: 'adminLookupCollection',
    summary: 'Look a collection up',
    description: 'Forwarded to GET /nft/collections/:id: the record with its deployment state and contractParams.',
    tags: ['collections'],
    input: byCollection,
    backend: (q) => ({ method: 'GET', path: `nft/collections/${q.collectionId}` }),
    response: collectionWithParams,
  }),
  forward({
    method: 'PUT',
    url: '/api/nft/collections/update',
    operationId: 'adminUpdateCollection',
    summary: 'Update a collection',
    description: 'Forwarded to PUT /nft/collections/:id with the other fields (at least one).',
    tags: ['collections'],
    input: updateCollectionBody.extend({ collectionId }).meta(plusCollection(updateCollectionBody)),
    backend: ({ collectionId, ...patch }, req) => ({
      method: 'PUT',
      path: `nft/collections/${collectionId}`,
      body: patch,
      userId: req.auth.userId,
    }),
    response: collectionWithParams,
  }),
  forward({
    method: 'POST',
    url: '/api/nft/collections/reset',
    operationId: 'adminResetCollection',
    summary: 'Reset a collection whose contract is gone',
    description: 'Forwarded to POST /nft/collections/:id/reset: 409 while the contract still has code on its chain.',
    tags: ['collections'],
    input: byCollection,
    backend: (b, req) => ({ method: 'POST', path: `nft/collections/${b.collectionId}/reset`, userId: req.auth.userId }),
    response: collectionWithParams,
  }),
  forward({
    method: 'PUT',
    url: '/api/nft/collections/sale',
    operationId: 'adminConfigureSale',
    summary: "Configure the collection contract's on-chain sale",
    description:
      'Forwarded to PUT /nft/collections/:id/sale: setSale through the platform wallet, or 409 OWNER_MUST_SIGN with the call for a creator-owned contract.',
    tags: ['minting'],
    input: withExample(saleSettingsBody.safeExtend({ collectionId }), {
      collectionId: EXAMPLE_ID.collection,
      ...SALE_EXAMPLE,
    } as never),
    backend: ({ collectionId, ...body }, req) => ({
      method: 'PUT',
      path: `nft/collections/${collectionId}/sale`,
      body,
      userId: req.auth.userId,
    }),
    response: saleState,
  }),
  forward({
    method: 'GET',
    url: '/api/nft/collections/sale',
    operationId: 'adminReadSale',
    summary: "Read the collection contract's on-chain sale",
    description: 'Forwarded to GET /nft/collections/:id/sale.',
    tags: ['minting'],
    input: byCollection,
    backend: (q) => ({ method: 'GET', path: `nft/collections/${q.collectionId}/sale` }),
    response: saleState,
  }),
  // ---- permanence (docs/permanence.md) ----
  forward({
    method: 'POST',
    url: '/api/nft/collections/export',
    operationId: 'adminExportCollection',
    summary: 'Export the collection as a content-addressed bundle (CAR)',
    description:
      'Forwarded to POST /nft/collections/:id/export: 202 with the export record, built in the background (poll GET /api/nft/collections/export until ready); 409 SALE_OPEN naming why.',
    tags: ['permanence'],
    input: byCollection,
    backend: (b, req) => ({ method: 'POST', path: `nft/collections/${b.collectionId}/export`, userId: req.auth.userId }),
    response: exportView,
    status: 202,
  }),
  forward({
    method: 'GET',
    url: '/api/nft/collections/export',
    operationId: 'adminReadCollectionExport',
    summary: "The collection's newest export",
    description: 'Forwarded to GET /nft/collections/:id/export: status, root_cid, car_url, gateway_url; 404 before any export.',
    tags: ['permanence'],
    input: byCollection,
    backend: (q) => ({ method: 'GET', path: `nft/collections/${q.collectionId}/export` }),
    response: exportView,
  }),
  forward({
    method: 'POST',
    url: '/api/nft/collections/freeze',
    operationId: 'adminFreezeCollection',
    summary: "Freeze the contract's metadata at the collection's bundle (irreversible)",
    description:
      'Forwarded to POST /nft/collections/:id/freeze: setMaxSupply(totalSupply) when maxSupply is above it, setBaseURI, setContractURI and freezeMetadata() through the platform wallet (200 once mined), or 409 OWNER_MUST_SIGN with the calls for a creator-owned contract; 409 NOT_EXPORTED, SALE_OPEN, EXPORT_STALE, TOKENS_NOT_FOLLOWED, ALREADY_FROZEN, FREEZE_IN_PROGRESS.',
    tags: ['permanence'],
    input: byCollection,
    backend: (b, req) => ({ method: 'POST', path: `nft/collections/${b.collectionId}/freeze`, userId: req.auth.userId }),
    response: freezeView,
  }),
  ...VIEW_FORWARDS,
  ...WEBHOOK_FORWARDS,
  forward({
    method: 'GET',
    url: '/api/nft/wallet-health',
    operationId: 'adminWalletHealth',
    summary: "The platform wallet's balance per chain",
    description:
      "Forwarded to GET /api/wallet-health: the platform wallet's address, balance, low-balance threshold and whether it is low on each chain, as the wallet-health duty last read them. The operator only.",
    tags: ['operations'],
    input: walletHealthQuery,
    backend: () => ({ method: 'GET', path: 'api/wallet-health' }),
    response: walletHealthList,
  }),

  // ---- minting and samples ----
  forward({
    method: 'POST',
    url: '/api/nft/mint',
    operationId: 'adminMint',
    summary: 'Mint a token and generate its artwork',
    description:
      'Forwarded to POST /nft/collections/:id/mint-and-generate with the Idempotency-Key header: the mint (token id from the receipt) and the generation started.',
    tags: ['minting'],
    input: mintAndGenerateBody
      .omit({ chainId: true, tx_hash: true, merkle_proof: true })
      .extend({ collectionId })
      .meta(plusCollection(mintAndGenerateBody)),
    backend: ({ collectionId, ...body }, req) => ({
      method: 'POST',
      path: `nft/collections/${collectionId}/mint-and-generate`,
      body,
      userId: req.auth.userId,
      idempotent: true,
    }),
    response: mintAndGenerateResult,
    status: 201,
  }),
  forward({
    method: 'GET',
    url: '/api/nft/mint',
    operationId: 'adminListMints',
    summary: 'Minted tokens of a collection',
    description: 'Forwarded to GET /nft/collections/:id/mints, by token id.',
    tags: ['minting'],
    input: byCollection,
    backend: (q) => ({ method: 'GET', path: `nft/collections/${q.collectionId}/mints` }),
    response: mintsList,
  }),
  forward({
    method: 'POST',
    url: '/api/nft/samples',
    operationId: 'adminRequestSamples',
    summary: 'Request samples',
    description: 'Forwarded to POST /nft/collections/:id/samples (free allowance, or a stablecoin payment with tx_hash).',
    tags: ['samples'],
    input: samplesBody.extend({ collectionId }).meta(plusCollection(samplesBody)),
    backend: ({ collectionId, ...body }, req) => ({
      method: 'POST',
      path: `nft/collections/${collectionId}/samples`,
      body,
      userId: req.auth.userId,
    }),
    response: { samples: z.array(startedSample) },
    answer: (data) => ({ samples: (data as { samples: unknown[] }).samples }),
    status: 201,
  }),
  forward({
    method: 'GET',
    url: '/api/nft/samples',
    operationId: 'adminListSamples',
    summary: 'Samples of a collection',
    description: 'Forwarded to GET /nft/collections/:id/samples, optionally one wallet.',
    tags: ['samples'],
    input: byCollectionAndWallet,
    backend: (q) => ({ method: 'GET', path: `nft/collections/${q.collectionId}/samples`, query: { wallet_address: q.wallet_address } }),
    response: { samples: z.array(sample) },
    answer: (data) => ({ samples: (data as { samples: unknown[] }).samples }),
  }),
  forward({
    method: 'GET',
    url: '/api/nft/sample-status',
    operationId: 'adminSampleStatus',
    summary: 'Free-sample allowance',
    description: 'Forwarded to GET /nft/collections/:id/sample-status for the user_id sent, or the wallet.',
    tags: ['samples'],
    input: byCollectionAndWallet,
    backend: (q, req) => ({
      method: 'GET',
      path: `nft/collections/${q.collectionId}/sample-status`,
      query: { wallet_address: q.wallet_address },
      userId: req.auth.userId,
    }),
    response: sampleAllowance.shape,
  }),

  // ---- ownership (the backend's indexer routes) ----
  forward({
    method: 'GET',
    url: '/api/nft/ownership',
    operationId: 'adminOwnership',
    summary: 'Current owners of a collection',
    description: 'Forwarded to GET /nft/collections/:id/ownership: one entry per token.',
    tags: ['ownership'],
    input: byCollection,
    backend: (q) => ({ method: 'GET', path: `nft/collections/${q.collectionId}/ownership` }),
    response: { tokens: z.array(ownershipToken) },
    answer: (tokens) => ({ tokens }),
  }),
  forward({
    method: 'GET',
    url: '/api/nft/ownership/transfers',
    operationId: 'adminTransfers',
    summary: 'Transfers of a token',
    description: 'Forwarded to GET /nft/decks/:deckId/transfers.',
    tags: ['ownership'],
    input: z.object({ deckId: withExample(uuid, EXAMPLE_ID.deck) }),
    backend: (q) => ({ method: 'GET', path: `nft/decks/${q.deckId}/transfers` }),
    response: { transfers: z.array(transferRecord) },
    answer: (transfers) => ({ transfers }),
  }),
  forward({
    method: 'GET',
    url: '/api/nft/ownership/indexer-status',
    operationId: 'adminIndexerStatus',
    summary: 'Indexer status',
    description: 'Forwarded to GET /nft/indexer/status.',
    tags: ['ownership'],
    input: z.object({}),
    backend: () => ({ method: 'GET', path: 'nft/indexer/status' }),
    response: { state: indexerStateView },
    answer: (state) => ({ state }),
  }),

  // ---- uploads ----
  forward({
    method: 'POST',
    url: '/api/nft/upload-image',
    operationId: 'adminUploadImage',
    summary: 'Upload an image',
    description:
      'Forwarded to POST /upload-base64 with create_flat_file true; images only. The answer path is what variable values store. Owner: userId, else the user_id sent.',
    tags: ['uploads'],
    input: z
      .object({
        base64Data: z.string().min(1, 'required'),
        mimeType: z
          .string()
          .trim()
          .toLowerCase()
          .pipe(z.enum(IMAGE_TYPES, { message: `expected one of ${IMAGE_TYPES.join(', ')}` }))
          .optional(),
        filename: uploadFilename.optional(),
        /** Owner of the file; default the user_id the caller sends. */
        userId: uuid.optional(),
        rel_type: relType.default('nft_ref_image'),
      })
      .meta({ example: { base64Data: EXAMPLE_PNG_BASE64, mimeType: 'image/png', filename: 'fox-reference.png' } }),
    check: (b, req) => {
      // A user uploads for themselves: naming another owner is the operator's (record.create_for_other).
      if (b.userId && req.caller.kind === 'user' && b.userId !== req.caller.userId && !can(req.caller, 'record.create_for_other'))
        throw forbidden('body.userId: only the operator (service key) uploads for another user');
      assertUploadSize(decodedLength(b.base64Data));
    },
    backend: ({ userId, ...rest }, req) => ({
      method: 'POST',
      path: 'upload-base64',
      body: { ...rest, create_flat_file: true },
      userId: userId ?? req.auth.userId,
    }),
    response: uploadResult,
  }),
];

export async function adminForwardRoutes(app: FastifyInstance, deps: AdminDeps) {
  const r = app.withTypeProvider<ZodTypeProvider>();
  for (const f of FORWARDS) {
    const status = f.status ?? 200;
    const fields = f.response instanceof z.ZodObject ? f.response.shape : f.response;
    const example = f.response instanceof z.ZodObject ? exampleOf(f.response, 'output') : undefined;
    const answer = adminSuccess(fields);
    r.route({
      method: f.method,
      url: f.url,
      schema: {
        operationId: f.operationId,
        summary: f.summary,
        description: f.description,
        tags: f.tags,
        ...(f.method === 'GET' ? { querystring: f.input } : { body: f.input }),
        response: { [status]: example === undefined ? answer : answer.meta({ example: { success: true, ...(example as object) } }) },
      },
      handler: async (req, reply) => {
        const input = (f.method === 'GET' ? req.query : req.body) as Input;
        f.check?.(input, req);
        const call = f.backend(input, req);
        const key = req.headers['idempotency-key'];
        const data = await deps.backend.call(call.method, call.path, {
          body: call.body,
          query: call.query,
          // Reads without a user_id still go as the caller: a user's reads are the user's.
          ...actingAs(req, call.userId ?? null),
          headers: call.idempotent && typeof key === 'string' ? { 'idempotency-key': key } : {},
        });
        return reply.code(status).send({ success: true, ...(f.answer ? f.answer(data) : (data as Record<string, unknown>)) });
      },
    });
  }
}
