/**
 * Backend minting routes (docs/api/nft.md §3 Minting, §4.2, §4.3; docs/minting.md): mint-and-generate,
 * the backend/design-stage mint, the per-token mint (all three under the Idempotency-Key
 * protocol), new artwork for a token, and the token reads. Availability is decided per plugin
 * scope: mints need the chain, artwork needs the job queue.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { requires } from '../plugins/availability.ts';
import { senderKey, useIdempotency } from '../plugins/idempotency.ts';
import { presentMint, presentMints, presentMintStatus } from '../present/minting.ts';
import { collectionIdParams, ok } from '../schemas/common.ts';
import { envelope } from '../schemas/envelope.ts';
import {
  deckIdParams,
  mintAndGenerateBody,
  mintAndGenerateResult,
  mintBody,
  mintResult,
  mintStatusResult,
  mintsList,
  regenerateBody,
  regenerateResult,
  tokenMintParams,
} from '../schemas/minting.ts';
import type { NftRouteOptions } from './collections.ts';

const tags = ['minting'];
const NO_CHAIN = 'chain operations are not available: this backend has no chain configured';
const NO_QUEUE = 'generation is not available: this backend has no job queue configured';
const IDEMPOTENT = ' Send an Idempotency-Key header to make retries safe: a repeat gets the first answer (idempotent-replayed: true).';

/** One log line per mint (the shared format: logging/log-lines.ts), with the ids an operator looks for. */
function logMinted(req: FastifyRequest, collectionId: string, m: { tokenIds: number[]; txHash: string; deckIds: string[] }) {
  req.log.info({ collection_id: collectionId, token_ids: m.tokenIds, tx_hash: m.txHash, deck_ids: m.deckIds }, 'minted');
}

export async function mintingRoutes(app: FastifyInstance, { nft }: NftRouteOptions) {
  const r = app.withTypeProvider<ZodTypeProvider>();

  await app.register(async (scope) => {
    requires(scope, () => nft.has.mintingChain, NO_CHAIN);
    requires(scope, () => nft.has.generation, NO_QUEUE);
    useIdempotency(scope, nft.idempotency);
    scope.withTypeProvider<ZodTypeProvider>().post(
      '/nft/collections/:collectionId/mint-and-generate',
      {
        config: { idempotency: 'mint-and-generate' },
        schema: {
          operationId: 'mintAndGenerate',
          summary: 'Mint a token and generate its artwork',
          description: `Mints one token to the recipient through the platform wallet (token id from the receipt), then starts its artwork; poll GET /nft/decks/:deckId/mint-status.${IDEMPOTENT}`,
          tags,
          params: collectionIdParams,
          body: mintAndGenerateBody,
          response: { 201: envelope(mintAndGenerateResult) },
        },
      },
      async (req, reply) => {
        const res = await nft.minting.mintAndGenerate(req.caller, req.params.collectionId, req.body, senderKey(req));
        req.log.info(
          {
            collection_id: req.params.collectionId,
            token_ids: [res.mint.tokenId],
            tx_hash: res.mint.txHash,
            deck_ids: [res.mint.deckId],
            job_id: res.generation.jobId,
          },
          'minted',
        );
        return reply.code(201).send(ok({ mint: res.mint, generation: { ...res.generation, status: 'generating' as const } }));
      },
    );
  });

  await app.register(async (scope) => {
    requires(scope, () => nft.has.mintingChain, NO_CHAIN);
    useIdempotency(scope, nft.idempotency);
    const s = scope.withTypeProvider<ZodTypeProvider>();
    s.post(
      '/nft/collections/:collectionId/mint',
      {
        config: { idempotency: 'mint' },
        schema: {
          operationId: 'mintTokens',
          summary: 'Mint tokens (backend and design-stage bodies)',
          description: `§4.2 {recipient, chainId?, outputId?} or §4.3 {recipient_address, quantity 1–100}. With outputId the output becomes the token's artwork; without it each token's artwork is generated from the collection (a job per token, as mint-and-generate). 409 beyond the max supply.${IDEMPOTENT}`,
          tags,
          params: collectionIdParams,
          body: mintBody,
          response: { 201: envelope(mintResult) },
        },
      },
      async (req, reply) => {
        const res = await nft.minting.mint(req.caller, req.params.collectionId, req.body, senderKey(req));
        logMinted(req, req.params.collectionId, res);
        return reply.code(201).send(ok(presentMint(res)));
      },
    );
    s.post(
      '/nft/collections/:collectionId/tokens/:tokenId/mint',
      {
        config: { idempotency: 'token-mint' },
        schema: {
          operationId: 'mintNextToken',
          summary: 'Mint the next token id',
          description: `Token ids are sequential: 409 NOT_NEXT_TOKEN (with next_token_id) unless :tokenId is the next one. A caller that loses a race gets the ids it really got in token_ids.${IDEMPOTENT}`,
          tags,
          params: tokenMintParams,
          body: mintBody,
          response: { 201: envelope(mintResult) },
        },
      },
      async (req, reply) => {
        const { collectionId, tokenId } = req.params;
        const res = await nft.minting.mintToken(req.caller, collectionId, tokenId, req.body, senderKey(req));
        logMinted(req, collectionId, res);
        return reply.code(201).send(ok({ ...presentMint(res), requested_token_id: tokenId }));
      },
    );
  });

  await app.register(async (scope) => {
    requires(scope, () => nft.has.generation, NO_QUEUE);
    scope.withTypeProvider<ZodTypeProvider>().post(
      '/nft/collections/:collectionId/generate',
      {
        schema: {
          operationId: 'regenerateToken',
          summary: 'New artwork for a minted token',
          description:
            'Owner or operator. Starts a generation whose output becomes the token cover when it completes; asset_uri stays null until then. 404 when the token has no deck.',
          tags,
          params: collectionIdParams,
          body: regenerateBody,
          response: { 202: envelope(regenerateResult) },
        },
      },
      async (req, reply) => {
        const res = await nft.minting.regenerate(req.caller, req.params.collectionId, req.body);
        return reply.code(202).send(ok({ ...res, asset_uri: null, status: 'generating' as const }));
      },
    );
  });

  r.get(
    '/nft/decks/:deckId/mint-status',
    {
      schema: {
        operationId: 'getMintStatus',
        summary: 'Mint and artwork state of a token deck',
        description:
          'The deck mint fields and its artwork: generation status (generating, completed, failed, none), job progress, image, error.',
        tags,
        params: deckIdParams,
        response: { 200: envelope(mintStatusResult) },
      },
    },
    async (req) => ok(presentMintStatus(await nft.minting.mintStatus(req.params.deckId))),
  );

  r.get(
    '/nft/collections/:collectionId/mints',
    {
      schema: {
        operationId: 'listMints',
        summary: 'Minted tokens of a collection',
        description: 'Every minted token (deck with a token id), by token id.',
        tags,
        params: collectionIdParams,
        response: { 200: envelope(mintsList) },
      },
    },
    async (req) => ok(presentMints(await nft.minting.listMints(req.params.collectionId))),
  );
}
