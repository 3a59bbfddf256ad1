/**
 * The permission walk's table (docs/permissions.md): for every operationId of both
 * OpenAPI documents, what each actor gets, and the request that asks it. The walk takes the route
 * list from /openapi.json itself, so a route added without an entry here fails.
 *
 * Actors: operator (the service key), owner (a signed-in user who owns the records the request
 * names), other (another signed-in user), anonymous (no credentials).
 * Expected: 'ok' — the request is allowed (a 2xx, or one of the entry's `alsoOk` statuses, each
 * with the reason it is not a refusal); 401, 403 or 404 — refused with exactly that status.
 */
import type { Fixtures } from './fixtures.ts';

export type ActorName = 'operator' | 'owner' | 'other' | 'anonymous';
export type Outcome = 'ok' | 401 | 403 | 404;
export type Expect = Record<ActorName, Outcome>;

export interface Entry {
  expect: Expect;
  /** Body of the request (POST/PUT/PATCH), from the fixtures. */
  body?: (f: Fixtures) => unknown;
  query?: (f: Fixtures) => Record<string, string>;
  /** Path parameters beyond the defaults of the walk (fixtures.ts `defaultParam`). */
  params?: (f: Fixtures) => Record<string, string>;
  /** Fresh records per actor, for operations that change a record for good (archive, hide, revoke, merge). */
  fresh?: (f: Fixtures) => Promise<Record<string, string>>;
  /** Non-2xx statuses that still mean "allowed" for this operation, with why. */
  alsoOk?: number[];
  /**
   * The operator names a user (`user_id` header, a third user: neither owner nor other): outputs
   * and decks answer 401 without one (docs/api/content.md §5.1 rule 1).
   */
  operatorNamesUser?: boolean;
  /** Shown without a lock in /docs although an unsigned call gets 401 (a provider's signed webhook). */
  documentedPublic?: boolean;
}

/** Everyone, credentials or not (metadata, feed, health, identity resolution). */
export const PUBLIC: Expect = { operator: 'ok', owner: 'ok', other: 'ok', anonymous: 'ok' };
/** Any signed-in caller. */
export const SIGNED_IN: Expect = { operator: 'ok', owner: 'ok', other: 'ok', anonymous: 401 };
/** The record's owner and the operator. */
export const OWNER: Expect = { operator: 'ok', owner: 'ok', other: 403, anonymous: 401 };
/** The record's owner and the operator; another user is not told it exists. */
export const OWNER_HIDDEN: Expect = { operator: 'ok', owner: 'ok', other: 404, anonymous: 401 };
/** The platform operator only. */
export const OPERATOR: Expect = { operator: 'ok', owner: 403, other: 403, anonymous: 401 };
/** The operator only; another user is not told the record exists (jobs). */
export const OPERATOR_HIDDEN: Expect = { operator: 'ok', owner: 403, other: 404, anonymous: 401 };

/** A CID no stored bundle has. */
const UNKNOWN_CID = 'bafybeihkoviema7g3gxyt6la7vd5ho32ictqbilu3wnlo3rs7ewhnp7lly';

/** A delivery id no delivery has. */
const NO_DELIVERY = '00000000-0000-4000-8000-000000000000';

const png64 = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==';

