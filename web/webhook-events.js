// The webhook events a subscription may name, with what each reports (docs/webhooks.md "Events").
// test/ui/web-modules.test.ts checks this list against the server's (src/domain/standard-webhooks.ts).
export const WEBHOOK_EVENTS = [
  { type: 'collection.deployed', about: 'a collection gets its contract' },
  { type: 'token.minted', about: 'a token is minted (every mint path)' },
  { type: 'token.purchased', about: 'a collector buys on chain' },
  { type: 'artwork.completed', about: "a token's artwork is ready" },
  { type: 'artwork.failed', about: "a token's artwork failed" },
  { type: 'sample.completed', about: 'a sample image is ready' },
  { type: 'payment.received', about: 'a stablecoin payment is claimed' },
  { type: 'token.transferred', about: 'a token changes hands' },
  { type: 'collection.revealed', about: "the collection's seed secret is published" },
  { type: 'collection.frozen', about: 'metadata frozen on chain' },
  { type: 'wallet.low_balance', about: 'the platform wallet runs low', operatorOnly: true },
  { type: 'transaction.stuck', about: 'a platform transaction stays unmined', operatorOnly: true },
];
