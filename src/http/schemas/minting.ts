/** Minting request and response schemas (docs/api/nft.md §2.5, §4.1, §4.2, §4.3; docs/minting.md), shared by both apps. */
import { z } from 'zod';
import { address, txHash, uuid } from './common.ts';
import { EXAMPLE_CHAIN, EXAMPLE_ID, EXAMPLE_TIME, EXAMPLE_URL, withExample } from './examples.ts';

export const variables = z.record(z.string(), z.unknown());

/** What a public mint adds (docs/minting.md "Mint policy"): the payment and an allowlist proof. */
const publicMintFields = {
  tx_hash: txHash
    .optional()
    .describe('public mints: the stablecoin transfer of mint_price × quantity from the recipient to the payout address'),
  merkle_proof: z
    .array(z.string().regex(/^0x[0-9a-fA-F]{64}$/, 'expected 0x-prefixed 32-byte hex nodes'))
    .max(64)
    .optional()
    .describe("public mints on a Merkle allowlist: the recipient's proof"),
};

/**
 * Who receives a minted token: any address but the zero address, which no ERC-721 token may be
 * minted to (the contract reverts; refused here as a 400 naming the field).
 */
const recipientAddress = address.refine((a) => !/^0x0{40}$/.test(a), 'the zero address cannot receive a token');

export const mintAndGenerateBody = withExample(
  z.object({
    recipient: recipientAddress,
    variables: variables.default({}),
    chainId: z.number().int().positive().optional(),
    ...publicMintFields,
  }),
  // A selectable trait picked by the minter; the others are drawn by weight.
  { recipient: EXAMPLE_CHAIN.collector, variables: { fur: 'russet' } },
);

/** One path, two spec bodies (§4.2 backend mint, §4.3 design-stage mint): both are accepted. */
export const mintBody = z
  .object({
    recipient: recipientAddress.optional(),
    recipient_address: recipientAddress.optional(),
    chainId: z.number().int().positive().optional(),
    outputId: uuid.optional(),
    quantity: z.number().int().min(1, 'quantity must be 1 to 100').max(100, 'quantity must be 1 to 100').default(1),
    ...publicMintFields,
  })
  .refine((b) => b.recipient || b.recipient_address, { message: 'recipient (or recipient_address) is required', path: ['recipient'] })
  .refine((b) => !b.outputId || b.quantity === 1, { message: 'outputId links one token: quantity must be 1', path: ['outputId'] })
  .meta({ example: { recipient: EXAMPLE_CHAIN.collector, quantity: 1 } });

export const regenerateBody = withExample(
  z.object({
    token_id: z.number().int().min(1),
    generation_overrides: variables.default({}),
  }),
  { token_id: 1, generation_overrides: { accessory: 'a crown of ferns' } },
);

export const deckIdParams = z.object({ deckId: withExample(uuid, EXAMPLE_ID.deck) });
export const tokenMintParams = z.object({
  collectionId: withExample(uuid, EXAMPLE_ID.collection),
  // Two tokens minted: the next id is 3.
  tokenId: withExample(z.coerce.number().int().min(1).max(Number.MAX_SAFE_INTEGER), 3),
});

const nullableString = z.string().nullable();

export const mintAndGenerateResult = withExample(
  z.object({
    mint: z.object({ tokenId: z.number(), txHash: z.string(), recipient: z.string(), deckId: z.string(), metadataUri: z.string() }),
    generation: z.object({ jobId: z.string(), outputId: z.string(), deckId: z.string(), status: z.literal('generating') }),
  }),
  {
    mint: {
      tokenId: 1,
      txHash: EXAMPLE_CHAIN.mintTx,
      recipient: EXAMPLE_CHAIN.collector,
      deckId: EXAMPLE_ID.deck,
      metadataUri: EXAMPLE_URL.token,
    },
    generation: { jobId: EXAMPLE_ID.job, outputId: EXAMPLE_ID.output, deckId: EXAMPLE_ID.deck, status: 'generating' },
  },
);

const SECOND_TOKEN_URI = EXAMPLE_URL.token.replace(/1$/, '2');

