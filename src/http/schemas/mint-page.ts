/**
 * The public mint page (docs/mint-page.md): its JSON document, the allowlist proof and the page's
 * own parameters. Every parameter is checked; a 400 names it (`params.chainId`, `query.address`).
 */
import { z } from 'zod';
import { address, collectionIdParams, queryInt } from './common.ts';
import { EXAMPLE_CHAIN, EXAMPLE_ID, withExample } from './examples.ts';

export { collectionIdParams };

/**
 * `embed` is checked; other query fields are ignored, not refused: a shared link collects
 * trackers (`?utm_source=…`, `?fbclid=…`) on its way to a collector.
 */
export const mintPageQuery = z.object({
  embed: z.enum(['0', '1'], { message: 'expected 1 (the compact widget) or 0' }).optional(),
});

export const mintPageByAddressParams = z.object({
  chainId: queryInt(1, 2 ** 53 - 1),
  address: withExample(address, EXAMPLE_CHAIN.collection),
});

export const allowlistProofQuery = z.object({ address: withExample(address, EXAMPLE_CHAIN.collector) }).strict();

const nullableString = z.string().nullable();

export const mintPageDocument = withExample(
  z.object({
    id: z.string(),
    title: z.string(),
    description: z.string(),
    cover_image_url: nullableString,
    chain_id: z.number().nullable(),
    contract_address: nullableString,
    minted: z.number().describe("the contract's totalSupply (the record's count without a chain)"),
    max_supply: z.number(),
    sale: z
      .object({
        configured: z.boolean(),
        paused: z.boolean(),
        currency: z.string().describe('"native" or the ERC-20 address'),
        price: z.string().describe("per token, in the currency's smallest unit"),
        start: nullableString,
        end: nullableString,
        max_per_wallet: z.number().nullable(),
        merkle_root: nullableString,
      })
      .nullable()
      .describe("the contract's saleConfig(); null when it cannot be read (sale_error says why)"),
    sale_error: nullableString,
    choices: z
      .array(
        z.object({
          name: z.string(),
          display_name: z.string(),
          kind: z.enum(['preset', 'custom']).describe('preset: one of `presets`; custom: free text'),
          presets: z.array(z.object({ value: z.string(), display_name: z.string() })),
        }),
      )
      .describe('what a buyer may put in purchase(..., data) as UTF-8 JSON {name: value}'),
    fairness: z.object({
      committed: z.boolean(),
      commitment: nullableString,
      revealed: z.boolean(),
      secret: nullableString,
    }),
    latest_mints: z.array(
      z.object({
        token_id: z.number(),
        image: nullableString.describe('null until the artwork completes'),
        minted_at: nullableString,
        owner: nullableString,
        traits: z.array(z.object({ trait_type: z.string(), value: z.union([z.string(), z.number()]) })),
      }),
    ),
  }),
  {
    id: EXAMPLE_ID.collection,
    title: 'Night Foxes',
    description: 'Foxes under a city moon.',
    cover_image_url: null,
    chain_id: EXAMPLE_CHAIN.chainId,
    contract_address: EXAMPLE_CHAIN.collection,
    minted: 2,
    max_supply: 50,
    sale: {
      configured: true,
      paused: false,
      currency: 'native',
      price: '1000000000000000',
      start: null,
      end: null,
      max_per_wallet: 5,
      merkle_root: null,
    },
    sale_error: null,
    choices: [{ name: 'color', display_name: 'Color', kind: 'preset', presets: [{ value: 'red', display_name: 'Red' }] }],
    fairness: { committed: true, commitment: EXAMPLE_CHAIN.blockHash, revealed: false, secret: null },
    latest_mints: [{ token_id: 2, image: null, minted_at: '2026-01-05T10:00:00.000000Z', owner: EXAMPLE_CHAIN.collector, traits: [] }],
  },
);

export const allowlistProof = withExample(
  z.object({
    address: z.string(),
    allowed: z.boolean(),
    proof: z.array(z.string()).describe('the sibling hashes from the leaf up: purchase(..., proof, ...)'),
    merkle_root: nullableString.describe("the sale's root on chain"),
    list_root: nullableString.describe("the root of the collection's address list"),
    matches_sale: z.boolean().nullable(),
    reason: z.string(),
  }),
  {
    address: EXAMPLE_CHAIN.collector,
    allowed: true,
    proof: [],
    merkle_root: null,
    list_root: null,
    matches_sale: null,
    reason: 'the sale has no allowlist: anyone may buy',
  },
);
