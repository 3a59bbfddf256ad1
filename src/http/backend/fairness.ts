/**
 * Fair seeds and receipts (docs/fairness.md): the reveal of a collection's seed secret (owner or
 * operator, through the fair-seed service and domain/policy.ts) and a token's public receipt.
 */
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { requires } from '../plugins/availability.ts';
import { collectionIdParams, ok } from '../schemas/common.ts';
import { envelope } from '../schemas/envelope.ts';
import { tokenMintParams } from '../schemas/minting.ts';
import type { NftRouteOptions } from './collections.ts';

const tags = ['fairness'];
const NO_CHAIN = 'chain operations are not available: this backend has no chain configured';

const revealResult = z.object({
  collection_id: z.string(),
  chain_id: z.number(),
  contract_address: z.string(),
  commitment: z.string(),
  secret: z.string(),
  reveal_tx_hash: z.string().nullable(),
});

export async function fairnessRoutes(app: FastifyInstance, { nft }: NftRouteOptions) {
  await app.register(async (scope) => {
    requires(scope, () => nft.has.mintingChain, NO_CHAIN);
    scope.withTypeProvider<ZodTypeProvider>().post(
      '/nft/collections/:collectionId/reveal',
      {
        schema: {
          operationId: 'revealSeed',
          summary: "Publish the collection's seed secret on chain",
          description:
            "Owner or operator. Sends reveal(secret) to the collection's contract, which checks it against the commitment; from then on anyone can recompute every token's seed (docs/fairness.md). Repeating it answers the same reveal.",
          tags,
          params: collectionIdParams,
          response: { 200: envelope(revealResult) },
        },
      },
      async (req) => ok(await nft.fairness.reveal(req.caller, req.params.collectionId)),
    );
  });

  app.withTypeProvider<ZodTypeProvider>().get(
    '/collections/:collectionId/tokens/:tokenId/receipt',
    {
      config: { public: true },
      schema: {
        operationId: 'getTokenReceipt',
        summary: "A token's generation receipt",
        description:
          'Public. How the artwork was made: seed and its inputs, resolved variables and who chose each, prompts, workflow, connector, output hashes (docs/fairness.md "Receipts"). 409 ARTWORK_PENDING until the artwork completes.',
        tags,
        params: tokenMintParams,
      },
    },
    async (req, reply) => {
      const receipt = await nft.receipts.receipt(req.params.collectionId, req.params.tokenId);
      return reply.header('access-control-allow-origin', '*').header('cache-control', 'public, max-age=60').send(receipt);
    },
  );
}
