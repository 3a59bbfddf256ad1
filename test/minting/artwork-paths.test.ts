/**
 * Every mint path gives its token artwork and traits (docs/api/nft.md §4.2 mint procedure steps 3
 * and 6; docs/minting.md): mint-and-generate, the backend mint without outputId, the design-stage
 * mint with a quantity, the per-token mint, the admin proxy's POST /api/nft/mint, and a generation
 * with mint_state. Once each token's job completes, its public document has the artwork as
 * `image` and the is_feature traits, and the stored token_metadata is the same full document.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { and, eq, sql } from 'drizzle-orm';
import { SignJWT } from 'jose';
import { collectionAbi } from '../../contracts/abi/index.ts';
import { collections, decks, jobs, outputs, webhookEvents } from '../../src/db/schema/index.ts';
import { JWT_SECRET, asService, call } from '../helpers/platform.ts';
import { startMintingPlatform, waitFor, type MintingPlatform } from './helpers.ts';

let mp: MintingPlatform;
before(async () => {
  mp = await startMintingPlatform();
});
after(() => mp.close());

test('each mint path: the public document gets the artwork image and the is_feature traits; token_metadata is the full document', async () => {
  const { id } = await mp.deployedCollection({ title: 'Paths' });
  const recipient = mp.wallet(3).account.address;
  const h = (key: string) => ({ ...asService(), 'idempotency-key': key });
  const tokens: Record<string, number[]> = {};

  const mg = await call(`${mp.backendUrl}/nft/collections/${id}/mint-and-generate`, {
    headers: h('p1'),
    body: { recipient, variables: {} },
  });
  assert.equal(mg.status, 201, JSON.stringify(mg.body));
  tokens['mint-and-generate'] = [mg.body.data.mint.tokenId];

  const backendMint = await call(`${mp.backendUrl}/nft/collections/${id}/mint`, { headers: h('p2'), body: { recipient, chainId: 31337 } });
  assert.equal(backendMint.status, 201, JSON.stringify(backendMint.body));
  tokens['backend mint'] = backendMint.body.data.token_ids ?? backendMint.body.data.tokenIds;

  const quantity = await call(`${mp.backendUrl}/nft/collections/${id}/mint`, {
    headers: h('p3'),
    body: { recipient_address: recipient, quantity: 2 },
  });
  assert.equal(quantity.status, 201, JSON.stringify(quantity.body));
  tokens.quantity = quantity.body.data.token_ids ?? quantity.body.data.tokenIds;
  assert.equal(tokens.quantity!.length, 2);

  const next = Math.max(...Object.values(tokens).flat()) + 1;
  const perToken = await call(`${mp.backendUrl}/nft/collections/${id}/tokens/${next}/mint`, {
    headers: h('p4'),
    body: { recipient_address: recipient, quantity: 1 },
  });
  assert.equal(perToken.status, 201, JSON.stringify(perToken.body));
  tokens['per-token'] = perToken.body.data.token_ids ?? perToken.body.data.tokenIds;

  const admin = await call(`${mp.adminUrl}/api/nft/mint`, { headers: h('p5'), body: { collectionId: id, recipient, variables: {} } });
  assert.equal(admin.status, 201, JSON.stringify(admin.body));
  tokens.admin = [admin.body.mint.tokenId];

  const gen = await call(`${mp.backendUrl}/collections/${id}/generations`, {
    headers: asService(),
    body: { variables: {}, mint_state: { token_id: 500, recipient } },
  });
  assert.equal(gen.status, 202, JSON.stringify(gen.body));
  tokens['generations with mint_state'] = [500];

  for (const [path, ids] of Object.entries(tokens)) {
    for (const tokenId of ids) {
      const doc = await waitFor(`${path} token ${tokenId} artwork`, async () => {
        const r = await call(`${mp.backendUrl}/collections/${id}/tokens/${tokenId}`);
        assert.equal(r.status, 200, `${path}: ${JSON.stringify(r.body)}`);
        return r.body.image ? r.body : undefined;
      });
      assert.match(doc.image, /^http/, `${path} image`);
      assert.equal(doc.name, `Paths #${tokenId}`);
      assert.equal(doc.attributes.length, 1, `${path} traits ${JSON.stringify(doc.attributes)}`);
      assert.equal(doc.attributes[0].trait_type, 'Color');
      assert.ok(['Red', 'Blue'].includes(doc.attributes[0].value));
      const [deck] = await mp.database.db
        .select()
        .from(decks)
        .where(and(eq(decks.collection_id, id), eq(decks.token_id, tokenId)));
      const [cover] = await mp.database.db.select().from(outputs).where(eq(outputs.id, deck!.cover_output_id!));
      assert.equal(cover!.status, 'completed');
      const stored = cover!.token_metadata as Record<string, unknown>;
      assert.equal(stored.image, doc.image, `${path} token_metadata.image`);
      assert.deepEqual(stored.attributes, doc.attributes);
      assert.equal(stored.name, doc.name);
      assert.equal(typeof stored.external_url, 'string');
      // The worker's completion wrote the token's artwork.completed webhook event (docs/webhooks.md).
      const [done] = await mp.database.db
        .select()
        .from(webhookEvents)
        .where(and(eq(webhookEvents.type, 'artwork.completed'), sql`${webhookEvents.payload}->'data'->>'job_id' = ${cover!.job_id}`));
      assert.equal((done?.payload as { data: { token_id: number } } | undefined)?.data.token_id, tokenId, `${path} artwork.completed`);
    }
  }
});

test('the backend mint (no variables in its body) picks a required variable too, and refuses nothing after the chain', async () => {
  const data = {
    version: 'v2',
    steps: [{ id: 1, nodeName: 'image', nodePayload: { intent: 'a cat called $name' } }],
    variables: [
      { name: 'name', is_feature: true, feature_name: 'Name', is_user_customizable: true, required: true, value: [{ value: 'Tom' }] },
    ],
  };
  const { id, address } = await mp.deployedCollection({ title: 'Required', data });
  const recipient = mp.wallet(3).account.address;
  // §4.2 body and §4.3 body: 201 with artwork (before, the token was minted on chain and the answer was a 400 REQUIRED).
  for (const body of [{ recipient }, { recipient_address: recipient, quantity: 1 }]) {
    const r = await call(`${mp.backendUrl}/nft/collections/${id}/mint`, { headers: asService(), body });
    assert.equal(r.status, 201, JSON.stringify(r.body));
    const tokenId = r.body.data.token_ids[0];
    const doc = await waitFor(`token ${tokenId} artwork`, async () => {
      const d = await call(`${mp.backendUrl}/collections/${id}/tokens/${tokenId}`);
      return d.body.image ? d.body : undefined;
    });
    assert.deepEqual(doc.attributes, [{ trait_type: 'Name', value: 'Tom' }]);
  }
  const supply = await mp.client.readContract({ address, abi: collectionAbi, functionName: 'totalSupply' });
  assert.equal(supply, 2n, 'two answered mints, two tokens');
  // mint-and-generate takes the minter's variables: there the required one must be given, before the chain.
  const mg = await call(`${mp.backendUrl}/nft/collections/${id}/mint-and-generate`, {
    headers: asService(),
    body: { recipient, variables: {} },
  });
  assert.equal(mg.status, 400);
  assert.equal(mg.body.code, 'REQUIRED');
  assert.equal(await mp.client.readContract({ address, abi: collectionAbi, functionName: 'totalSupply' }), 2n);
});

test('a minted deck carries its token fields wherever a deck is shown', async () => {
  const { id } = await mp.deployedCollection({ title: 'Shown' });
  const recipient = mp.wallet(5).account.address;
  const headers = { ...asService({ user_id: 'minter' }), 'idempotency-key': 'shown-1' };
  const r = await call(`${mp.backendUrl}/nft/collections/${id}/mint-and-generate`, { headers, body: { recipient, variables: {} } });
  assert.equal(r.status, 201, JSON.stringify(r.body));
  const { mint } = r.body.data;
  // What the indexer's ownership projection writes (docs/indexer.md).
  const transferredAt = new Date('2026-01-02T03:04:05.000Z');
  await mp.database.db
    .update(decks)
    .set({ current_owner: recipient.toLowerCase(), last_transfer_at: transferredAt })
    .where(eq(decks.id, mint.deckId));

  const expectFields = (d: Record<string, unknown>, where: string) => {
    assert.equal(d.token_id, mint.tokenId, where);
    assert.equal(d.mint_status, 'minted', where);
    assert.equal(d.mint_tx_hash, mint.txHash, where);
    assert.equal(String(d.mint_recipient).toLowerCase(), recipient.toLowerCase(), where);
    assert.match(String(d.minted_at), /^\d{4}-\d\d-\d\dT/, where);
    assert.equal(d.metadata_uri, mint.metadataUri, where);
    assert.equal(d.current_owner, recipient.toLowerCase(), where);
    assert.equal(d.last_transfer_at, transferredAt.toISOString(), where);
  };
  const svcUser = asService({ user_id: 'minter' });
  expectFields((await call(`${mp.backendUrl}/decks/${mint.deckId}`, { headers: svcUser })).body.data, 'GET /decks/:id');
  const inCollection = (await call(`${mp.backendUrl}/collections/${id}/decks`, { headers: svcUser })).body.data;
  expectFields(
    inCollection.find((d: { id: string }) => d.id === mint.deckId),
    'GET /collections/:id/decks',
  );
  const mine = (await call(`${mp.backendUrl}/decks`, { headers: svcUser })).body.data;
  expectFields(
    mine.find((d: { id: string }) => d.id === mint.deckId),
    'GET /decks',
  );
  const renamed = await call(`${mp.backendUrl}/decks/${mint.deckId}`, { method: 'PATCH', headers: svcUser, body: { name: 'Renamed' } });
  assert.equal(renamed.status, 200, JSON.stringify(renamed.body));
  expectFields(renamed.body.data, 'PATCH /decks/:id');
});

test("social_pfp comes from the profile the identity provider gave: the creator's at sample time, the minter's at mint time", async () => {
  const sign = (claims: Record<string, unknown>) =>
    new SignJWT(claims).setProtectedHeader({ alg: 'HS256' }).setExpirationTime('5m').sign(new TextEncoder().encode(JWT_SECRET));
  const creatorAuth = { authorization: `Bearer ${await sign({ sub: 'pfp-creator', name: 'Creator', picture: 'https://pfp.test/c.png' })}` };
  const minterAuth = { authorization: `Bearer ${await sign({ sub: 'pfp-minter', name: 'Minter', picture: 'https://pfp.test/m.png' })}` };
  const creator = (await call(`${mp.backendUrl}/api/me`, { headers: creatorAuth })).body.data.id as string;
  const minter = (await call(`${mp.backendUrl}/api/me`, { headers: minterAuth })).body.data.id as string;
  const { id } = await mp.deployedCollection({ title: 'Pictures' });
  await mp.database.db.update(collections).set({ user_id: creator }).where(eq(collections.id, id));

  const sample = await call(`${mp.backendUrl}/nft/collections/${id}/samples`, {
    headers: asService(),
    body: { count: 1, wallet_address: mp.wallet(6).account.address },
  });
  assert.equal(sample.status, 201, JSON.stringify(sample.body));
  const [sampleJob] = await mp.database.db.select().from(jobs).where(eq(jobs.id, sample.body.samples[0].jobId));
  assert.equal((sampleJob!.data as { variables: Record<string, string> }).variables.social_pfp, 'https://pfp.test/c.png');

  const minted = await call(`${mp.backendUrl}/nft/collections/${id}/mint-and-generate`, {
    headers: { ...asService({ user_id: minter }), 'idempotency-key': 'pfp-1' },
    body: { recipient: mp.wallet(7).account.address, variables: {} },
  });
  assert.equal(minted.status, 201, JSON.stringify(minted.body));
  const [mintJob] = await mp.database.db.select().from(jobs).where(eq(jobs.id, minted.body.data.generation.jobId));
  assert.equal((mintJob!.data as { variables: Record<string, string> }).variables.social_pfp, 'https://pfp.test/m.png');
});
