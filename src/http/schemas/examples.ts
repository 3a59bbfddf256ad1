/**
 * Example values the API documentation shares (/docs, /openapi.json): one set of ids, addresses
 * and hashes, so the examples of different routes name the same records (the collection a deck
 * example belongs to is the collection example). Each schema file keeps its own examples next to
 * its schemas, attached with `withExample`; plugins/openapi.ts composes them per operation.
 * test/openapi-docs.test.ts sends them to the app, replacing these ids with records it creates.
 */
import type { z } from 'zod';

/** Documents `schema` with an example (its own `example` meta; see plugins/openapi.ts `exampleOf`). */
export function withExample<T extends z.ZodType>(schema: T, example: z.input<T>): T {
  return schema.meta({ example });
}

/** Record ids (uuid v4, as the database makes them). */
export const EXAMPLE_ID = {
  collection: 'b8e00b7d-8c3f-4739-976a-22c8d26296f7',
  /** Token 1's deck, output and generation job. */
  deck: 'd1f202b4-3e04-431f-b58f-e71f20b86517',
  output: '49ecd421-9073-487b-a81c-828206c58a5a',
  job: '884bf94f-2f69-4ff6-939a-e265cf9e63c2',
  /** Token 2's deck, and a later output and job (a regeneration, a develop, a sample). */
  secondDeck: 'cf10e928-1d94-4806-b405-27e9f10191af',
  secondOutput: 'efe208be-ad38-438a-8dfd-dd8fa2394596',
  secondJob: '9ec1025e-53f0-4ee9-8e53-2ef7bede2c43',
  /** A deck a user made by hand (the decks API's example; no token). */
  albumDeck: '3a7d5c1e-9b24-4f68-a0d3-7e52c8b9f146',
  user: '036e1377-87d6-43b1-82c6-624b2578930f',
  otherUser: 'bf8e5e1a-6bd5-40aa-8bfd-31244b31ba97',
  apiKey: '88224609-3526-43b9-9192-b29dada13e58',
  workflow: 'b05c6e9d-6ff9-44a9-a9a2-7d1d059b342d',
  identity: '52840868-59b0-4317-a43c-b91b73ebe4e6',
  socialLink: 'bd001f6e-236f-4d3e-8b58-bd0284725978',
  transfer: 'd64c1399-1cb0-41ef-984f-7751b632a83c',
  webhook: '5b0f3a52-7c4e-4d8a-9e61-2f3b7a9c1d04',
  webhookDelivery: 'a3c91e07-58d2-4b6f-8a1e-6c0d2f4b9e73',
} as const;

/** Chain values: the dev chain of `npm start` (anvil, chain id 31337) and its well-known accounts. */
export const EXAMPLE_CHAIN = {
  chainId: 31337,
  /** Anvil account 0: the platform wallet (minter, default owner). */
  platformWallet: '0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266',
  /** Anvil account 1: a collector's wallet. */
  collector: '0x70997970C51812dc3A010C7d01b50e0d17dc79C8',
  /** Anvil account 2: a creator's linked wallet. */
  creatorWallet: '0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC',
  /** Anvil account 3: the collector a token is transferred to. */
  nextOwner: '0x90F79bf6EB2c4f870365E785982E1f101E93b906',
  collection: '0x14D4d76e91231e4499D466F272ed64A00fD1a580',
  /** The platform contracts as `npm start` deploys them on a fresh dev chain. */
  factory: '0xB7f8BC63BbcaD18155201308C8f3540b07f84F5e',
  stablecoin: '0x610178dA211FEF7D417bC0e6FeD39F05609AD788',
  deployTx: '0x81a24d4a65125018e81c5265bd989e3d6bd8af0d5c70e4161ca697377f4bf0cb',
  mintTx: '0xfb0c860bfd22b7b8a45110c46be3b7d5ccd1ca5ab08c56b8b54beba094927c2b',
  secondMintTx: '0x5e2d8a41c7f03b96e1d4a7c25b8f0e3d6a9c1b4e7f2a5d8c0b3e6f9a2d5c8b1e',
  transferTx: '0x95d5a5b85e512a8b0a82b5da9d35c80d1420208409bbf3f0df8933df98a66818',
  paymentTx: '0x7d5472a3232464dff6f8288247e48809d9516635f77408ceacab06f96a90beaa',
  blockHash: '0x199c238f7f94c8c9ccb253b8dee689094e9eb08f321efeea295269f203390245',
} as const;

/** Times (ISO 8601, UTC), in the order things happen. */
export const EXAMPLE_TIME = {
  created: '2025-06-02T09:14:03.512Z',
  updated: '2025-06-02T09:20:41.077Z',
  deployed: '2025-06-02T09:31:12.000Z',
  minted: '2025-06-02T09:42:27.000Z',
  completed: '2025-06-02T09:42:39.204Z',
  transferred: '2025-06-03T16:05:51.000Z',
} as const;

/** Where documents and files live on `npm start` (the backend on port 3000: metadata host and /files). */
const BASE = 'http://127.0.0.1:3000';
export const EXAMPLE_URL = {
  base: BASE,
  baseURI: `${BASE}/collections/${EXAMPLE_ID.collection}/tokens/`,
  contractURI: `${BASE}/collections/${EXAMPLE_ID.collection}/metadata.json`,
  /** Token 1's tokenURI. */
  token: `${BASE}/collections/${EXAMPLE_ID.collection}/tokens/1`,
  /** Token 1's artwork: the generation's last step, then its thumbnail. */
  image: `${BASE}/files/generations/${EXAMPLE_ID.job}/step-0-r0.png`,
  thumbnail: `${BASE}/files/thumbnails/${EXAMPLE_ID.output}.webp`,
  cover: `${BASE}/files/collection-covers/${EXAMPLE_ID.collection}/5b0e7c1e-3f7a-4d61-9a52-0c3e8e1f2a47.png`,
} as const;

/** Where the upload example stores its file (user-uploads/user-id/<user>/<uuid>.png), served at /files/<path>. */
export const EXAMPLE_UPLOAD_PATH = `user-uploads/user-id/${EXAMPLE_ID.user}/7c2f9e14-5b8a-4d3c-a1e6-0f9b2d4c6a85.png`;

/** A 1×1 PNG, base64: the smallest upload the upload routes accept. */
export const EXAMPLE_PNG_BASE64 = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==';
