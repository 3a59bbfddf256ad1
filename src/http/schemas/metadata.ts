/** Public metadata documents (docs/api/nft.md §2.11; docs/minting.md "Metadata documents"). */
import { z } from 'zod';
import { uuid } from './common.ts';
import { EXAMPLE_ID, EXAMPLE_URL, withExample } from './examples.ts';

const MAX_TOKEN_ID = 2 ** 40; // the contract's limit
const tokenIdParam = z
  .string()
  .regex(/^\d{1,13}$/, 'expected a token id (a non-negative integer)')
  .transform(Number)
  .pipe(z.number().int().min(0).max(MAX_TOKEN_ID, 'token id out of range'));

const collectionId = withExample(uuid, EXAMPLE_ID.collection);
export const tokenParams = z.object({ collectionId, tokenId: withExample(tokenIdParam, '1') });
export const collectionParams = z.object({ collectionId });

/** ERC-721 token metadata. */
export const tokenDocument = withExample(
  z.object({
    name: z.string(),
    description: z.string(),
    image: z.string().describe('the artwork once completed; before that the collection cover or ""'),
    external_url: z.string(),
    attributes: z.array(z.object({ trait_type: z.string(), value: z.string() })),
    generation: z.record(z.string(), z.unknown()).optional().describe('the fair seed, its inputs and the receipt URL (docs/fairness.md)'),
    revealed: z
      .boolean()
      .optional()
      .describe('exact collections only: false until the reveal deals the token its traits (docs/fairness.md "Exact counts")'),
  }),
  {
    name: 'Night Foxes #1',
    description: 'Fifty foxes under the northern lights, each with its own fur, accessory and sky.',
    image: EXAMPLE_URL.image,
    external_url: EXAMPLE_URL.token,
    attributes: [
      { trait_type: 'Fur', value: 'Russet' },
      { trait_type: 'Accessory', value: 'Scarf' },
      { trait_type: 'Background', value: 'Aurora' },
    ],
  },
);

/** ERC-7572 contract-level metadata. */
export const collectionDocument = withExample(
  z.object({
    name: z.string(),
    description: z.string(),
    image: z.string(),
    external_link: z.string(),
    fairness: z
      .record(z.string(), z.unknown())
      .optional()
      .describe('seed commitment, revealed secret, receipts Merkle root (docs/fairness.md)'),
  }),
  {
    name: 'Night Foxes',
    description: 'Fifty foxes under the northern lights, each with its own fur, accessory and sky.',
    image: EXAMPLE_URL.cover,
    external_link: `${EXAMPLE_URL.base}/mint/${EXAMPLE_ID.collection}`,
  },
);