export const mintResult = withExample(
  z.object({
    tokenId: z.number().describe('the first token minted'),
    txHash: z.string(),
    recipient: z.string(),
    deckId: z.string(),
    metadataUri: z.string(),
    tx_hash: z.string(),
    token_ids: z.array(z.number()),
    deck_ids: z.array(z.string()),
    requested_token_id: z.number().optional().describe('per-token mint: the id the path asked for'),
  }),
  {
    tokenId: 2,
    txHash: EXAMPLE_CHAIN.secondMintTx,
    recipient: EXAMPLE_CHAIN.collector,
    deckId: EXAMPLE_ID.secondDeck,
    metadataUri: SECOND_TOKEN_URI,
    tx_hash: EXAMPLE_CHAIN.secondMintTx,
    token_ids: [2],
    deck_ids: [EXAMPLE_ID.secondDeck],
  },
);

export const mintRecord = z.object({
  id: z.string(),
  token_id: z.number().nullable(),
  mint_tx_hash: nullableString,
  mint_recipient: nullableString,
  mint_status: nullableString,
  minted_at: nullableString,
});

export const mintsList = withExample(z.object({ mints: z.array(mintRecord) }), {
  mints: [
    {
      id: EXAMPLE_ID.deck,
      token_id: 1,
      mint_tx_hash: EXAMPLE_CHAIN.mintTx,
      mint_recipient: EXAMPLE_CHAIN.collector,
      mint_status: 'minted',
      minted_at: EXAMPLE_TIME.minted,
    },
    {
      id: EXAMPLE_ID.secondDeck,
      token_id: 2,
      mint_tx_hash: EXAMPLE_CHAIN.secondMintTx,
      mint_recipient: EXAMPLE_CHAIN.collector,
      mint_status: 'minted',
      minted_at: EXAMPLE_TIME.completed,
    },
  ],
});

export const artworkStatus = z.enum(['none', 'generating', 'completed', 'failed']);

export const mintStatusResult = withExample(
  z.object({
    deck_id: z.string(),
    collection_id: z.string(),
    token_id: z.number().nullable(),
    mint_status: nullableString,
    mint_tx_hash: nullableString,
    mint_recipient: nullableString,
    minted_at: nullableString,
    metadata_uri: nullableString,
    current_owner: nullableString,
    last_transfer_at: nullableString,
    generation: z.object({
      status: artworkStatus,
      output_id: nullableString,
      job_id: nullableString,
      job_status: nullableString,
      progress: z.number().nullable(),
      image: nullableString,
      error: nullableString,
    }),
  }),
  {
    deck_id: EXAMPLE_ID.deck,
    collection_id: EXAMPLE_ID.collection,
    token_id: 1,
    mint_status: 'minted',
    mint_tx_hash: EXAMPLE_CHAIN.mintTx,
    mint_recipient: EXAMPLE_CHAIN.collector,
    minted_at: EXAMPLE_TIME.minted,
    metadata_uri: EXAMPLE_URL.token,
    current_owner: EXAMPLE_CHAIN.collector,
    last_transfer_at: EXAMPLE_TIME.minted,
    generation: {
      status: 'completed',
      output_id: EXAMPLE_ID.output,
      job_id: EXAMPLE_ID.job,
      job_status: 'completed',
      progress: 100,
      image: EXAMPLE_URL.image,
      error: null,
    },
  },
);

export const regenerateResult = withExample(
  z.object({
    token_id: z.number(),
    metadata_uri: z.string(),
    asset_uri: z.null().describe('null until the artwork completes (poll the metadata or mint-status)'),
    job_id: z.string(),
    output_id: z.string(),
    deck_id: z.string(),
    status: z.literal('generating'),
  }),
  {
    token_id: 1,
    metadata_uri: EXAMPLE_URL.token,
    asset_uri: null,
    job_id: EXAMPLE_ID.secondJob,
    output_id: EXAMPLE_ID.secondOutput,
    deck_id: EXAMPLE_ID.deck,
    status: 'generating',
  },
);
