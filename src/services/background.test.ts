import assert from 'node:assert/strict';
import { test } from 'node:test';
import { getAddress } from 'viem';
import { repairMints, type RepairPorts } from './crash-repair.ts';
import { emitPendingMetadataUpdates, metadataUpdateKey } from './metadata-updates.ts';

test('MetadataUpdate: one send per completed artwork under its key; one failure does not hold back the others', async () => {
  const sent: Array<{ tokenId: number; idempotencyKey: string }> = [];
  const errors: unknown[] = [];
  const pending = [
    { output_id: 'o1', token_id: 1, contract_address: '0xc1', chain_id: 31337 },
    { output_id: 'o2', token_id: 2, contract_address: '0xc1', chain_id: 31337 },
    { output_id: 'o3', token_id: 3, contract_address: '0xc2', chain_id: 421614 },
  ];
  const n = await emitPendingMetadataUpdates(
    {
      pending: async (limit) => pending.slice(0, limit),
      async emit(req) {
        if (req.tokenId === 1) throw new Error('nonce trouble');
        sent.push({ tokenId: req.tokenId, idempotencyKey: req.idempotencyKey });
      },
    },
    { chainIds: [31337], onError: (err) => errors.push(err) },
  );
  assert.equal(n, 1);
  assert.deepEqual(sent, [{ tokenId: 2, idempotencyKey: metadataUpdateKey('o2') }]);
  assert.equal(errors.length, 1);
});

test('crash repair: one artless deck per minted token that has none, and tokens_minted follows', async () => {
  const recipient = getAddress('0x00000000000000000000000000000000000000e1');
  const decks = new Map<string, unknown>([['c1:1', { id: 'existing' }]]);
  const highest: number[] = [];
  const ports: RepairPorts = {
    store: {
      mintsMissingDecks: async (graceS) =>
        graceS > 0 ? [] : [{ hash: '0xmint', receipt: {}, to_address: '0xc1', collection_id: 'c1', title: 'Cats' }],
      findTokenDeck: async (cid, t) => decks.get(`${cid}:${t}`),
      async createMintedDeck(m) {
        decks.set(`${m.collectionId}:${m.tokenId}`, m);
        return m;
      },
      async recordMinted(_cid, h) {
        highest.push(h);
      },
      releaseDecksOfUnlandedMints: async () => [],
      unmintDecksOfReorgedMints: async () => [],
      remintedDecks: async () => [],
      setMintState: async () => true,
    },
    mintedTokensOf: () => [
      { tokenId: 1, recipient },
      { tokenId: 2, recipient },
    ],
    recoverDeploys: async () => ({ finished: 0, released: 0 }),
    metadataBaseUrl: 'http://meta',
  };
  assert.equal(await repairMints(ports), 0, 'within the grace period nothing is touched');
  assert.equal(await repairMints(ports, { graceMs: 0 }), 1);
  assert.deepEqual(decks.get('c1:2'), {
    collectionId: 'c1',
    title: 'Cats',
    tokenId: 2,
    txHash: '0xmint',
    recipient,
    metadataUri: 'http://meta/collections/c1/tokens/2',
    userId: null,
  });
  assert.deepEqual(highest, [2]);
});
