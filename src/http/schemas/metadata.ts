/** Public metadata documents (nft-service.md §2.11; docs/minting.md "Metadata documents"). */
import { z } from 'zod';
import { uuid } from './common.ts';

const MAX_TOKEN_ID = 2 ** 40; // the contract's limit
const tokenIdParam = z
  .string()
  .regex(/^\d{1,13}$/, 'expected a token id (a non-negative integer)')
  .transform(Number)
  .pipe(z.number().int().min(0).max(MAX_TOKEN_ID, 'token id out of range'));

export const tokenParams = z.object({ collectionId: uuid, tokenId: tokenIdParam });
export const collectionParams = z.object({ collectionId: uuid });

/** ERC-721 token metadata. */
export const tokenDocument = z.object({
  name: z.string(),
  description: z.string(),
  image: z.string().describe('the artwork once completed; before that the collection cover or ""'),
  external_url: z.string(),
  attributes: z.array(z.object({ trait_type: z.string(), value: z.string() })),
});

/** ERC-7572 contract-level metadata. */
export const collectionDocument = z.object({
  name: z.string(),
  description: z.string(),
  image: z.string(),
  external_link: z.string(),
});