export const TABLE: Record<string, Entry> = {
  // ---------------- backend: collections (docs/api/nft.md §2.1) ----------------
  createCollection: { expect: SIGNED_IN, body: () => ({ title: 'Walk new', data: { version: 'v2' } }) },
  getCollection: { expect: SIGNED_IN },
  updateCollection: { expect: OWNER, body: () => ({ description: 'changed by the walk' }) },
  resetCollection: { expect: OWNER, alsoOk: [409] /* its contract still has code */ },
  generateCollectionFromConcept: { expect: SIGNED_IN, body: () => ({ concept: 'foxes in the snow' }) },
  setupCollection: { expect: SIGNED_IN, body: () => ({ prompt: 'foxes in the snow' }) },
  updateDeployStatus: {
    expect: OPERATOR,
    fresh: async (f) => ({ collectionId: await f.newDraft() }),
    body: () => ({ status: 'deploying' }),
  },
  deployCollectionDesignStage: {
    expect: OWNER,
    params: (f) => ({ id: f.draftCollection }),
    fresh: async (f) => ({ id: await f.newCollection('owner') }),
    body: (f) => ({ max_supply: 10, royalty_bps: 500, royalty_receiver: f.wallet }),
  },
  mintAndGenerate: { expect: OWNER, body: (f) => ({ recipient: f.wallet }) },
  mintTokens: { expect: OWNER, body: (f) => ({ recipient: f.wallet }) },
  mintNextToken: { expect: OWNER, params: () => ({ tokenId: '99' }), body: (f) => ({ recipient: f.wallet }), alsoOk: [409] },
  regenerateToken: { expect: OWNER, body: () => ({ token_id: 1 }) },
  getMintStatus: { expect: SIGNED_IN },
  listMints: { expect: SIGNED_IN },
  listTokens: { expect: SIGNED_IN, query: () => ({ trait: 'Color:Red' }) },
  // the console's views (docs/collections.md "Console views"): reads open to signed-in callers, the list scoped by owner
  listCollections: { expect: SIGNED_IN, query: () => ({ limit: '5' }) },
  getCollectionOverview: { expect: SIGNED_IN },
  getCollectionGasSpent: { expect: OWNER },
  getToken: { expect: SIGNED_IN },
  getCollectionRarity: { expect: SIGNED_IN },
  getCollectionActivity: { expect: SIGNED_IN },
  setCollectionCover: { expect: OWNER, body: () => ({ base64Data: png64, mimeType: 'image/png' }) },
  requestSamples: { expect: SIGNED_IN, body: (f) => ({ wallet_address: f.wallet, count: 1 }), operatorNamesUser: true },
  listSamples: { expect: SIGNED_IN },
  getSampleStatus: { expect: SIGNED_IN, query: (f) => ({ wallet_address: f.wallet }) },
  // Fairness (docs/fairness.md): the reveal is the owner's; a receipt is public once its artwork is done.
  revealSeed: { expect: OWNER, alsoOk: [409] /* NO_SEED_COMMITMENT: nothing was minted over a commitment yet */ },
  getTokenReceipt: { expect: PUBLIC, alsoOk: [409] /* ARTWORK_PENDING: no worker runs in the walk */ },
  // The on-chain sale (docs/minting.md "On-chain sale"): set by the owner, read by anyone signed in.
  configureSale: {
    expect: OWNER,
    body: (f) => ({
      currency: 'native',
      price: '1000',
      start: null,
      end: null,
      max_per_wallet: null,
      merkle_root: null,
      payouts: [{ address: f.wallet, bps: 10000 }],
    }),
    alsoOk: [409] /* OWNER_MUST_SIGN: a creator-owned contract's owner sends setSale */,
  },
  readSale: { expect: SIGNED_IN },
  // The public mint page's reads (docs/mint-page.md).
  getMintPage: { expect: PUBLIC },
  getAllowlistProof: { expect: PUBLIC, query: (f) => ({ address: f.wallet }) },
  // Permanence (docs/permanence.md): the walk's collection is still on sale, and has no export.
  exportCollection: { expect: OWNER, alsoOk: [409] /* SALE_OPEN: the walk's collection is not sold out */ },
  readCollectionExport: { expect: OWNER, alsoOk: [404] /* no export of the walk's collection */ },
  pinCollectionExport: { expect: OWNER, alsoOk: [503] /* the walk's backend has no IPFS_PIN_TARGET */ },
  freezeCollection: { expect: OWNER, alsoOk: [409] /* NOT_EXPORTED (or NOT_DEPLOYED): the walk's collection has no export */ },
  getIpfsRoot: { expect: PUBLIC, params: () => ({ cid: UNKNOWN_CID }), alsoOk: [404] /* no bundle has that CID */ },
  getIpfsPath: { expect: PUBLIC, params: () => ({ cid: UNKNOWN_CID, '*': 'index.html' }), alsoOk: [404] /* no bundle has that CID */ },
  // Public documents (ERC-721 / ERC-7572).
  getCollectionMetadata: { expect: PUBLIC },
  getTokenMetadata: { expect: PUBLIC },
  getContractUri: { expect: PUBLIC },
  getTokenUri: { expect: PUBLIC },
  getDesignTokenMetadata: { expect: PUBLIC },
  // Ownership (the indexer's reads).
  getCollectionOwnership: { expect: SIGNED_IN },
  getDeckTransfers: { expect: SIGNED_IN },
  getIndexerStatus: { expect: SIGNED_IN },
  listOwnerTokens: { expect: SIGNED_IN },
  getOwnerToken: { expect: SIGNED_IN, alsoOk: [404] /* nothing indexed in the walk */ },
  listApps: { expect: SIGNED_IN },
  getApp: { expect: SIGNED_IN, alsoOk: [404] /* no indexer runs in the walk */ },
  listAppTokens: { expect: SIGNED_IN },
  listAppTokensOfApp: { expect: SIGNED_IN, alsoOk: [404] /* no indexer runs in the walk */ },
  listAppTokenMints: { expect: SIGNED_IN },
  listAppTokenMintsOfApp: { expect: SIGNED_IN, alsoOk: [404] /* no indexer runs in the walk */ },
  getContractInfo: { expect: SIGNED_IN, alsoOk: [404] /* no indexer runs in the walk */ },
  readContract: { expect: SIGNED_IN, query: (f) => ({ address: f.deployedAddress }), alsoOk: [404] /* no indexer runs in the walk */ },

  // ---------------- backend: outputs (docs/api/content.md §2.1) ----------------
  createOutput: { expect: SIGNED_IN, body: (f) => ({ collection_id: f.collection }), operatorNamesUser: true },
  completeOutput: {
    expect: OWNER,
    operatorNamesUser: true,
    fresh: async (f) => ({ id: await f.newOutput() }),
    body: () => ({ url: 'https://cdn.example/walk.png', mime_type: 'image/png' }),
  },
  failOutput: {
    expect: OWNER,
    operatorNamesUser: true,
    fresh: async (f) => ({ id: await f.newOutput() }),
    body: () => ({ error_message: 'walk' }),
  },
  hideOutput: { expect: OWNER, operatorNamesUser: true, fresh: async (f) => ({ id: await f.newOutput() }) },
  getOutput: { expect: SIGNED_IN, operatorNamesUser: true },
  moveOutput: {
    expect: OWNER,
    operatorNamesUser: true,
    fresh: async (f) => ({ id: await f.newOutput() }),
    body: () => ({ deck_id: null }),
  },
  listCollectionOutputs: { expect: SIGNED_IN, operatorNamesUser: true },
  collectionOutputStats: { expect: SIGNED_IN, operatorNamesUser: true },

  // ---------------- backend: decks (docs/api/content.md §2.2) ----------------
  createDeck: { expect: SIGNED_IN, body: (f) => ({ collection_id: f.collection, name: 'walk' }), operatorNamesUser: true },
  listMyDecks: { expect: SIGNED_IN, operatorNamesUser: true },
  getDeck: { expect: SIGNED_IN, operatorNamesUser: true },
  updateDeck: { expect: OWNER, operatorNamesUser: true, body: () => ({ name: 'renamed by the walk' }) },
  archiveDeck: { expect: OWNER, operatorNamesUser: true, fresh: async (f) => ({ id: await f.newDeck() }) },
  publishDeck: { expect: OWNER, operatorNamesUser: true, fresh: async (f) => ({ id: await f.newDeck() }) },
  lockDeck: { expect: OWNER, operatorNamesUser: true, fresh: async (f) => ({ id: await f.newDeck() }) },
  deckStats: { expect: SIGNED_IN, operatorNamesUser: true },
  listCollectionDecks: { expect: SIGNED_IN, operatorNamesUser: true },

  // ---------------- backend: develop and generation ----------------
  listDevelopCollections: { expect: SIGNED_IN, operatorNamesUser: true, query: () => ({ input_type: 'image' }) },
  developOutput: {
    expect: OWNER,
    operatorNamesUser: true,
    body: (f) => ({ collection_id: f.collection }),
    alsoOk: [409] /* the output is not completed */,
  },
  generateCollection: { expect: SIGNED_IN, body: () => ({ variables: {} }), operatorNamesUser: true },
  generateCollectionLegacy: { expect: SIGNED_IN, body: () => ({ variables: {} }), operatorNamesUser: true },
  createGeneration: { expect: SIGNED_IN, body: () => ({ variables: {} }), operatorNamesUser: true },
  /** POST /api/jobs: the generate body naming its collection. */
  submitJob: { expect: SIGNED_IN, body: (f) => ({ collection_id: f.collection, variables: {} }), operatorNamesUser: true },
  /** Marking a collection global (a develop source) is the platform's decision. */
  // A draft of its own: a global collection is never minted (409 GLOBAL_COLLECTION), and the walk mints the shared one later.
  setCollectionGlobal: {
    expect: OPERATOR,
    fresh: async (f) => ({ collectionId: await f.newDraft() }),
    body: () => ({ is_global: true, input_type: 'image', output_type: 'image' }),
  },

  // ---------------- backend: jobs (docs/api/content.md §2.4): another's job is 404 (no leak) ----------------
  retryJob: { expect: OWNER_HIDDEN, alsoOk: [409] /* not failed */ },
  getJob: { expect: OWNER_HIDDEN },
  forceCompleteJob: {
    expect: OPERATOR_HIDDEN,
    fresh: async (f) => ({ id: await f.newJob() }),
    body: () => ({ workflow_output: 'https://cdn.example/walk.png' }),
  },
  forceFailJob: { expect: OPERATOR_HIDDEN, fresh: async (f) => ({ id: await f.newJob() }), body: () => ({ error: 'walk' }) },
  jobForensics: { expect: OWNER_HIDDEN },
  getCredits: { expect: SIGNED_IN, operatorNamesUser: true },
  streamJob: { expect: OWNER_HIDDEN, fresh: async (f) => ({ id: await f.newEndedJob() }) },

  // ---------------- backend: workflows ----------------
  listWorkflows: { expect: SIGNED_IN },
  createWorkflow: {
    expect: OPERATOR,
    body: () => ({ name: 'walk_flow', label: 'Walk', description: 'd', data: {}, output_mime_type: 'image/png' }),
  },
  getWorkflow: { expect: SIGNED_IN },
  listModels: { expect: SIGNED_IN },
  listCustomNodes: { expect: SIGNED_IN },
  testWorkflow: { expect: SIGNED_IN, body: () => ({ inputs: { prompt: 'walk', width: 16, height: 16 } }) },
  createCustodialCollection: {
    expect: SIGNED_IN,
    body: () => ({
      collection_details: { title: 'Walk custodial', social_org: 'social_a', social_identifier: 'did:plc:walk' },
      job_type: 'walk',
      template_json: { prompt: 'x' },
    }),
  },

  // ---------------- backend: uploads, files, feed, identity ----------------
  uploadBase64: { expect: SIGNED_IN, body: () => ({ base64Data: png64, mimeType: 'image/png' }), operatorNamesUser: true },
  getFile: { expect: PUBLIC },
  feedTrendingCollections: { expect: PUBLIC },
  feedFeaturedCollection: { expect: PUBLIC, alsoOk: [404] /* nothing featured */ },
  feedDeckOutputs: { expect: PUBLIC },
  resolveIdentity: { expect: PUBLIC, body: (f) => ({ access_token: f.resolveToken }) },
  getMe: { expect: SIGNED_IN, operatorNamesUser: true },
  updateMe: { expect: SIGNED_IN, body: () => ({ display_name: 'Walker' }), operatorNamesUser: true },
  createWalletNonce: { expect: SIGNED_IN, body: () => ({}), operatorNamesUser: true },
  verifyWalletSignature: {
    expect: SIGNED_IN,
    body: () => ({ message: 'not a signed EIP-4361 message', signature: '0x00' }),
    alsoOk: [400] /* the message is refused after the caller is admitted */,
    operatorNamesUser: true,
  },
  listWallets: { expect: SIGNED_IN, operatorNamesUser: true },
  createSignInNonce: { expect: PUBLIC, body: (f) => ({ address: f.wallet }) },
  signInWithEthereum: {
    expect: PUBLIC,
    body: () => ({ message: 'not a signed EIP-4361 message', signature: '0x00' }),
    alsoOk: [400] /* the message is refused after the caller is admitted */,
  },
  signOut: { expect: SIGNED_IN, alsoOk: [400] /* the walk's credentials are not sessions: 400 naming why */ },
  /** The admin proxy's question (service key): whether a credential is valid is not for users to ask. */
  introspectCredential: { expect: OPERATOR, body: (f) => ({ credential: f.resolveToken }) },
  /**
   * Signed by the video provider (HMAC), not by our credentials: an unsigned call is refused for
   * everyone, credentials or not (docs/video.md).
   */
  videoWebhook: {
    expect: { operator: 401, owner: 401, other: 401, anonymous: 401 },
    documentedPublic: true,
    body: () => ({ type: 'video.asset.ready', data: { id: 'walk-asset' } }),
  },
  mergeUsers: { expect: OPERATOR, fresh: async (f) => f.newUserPair(), body: (f) => f.mergePair },
  createApiKey: { expect: SIGNED_IN, body: () => ({ name: 'walk' }), operatorNamesUser: true },
  listApiKeys: { expect: SIGNED_IN, operatorNamesUser: true },
  revokeApiKey: { expect: OWNER_HIDDEN, operatorNamesUser: true, fresh: async (f) => ({ id: await f.newApiKey() }) },

  // ---------------- backend: outbound webhooks (docs/webhooks.md) ----------------
  // A creator's subscriptions are theirs; the operator manages every one; another user is not told
  // one exists.
  createWebhook: { expect: SIGNED_IN, body: () => ({ url: 'https://hooks.example.com/walk-new', events: ['token.minted'] }) },
  listWebhooks: { expect: SIGNED_IN },
  getWalletHealth: { expect: OPERATOR },
  getWebhook: { expect: OWNER_HIDDEN },
  updateWebhook: { expect: OWNER_HIDDEN, body: () => ({ enabled: true }) },
  rotateWebhookSecret: { expect: OWNER_HIDDEN, body: () => ({}) },
  deleteWebhook: { expect: OWNER_HIDDEN, fresh: async (f) => ({ id: await f.newWebhook() }) },
  listWebhookDeliveries: { expect: OWNER_HIDDEN },
  replayWebhookDelivery: {
    expect: OWNER_HIDDEN,
    params: (f) => ({ id: f.webhook, deliveryId: NO_DELIVERY }),
    alsoOk: [404] /* allowed, and there is no such delivery */,
  },
  sendWebhookTest: { expect: OWNER_HIDDEN },

  // ---------------- admin proxy (docs/api/nft.md §4.1; docs/auth.md "The admin proxy") ----------------
  // Database operations go to the backend as the caller (a user's own credential): the same
  // outcomes as the backend routes they forward to. Chain writes of the platform are the operator's.
  adminCreateWebhook: { expect: SIGNED_IN, body: () => ({ url: 'https://hooks.example.com/walk-admin', events: ['token.minted'] }) },
  adminListWebhooks: { expect: SIGNED_IN },
  adminUpdateWebhook: { expect: OWNER_HIDDEN, body: (f) => ({ id: f.webhook, enabled: true }) },
  adminRotateWebhookSecret: { expect: OWNER_HIDDEN, body: (f) => ({ id: f.webhook }) },
  adminListWebhookDeliveries: { expect: OWNER_HIDDEN, query: (f) => ({ id: f.webhook }) },
  adminReplayWebhookDelivery: {
    expect: OWNER_HIDDEN,
    body: (f) => ({ id: f.webhook, deliveryId: NO_DELIVERY }),
    alsoOk: [404] /* allowed, and there is no such delivery */,
  },
  adminSendWebhookTest: { expect: OWNER_HIDDEN, body: (f) => ({ id: f.webhook }) },
  // One subscription for every actor: the first allowed one deletes it, the next finds it gone.
  adminDeleteWebhook: { expect: OWNER_HIDDEN, body: (f) => ({ id: f.spareWebhook }), alsoOk: [404] },
  adminConfigureSale: {
    expect: OWNER,
    body: (f) => ({
      collectionId: f.collection,
      currency: 'native',
      price: '1000',
      start: null,
      end: null,
      max_per_wallet: null,
      merkle_root: null,
      payouts: [{ address: f.wallet, bps: 10000 }],
    }),
    alsoOk: [409] /* OWNER_MUST_SIGN */,
  },
  adminReadSale: { expect: SIGNED_IN, query: (f) => ({ collectionId: f.collection }) },
  adminExportCollection: { expect: OWNER, body: (f) => ({ collectionId: f.collection }), alsoOk: [409] /* SALE_OPEN */ },
  adminReadCollectionExport: { expect: OWNER, query: (f) => ({ collectionId: f.collection }), alsoOk: [404] /* no export */ },
  adminFreezeCollection: { expect: OWNER, body: (f) => ({ collectionId: f.collection }), alsoOk: [409] /* NOT_EXPORTED */ },
  adminCreateCollection: { expect: SIGNED_IN, body: () => ({ title: 'Admin walk', data: { version: 'v2' } }) },
  adminGenerateCollection: { expect: SIGNED_IN, body: () => ({ concept: 'owls at dusk' }) },
  adminLookupCollection: { expect: SIGNED_IN, query: (f) => ({ collectionId: f.collection }) },
  adminUpdateCollection: { expect: OWNER, body: (f) => ({ collectionId: f.collection, description: 'admin walk' }) },
  adminResetCollection: { expect: OWNER, body: (f) => ({ collectionId: f.collection }), alsoOk: [409] /* its contract still has code */ },
  adminMint: { expect: OWNER, body: (f) => ({ collectionId: f.collection, recipient: f.wallet }) },
  adminListMints: { expect: SIGNED_IN, query: (f) => ({ collectionId: f.collection }) },
  adminListCollections: { expect: SIGNED_IN },
  adminDeployCollectionById: {
    expect: OWNER,
    fresh: async (f) => ({ deployTarget: (f.deployTarget = await f.newCollection('owner')) }),
    body: (f) => ({ collectionId: f.deployTarget }),
  },
  adminCollectionOverview: { expect: SIGNED_IN, query: (f) => ({ collectionId: f.collection }) },
  adminCollectionGasSpent: { expect: OWNER, query: (f) => ({ collectionId: f.collection }) },
  adminWalletHealth: { expect: OPERATOR },
  adminListTokens: { expect: SIGNED_IN, query: (f) => ({ collectionId: f.collection }) },
  adminGetToken: { expect: SIGNED_IN, query: (f) => ({ collectionId: f.collection, tokenId: '1' }) },
  adminCollectionRarity: { expect: SIGNED_IN, query: (f) => ({ collectionId: f.collection }) },
  adminCollectionActivity: { expect: SIGNED_IN, query: (f) => ({ collectionId: f.collection }) },
  adminSetCollectionCover: { expect: OWNER, body: (f) => ({ collectionId: f.collection, base64Data: png64 }) },
  adminRequestSamples: { expect: SIGNED_IN, body: (f) => ({ collectionId: f.collection, wallet_address: f.wallet, count: 1 }) },
  adminListSamples: { expect: SIGNED_IN, query: (f) => ({ collectionId: f.collection }) },
  adminSampleStatus: { expect: SIGNED_IN, query: (f) => ({ collectionId: f.collection, wallet_address: f.wallet }) },
  adminOwnership: { expect: SIGNED_IN, query: (f) => ({ collectionId: f.collection }) },
  adminTransfers: { expect: SIGNED_IN, query: (f) => ({ deckId: f.mintedDeck }) },
  adminIndexerStatus: { expect: SIGNED_IN },
  adminUploadImage: { expect: SIGNED_IN, body: () => ({ base64Data: png64, mimeType: 'image/png' }) },
  // the console's caller, sign-in and jobs (docs/admin-ui.md "Signing in", "Live generation")
  adminSession: { expect: SIGNED_IN },
  adminSignInNonce: { expect: PUBLIC, body: (f) => ({ address: f.wallet }) },
  adminSignIn: {
    expect: PUBLIC,
    body: () => ({ message: 'not a signed EIP-4361 message', signature: '0x00' }),
    alsoOk: [400] /* the message is refused after the caller is admitted */,
  },
  adminSignOut: { expect: SIGNED_IN, alsoOk: [400] /* the walk's credentials are not sessions: 400 naming why */ },
  adminGetJob: { expect: OWNER_HIDDEN },
  adminStreamJob: { expect: OWNER_HIDDEN, fresh: async (f) => ({ jobId: await f.newEndedJob() }) },
  adminRetryJob: { expect: OWNER_HIDDEN, alsoOk: [409] /* not failed */ },
  // chain reads: any signed-in caller; the platform's chain writes: the operator
  getPlatformDeployment: { expect: SIGNED_IN, query: () => ({ chainId: '31337' }) },
  deployPlatform: { expect: OPERATOR, body: () => ({ chainId: 31337 }) },
  getFactory: { expect: SIGNED_IN, query: () => ({ chainId: '31337' }) },
  readCollections: { expect: SIGNED_IN, query: (f) => ({ chainId: '31337', addresses: f.deployedAddress }) },
  deployCollection: {
    expect: OPERATOR,
    body: () => ({
      chainId: 31337,
      name: 'Admin walk',
      symbol: 'AW',
      baseURI: 'http://meta.test/t/',
      contractURI: 'http://meta.test/c.json',
      maxSupply: '10',
    }),
  },
  /** On the owner's collection (platform-owned contract: the owner has no linked wallet). */
  runAdminAction: {
    expect: OWNER,
    body: (f) => ({ chainId: 31337, collectionAddress: f.deployedAddress, action: 'setMintActive', value: true }),
  },
  proxyMetadata: { expect: SIGNED_IN, query: (f) => ({ chainId: '31337', address: f.deployedAddress, type: 'contract' }) },
};
