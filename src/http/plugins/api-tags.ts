/** The OpenAPI tags of both apps and what each groups (shown as section headings in /docs). */
export const API_TAGS = [
  {
    name: 'collections',
    description:
      'Collection records: create, read, update, list, deploy by id, overview, rarity, activity, cover image (docs/api/nft.md §2.1, §4.2; docs/collections.md).',
  },
  {
    name: 'minting',
    description:
      'Minting from the platform wallet and each token with its artwork: mint, mint-and-generate, tokens, mint status (docs/minting.md).',
  },
  {
    name: 'fairness',
    description: "Seeds nobody can target: the seed secret's reveal and each token's public generation receipt (docs/fairness.md).",
  },
  {
    name: 'permanence',
    description:
      'Content-addressed exports of closed collections (CARv1, UnixFS) and the bundle gateway /ipfs/<cid>/<path> (docs/permanence.md).',
  },
  { name: 'samples', description: 'Sample images before minting: the free allowance, then stablecoin-paid (docs/minting.md "Samples").' },
  { name: 'metadata', description: 'Public ERC-721 token and ERC-7572 collection documents, where the contracts point (no credentials).' },
  { name: 'ownership', description: 'Owners and transfers indexed from Transfer events, and the indexer status (docs/indexer.md).' },
  {
    name: 'indexer',
    description: 'The indexer package API: apps, owner tokens, mints and transfers, contract reads (docs/api/nft.md §4.4).',
  },
  {
    name: 'chain',
    description:
      'Chain operations of the platform wallet through the admin proxy: collection deployment, admin actions, reads (docs/chain-operations.md).',
  },
  { name: 'deployment', description: 'The platform contracts (factory and facets) per chain (docs/chain.md).' },
  {
    name: 'jobs',
    description: 'Generation jobs with live progress (server-sent events), retries and forensics (docs/api/content.md §4.3; docs/jobs.md).',
  },
  { name: 'outputs', description: 'Generated outputs: lists, visibility, develop into a new output (docs/content.md).' },
  { name: 'decks', description: 'Decks of outputs (docs/content.md).' },
  { name: 'workflows', description: 'Generation workflows (docs/api/content.md §2.5).' },
  { name: 'uploads', description: 'File uploads (images and video) and stored files (docs/content.md).' },
  { name: 'feed', description: 'The public feed and the custodial collections of social identities (docs/feed.md, docs/custodial.md).' },
  { name: 'identity', description: 'Users, provider identities, profiles and wallet links (Sign-In with Ethereum; docs/auth.md).' },
  {
    name: 'webhooks',
    description:
      'Outbound webhooks: subscriptions, signed deliveries (Standard Webhooks), the delivery log, replay and test events (docs/webhooks.md).',
  },
  {
    name: 'operations',
    description:
      'The platform\'s own health for its operator: the platform wallet\'s balance per chain (docs/operations.md "Wallet health").',
  },
] as const;
