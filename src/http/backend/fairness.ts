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
import { EXAMPLE_CHAIN, EXAMPLE_ID, EXAMPLE_URL, withExample } from '../schemas/examples.ts';
import { tokenMintParams } from '../schemas/minting.ts';
import type { NftRouteOptions } from './collections.ts';

const tags = ['fairness'];
const NO_CHAIN = 'chain operations are not available: this backend has no chain configured';

const SECRET = '0x5d2f8a41c07e93b6f1a4e28d90c35b7e6a1f04c9d8b27e3a5f6c19d04b8e2a73';
const COMMITMENT = '0x0c4b1f6e2d93a8571e6f0b4c2d9a83e5f17b6c4d2e9a0f3b8c5d1e7a4b6c9f20';
const BLOCK_HASH = '0x9a3c7e1f5b2d8a4c6e0f1b3d5a7c9e2f4b6d8a0c2e4f6a8b0d2f4a6c8e0b2d4f';

const revealResult = withExample(
  z.object({
    collection_id: z.string(),
    chain_id: z.number(),
    contract_address: z.string(),
    commitment: z.string(),
    secret: z.string(),
    reveal_tx_hash: z.string().nullable(),
  }),
  {
    collection_id: EXAMPLE_ID.collection,
    chain_id: EXAMPLE_CHAIN.chainId,
    contract_address: EXAMPLE_CHAIN.collection.toLowerCase(),
    commitment: COMMITMENT,
    secret: SECRET,
    reveal_tx_hash: EXAMPLE_CHAIN.mintTx,
  },
);

/** A token's receipt (domain/receipt.ts TokenReceipt); nested parts as docs/fairness.md "Receipts" lists them. */
const tokenReceipt = withExample(
  z.looseObject({
    version: z.literal(1),
    collection: z.object({ id: z.string(), chain_id: z.number().nullable(), address: z.string().nullable() }),
    token_id: z.number(),
    seed: z.looseObject({ value: z.string().nullable(), word: z.number(), chosen_by: z.string() }),
    variables: z.array(z.looseObject({ name: z.string(), value: z.string(), chosen_by: z.string() })),
    deck: z
      .object({ position: z.number(), offset: z.number(), offset_block: z.number(), provenance_hash: z.string() })
      .optional()
      .describe('exact collections only: the deck position the `deck` variables were dealt from (docs/fairness.md "Exact counts")'),
    prompt: z.string(),
    steps: z.array(z.looseObject({ id: z.number(), prompt: z.string(), seed: z.number() })),
    workflow: z.looseObject({ id: z.string(), name: z.string() }),
    connector: z.looseObject({ name: z.string() }),
    renderer_version: z.string().nullable(),
    output: z.looseObject({ url: z.string(), sha256: z.string(), pixels_sha256: z.string().nullable() }),
  }),
  {
    version: 1,
    collection: { id: EXAMPLE_ID.collection, chain_id: EXAMPLE_CHAIN.chainId, address: EXAMPLE_CHAIN.collection.toLowerCase() },
    token_id: 1,
    seed: {
      value: '0x7be0c2419d3f6a58e1b07c4d92a3f5e86b1d0c7a4e29f3b58d6c1a0e7f4b9d23',
      word: 2078327361,
      chosen_by: 'platform',
      inputs: {
        commitment: COMMITMENT,
        chain_id: EXAMPLE_CHAIN.chainId,
        collection: EXAMPLE_CHAIN.collection,
        token_id: 1,
        block_number: 42,
        block_hash: BLOCK_HASH,
      },
    },
    variables: [
      { name: 'color', value: 'red', chosen_by: 'minter' },
      {
        name: 'animal',
        value: 'fox',
        chosen_by: 'platform',
        options: [
          { value: 'fox', weight: 1 },
          { value: 'owl', weight: 1 },
        ],
      },
    ],
    prompt: 'a red fox',
    steps: [{ id: 1, node_name: 'image', prompt: 'a red fox', seed: 2078327361, width: 512, height: 512, reference_images: [] }],
    workflow: { id: EXAMPLE_ID.workflow, name: 'procedural', type: 'basic', definition_sha256: null },
    connector: { name: 'procedural', models: [], version: null },
    renderer_version: 'atelier-procedural/1',
    output: {
      url: EXAMPLE_URL.image,
      mime_type: 'image/png',
      sha256: '3f1a9c2e7b4d6058a1e3c5f7092b4d6e8f0a1c3e5b7d9f1a3c5e7092b4d6e8f0',
      pixels_sha256: 'c7e91d3b5f2a4068e1c3a5f7b9d1e3f5a7c9e1b3d5f7a9c1e3b5d7f9a1c3e5b7',
    },
  },
);

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
        response: { 200: tokenReceipt },
      },
    },
    async (req, reply) => {
      const receipt = await nft.receipts.receipt(req.params.collectionId, req.params.tokenId);
      return (
        reply
          .header('access-control-allow-origin', '*')
          .header('cache-control', 'public, max-age=60')
          .type('application/json; charset=utf-8')
          // As stored, byte for byte: the exported bundle's receipts/<id>.json is the same text
          // (docs/permanence.md); the schema above documents it and is not re-applied.
          .send(JSON.stringify(receipt) as never)
      );
    },
  );
}
