/**
 * Backend sample routes (docs/api/nft.md §2.9, §4.1.2, §4.2; docs/minting.md "Samples"): request
 * samples (free allowance or a verified stablecoin payment), list them, the caller's allowance.
 */
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { requires } from '../plugins/availability.ts';
import { presentSample, successAndEnvelope } from '../present/samples.ts';
import { collectionIdParams } from '../schemas/common.ts';
import { sample, sampleAllowance, samplesBody, startedSample, successAndEnvelope as answer, walletQuery } from '../schemas/samples.ts';
import type { NftRouteOptions } from './collections.ts';

const tags = ['samples'];

export async function sampleRoutes(app: FastifyInstance, { nft }: NftRouteOptions) {
  const r = app.withTypeProvider<ZodTypeProvider>();

  await app.register(async (scope) => {
    requires(scope, () => nft.has.generation, 'generation is not available: this backend has no job queue configured');
    scope.withTypeProvider<ZodTypeProvider>().post(
      '/nft/collections/:collectionId/samples',
      {
        schema: {
          operationId: 'requestSamples',
          summary: 'Request samples of a collection',
          description:
            'count samples (1–10), one generation each, in one deck. Without tx_hash all come from the free allowances (per collection and per user or wallet), else 402 PAYMENT_REQUIRED with the amount due; with tx_hash the stablecoin payment is verified on chain and accepted once (a claim whose request died is resumed by the same payer: resumed true).',
          tags,
          params: collectionIdParams,
          body: samplesBody,
          response: { 201: answer({ samples: z.array(startedSample), resumed: z.boolean().optional() }) },
        },
      },
      async (req, reply) => {
        const res = await nft.samples.request(req.caller, req.params.collectionId, req.body);
        const samples = res.samples.map((g) => ({ ...g, status: 'pending' as const, is_free: res.isFree }));
        return reply.code(201).send(successAndEnvelope({ samples, ...(res.resumed ? { resumed: true } : {}) }));
      },
    );
  });

  r.get(
    '/nft/collections/:collectionId/samples',
    {
      schema: {
        operationId: 'listSamples',
        summary: 'Samples of a collection',
        description:
          'Newest first (up to 100), optionally one wallet: status pending, completed (with url) or failed, and the traits. Requester wallets are shown to the collection owner and the operator (others see their own; filtering by a wallet needs it to be theirs: 403).',
        tags,
        params: collectionIdParams,
        querystring: walletQuery,
        response: { 200: answer({ samples: z.array(sample) }) },
      },
    },
    async (req) => {
      const rows = await nft.samples.list(req.caller, req.params.collectionId, req.query.wallet_address);
      return successAndEnvelope({ samples: rows.map(presentSample) });
    },
  );

  r.get(
    '/nft/collections/:collectionId/sample-status',
    {
      schema: {
        operationId: 'getSampleStatus',
        summary: 'Free-sample allowance of the caller',
        description:
          'Free samples left for the caller (user, or ?wallet_address=), the limits, the paid samples of the collection and the price per sample.',
        tags,
        params: collectionIdParams,
        querystring: walletQuery,
        response: { 200: answer(sampleAllowance.shape) },
      },
    },
    async (req) => successAndEnvelope(await nft.samples.status(req.caller, req.params.collectionId, req.query.wallet_address)),
  );
}
