/**
 * The on-chain sale of a collection (docs/minting.md "On-chain sale"): PUT configures it (owner or
 * operator; a creator-owned contract gets 409 with the call its owner signs), GET reads it back.
 */
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { collectionIdParams, ok } from '../schemas/common.ts';
import { envelope } from '../schemas/envelope.ts';
import { saleSettingsBody, saleState } from '../schemas/sale.ts';
import type { NftRouteOptions } from './collections.ts';

const tags = ['minting'];

export async function saleRoutes(app: FastifyInstance, { nft }: NftRouteOptions) {
  const r = app.withTypeProvider<ZodTypeProvider>();
  r.put(
    '/nft/collections/:collectionId/sale',
    {
      schema: {
        operationId: 'configureSale',
        summary: "Configure the collection contract's on-chain sale",
        description:
          'Owner or operator. Sends setSale through the platform wallet when it owns the contract; for a creator-owned contract answers 409 OWNER_MUST_SIGN with `call` {to, data} for the owner to send. 409 NOT_DEPLOYED before deployment, NO_SALE_FACET for a contract without the sale facet.',
        tags,
        params: collectionIdParams,
        body: saleSettingsBody,
        response: { 200: envelope(saleState) },
      },
    },
    async (req) => ok(await nft.sale.configure(req.caller, req.params.collectionId, req.body)),
  );
  r.get(
    '/nft/collections/:collectionId/sale',
    {
      schema: {
        operationId: 'readSale',
        summary: "Read the collection contract's on-chain sale",
        description:
          'Any signed-in caller: the sale as the contract holds it (configured, paused, currency, price, window, limit, root, payouts).',
        tags,
        params: collectionIdParams,
        response: { 200: envelope(saleState) },
      },
    },
    async (req) => ok(await nft.sale.read(req.params.collectionId)),
  );
}
