/**
 * Minting on anvil (docs/api/nft.md §3 Minting, §4.1 mint, §4.2, §4.3): the end-to-end path
 * create → deploy → mint-and-generate → mint-status → artwork → tokenURI over HTTP → ERC-4906
 * MetadataUpdate; 100 concurrent mints; Idempotency-Key; the backend and design-stage routes.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { count, eq, sql } from 'drizzle-orm';
import { encodeFunctionData, getAddress, parseEventLogs, type Address } from 'viem';
import { collectionAbi } from '../../contracts/abi/index.ts';
import type { BackgroundDuty } from '../../src/duties/runner.ts';
import { startMetadataUpdater } from '../../src/duties/metadata-updates.ts';
import { metadataUpdatePortsOf } from '../../src/services/wire-nft.ts';
import { TxFailedError } from '../../src/chain/tx/api.ts';
import { chainTransactions, decks, jobs, userIdentities, users } from '../../src/db/schema/index.ts';
import { asService, call } from '../helpers/platform.ts';
import { startMintingPlatform, waitFor, type MintingPlatform } from './helpers.ts';

describe('minting', () => {
  let mp: MintingPlatform;
  let updater: BackgroundDuty;
  // A second emitter on the same database, as if two replicas ran the duty at once (a lease
  // holder paused past its expiry): the idempotency key still sends one MetadataUpdate per artwork.
  let twin: BackgroundDuty;
  let recipient: Address;

  before(async () => {
    mp = await startMintingPlatform();
    updater = startMetadataUpdater(metadataUpdatePortsOf(mp.database.db, mp.chain), { intervalMs: 200 });
    twin = startMetadataUpdater(metadataUpdatePortsOf(mp.database.db, mp.chain), { intervalMs: 150 });
    recipient = mp.wallet(4).account.address;
  });
  after(async () => {
    await updater.stop();
    await twin.stop();
    await mp.close();
  });

  test('end to end: mint-and-generate → mint-status → artwork → tokenURI over HTTP → MetadataUpdate on chain', async () => {
    const { id, address } = await mp.deployedCollection({ title: 'E2E Foxes' });
    // The minter's profile picture comes from the user holding the recipient's wallet identity.
    const [u] = await mp.database.db.insert(users).values({ avatar_url: 'https://pfp.example/minter.png' }).returning();
    await mp.database.db.insert(userIdentities).values({ user_id: u!.id, provider: 'wallet', provider_user_id: recipient.toLowerCase() });

    const r = await call(`${mp.backendUrl}/nft/collections/${id}/mint-and-generate`, {
      body: { recipient, variables: { color: 'blue' } },
      headers: asService(),
    });
    assert.equal(r.status, 201, JSON.stringify(r.body));
    const { mint, generation } = r.body.data;
    assert.equal(mint.tokenId, 1);
    assert.equal(getAddress(mint.recipient), recipient);
    assert.match(mint.txHash, /^0x[0-9a-f]{64}$/);
    assert.equal(mint.metadataUri, `http://meta.test/collections/${id}/tokens/1`);
    assert.equal(generation.status, 'generating');
    assert.equal(generation.deckId, mint.deckId);
    const [job] = await mp.database.db.select().from(jobs).where(eq(jobs.id, generation.jobId));
    assert.equal((job!.data as { variables: Record<string, string> }).variables.social_pfp, 'https://pfp.example/minter.png');

    const first = await call(`${mp.backendUrl}/nft/decks/${mint.deckId}/mint-status`, { headers: asService() });
    assert.equal(first.status, 200);
    assert.equal(first.body.data.token_id, 1);
    assert.equal(first.body.data.mint_status, 'minted');
    assert.equal(first.body.data.mint_tx_hash, mint.txHash);

    const done = await waitFor('artwork completed', async () => {
      const s = await call(`${mp.backendUrl}/nft/decks/${mint.deckId}/mint-status`, { headers: asService() });
      if (s.body.data.generation.status === 'failed') throw new Error(JSON.stringify(s.body));
      return s.body.data.generation.status === 'completed' ? s.body.data : undefined;
    });
    assert.ok(done.generation.image);

    const tokenURI = (await mp.client.readContract({ address, abi: collectionAbi, functionName: 'tokenURI', args: [1n] })) as string;
    assert.equal(tokenURI, `${mp.backendUrl}/collections/${id}/tokens/1`);
    const doc = await fetch(tokenURI);
    assert.equal(doc.status, 200);
    assert.match(doc.headers.get('content-type')!, /^application\/json/);
    const body = (await doc.json()) as { name: string; image: string; attributes: unknown[] };
    assert.equal(body.name, 'E2E Foxes #1');
    assert.equal(body.image, done.generation.image);
    assert.deepEqual(body.attributes, [{ trait_type: 'Color', value: 'Blue' }]);
    const contractURI = (await mp.client.readContract({ address, abi: collectionAbi, functionName: 'contractURI' })) as string;
    const cdoc = (await (await fetch(contractURI)).json()) as { name: string };
    assert.equal(cdoc.name, 'E2E Foxes');

    const logs = await waitFor('MetadataUpdate on chain', async () => {
      const l = await mp.client.getLogs({ address, fromBlock: 0n, toBlock: 'latest' });
      const updates = parseEventLogs({ abi: collectionAbi, logs: l, eventName: 'MetadataUpdate' });
      return updates.length > 0 ? updates : undefined;
    });
    assert.equal(logs.length, 1);
    // Both emitters have passed over the token several times since: still one.
    await new Promise((r) => setTimeout(r, 1000));
    const later = parseEventLogs({
      abi: collectionAbi,
      logs: await mp.client.getLogs({ address, fromBlock: 0n, toBlock: 'latest' }),
      eventName: 'MetadataUpdate',
    });
    assert.equal(later.length, 1, 'two emitters sent one MetadataUpdate for one artwork');
    assert.equal(logs[0]!.args._tokenId ?? (logs[0]!.args as { tokenId?: bigint }).tokenId, 1n);

    const mints = await call(`${mp.backendUrl}/nft/collections/${id}/mints`, { headers: asService() });
    assert.equal(mints.body.data.mints.length, 1);
    assert.deepEqual(Object.keys(mints.body.data.mints[0]).sort(), [
      'id',
      'mint_recipient',
      'mint_status',
      'mint_tx_hash',
      'minted_at',
      'token_id',
    ]);
  });

  test('100 concurrent mints on one collection: 100 distinct token ids, one deck each', async () => {
    const { id, address } = await mp.deployedCollection({ title: 'Crowd' });
    const results = await Promise.all(
      Array.from({ length: 100 }, (_, i) =>
        call(`${mp.backendUrl}/nft/collections/${id}/mint-and-generate`, {
          body: { recipient: mp.wallet(1 + (i % 8)).account.address, variables: {} },
          headers: asService(),
        }),
      ),
    );
    const bad = results.filter((r) => r.status !== 201);
    assert.equal(bad.length, 0, JSON.stringify(bad.slice(0, 3).map((r) => r.body)));
    const ids = results.map((r) => r.body.data.mint.tokenId as number).sort((a, b) => a - b);
    assert.deepEqual(
      ids,
      Array.from({ length: 100 }, (_, i) => i + 1),
    );
    const rows = await mp.database.db.select({ token_id: decks.token_id }).from(decks).where(eq(decks.collection_id, id));
    assert.equal(rows.length, 100);
    assert.equal(new Set(rows.map((r) => r.token_id)).size, 100);
    const supply = await mp.client.readContract({ address, abi: collectionAbi, functionName: 'totalSupply' });
    assert.equal(supply, 100n);
  });

  test('Idempotency-Key: concurrent and later retries never mint twice', async () => {
    const { id, address } = await mp.deployedCollection({ title: 'Retry' });
    const send = (key: string, rcpt: Address = recipient) =>
      call(`${mp.backendUrl}/nft/collections/${id}/mint-and-generate`, {
        body: { recipient: rcpt, variables: {} },
        headers: asService({ 'idempotency-key': key }),
      });
    const burst = await Promise.all([send('k-1'), send('k-1'), send('k-1')]);
    for (const r of burst) assert.equal(r.status, 201, JSON.stringify(r.body));
    assert.equal(new Set(burst.map((r) => r.body.data.mint.tokenId)).size, 1);
    const later = await send('k-1');
    assert.equal(later.status, 201);
    assert.equal(later.headers.get('idempotent-replayed'), 'true');
    assert.deepEqual(later.body, burst[0]!.body);
    const other = await send('k-2');
    assert.equal(other.body.data.mint.tokenId, 2);
    const reused = await send('k-1', mp.wallet(6).account.address);
    assert.equal(reused.status, 409);
    assert.equal(reused.body.code, 'IDEMPOTENCY_KEY_REUSED');
    assert.equal(await mp.client.readContract({ address, abi: collectionAbi, functionName: 'totalSupply' }), 2n);
    const [n] = await mp.database.db.select({ n: count() }).from(decks).where(eq(decks.collection_id, id));
    assert.equal(Number(n!.n), 2);
  });

  test('refusals: not deployed 409, unknown 404, bad input 400, sold out 409', async () => {
    const created = await call(`${mp.backendUrl}/nft/collections`, {
      body: { title: 'Draft', description: '', editions: 2, data: (await import('../helpers/platform.ts')).sampleData() },
      headers: asService(),
    });
    const draft = created.body.data.collection.id;
    const nd = await call(`${mp.backendUrl}/nft/collections/${draft}/mint-and-generate`, { body: { recipient }, headers: asService() });
    assert.equal(nd.status, 409);
    assert.match(nd.body.error, /not deployed/);
    const missing = await call(`${mp.backendUrl}/nft/collections/00000000-0000-4000-8000-000000000000/mint-and-generate`, {
      body: { recipient },
      headers: asService(),
    });
    assert.equal(missing.status, 404);
    const badRecipient = await call(`${mp.backendUrl}/nft/collections/${draft}/mint-and-generate`, {
      body: { recipient: 'nope' },
      headers: asService(),
    });
    assert.equal(badRecipient.status, 400);
    assert.match(badRecipient.body.error, /recipient/);
    const noAuth = await call(`${mp.backendUrl}/nft/collections/${draft}/mint-and-generate`, { body: { recipient } });
    assert.equal(noAuth.status, 401);

    const { id } = await mp.deployedCollection({ title: 'Tiny', editions: 2 });
    const badVar = await call(`${mp.backendUrl}/nft/collections/${id}/mint-and-generate`, {
      body: { recipient, variables: { color: 'green' } },
      headers: asService(),
    });
    assert.equal(badVar.status, 400);
    assert.match(badVar.body.error, /variables\.color/);
    // Design-stage mint with quantity: 2 fit, the third is refused before the chain.
    const two = await call(`${mp.backendUrl}/nft/collections/${id}/mint`, {
      body: { recipient_address: recipient, quantity: 2 },
      headers: asService(),
    });
    assert.equal(two.status, 201, JSON.stringify(two.body));
    assert.deepEqual(two.body.data.token_ids, [1, 2]);
    assert.equal(two.body.data.deck_ids.length, 2);
    const third = await call(`${mp.backendUrl}/nft/collections/${id}/mint`, {
      body: { recipient_address: recipient, quantity: 1 },
      headers: asService(),
    });
    assert.equal(third.status, 409);
    assert.match(third.body.error, /max supply/);
    const q = await call(`${mp.backendUrl}/nft/collections/${id}/mint`, { body: { recipient, quantity: 0 }, headers: asService() });
    assert.equal(q.status, 400);
  });

  test('minting with an output whose deck already holds a token is refused (409); the first token keeps its deck', async () => {
    const { id } = await mp.deployedCollection({ title: 'Twice' });
    // Two outputs of one user in one deck (as samples land).
    const first = await call(`${mp.backendUrl}/outputs`, {
      body: { collection_id: id, auto_create_deck: true },
      headers: asService({ user_id: 'collector-b' }),
    });
    assert.equal(first.status, 201, JSON.stringify(first.body));
    const second = await call(`${mp.backendUrl}/outputs`, {
      body: { collection_id: id, deck_id: first.body.data.deck_id },
      headers: asService({ user_id: 'collector-b' }),
    });
    assert.equal(second.status, 201, JSON.stringify(second.body));
    const mintWith = (outputId: string) =>
      call(`${mp.backendUrl}/nft/collections/${id}/mint`, { body: { recipient, outputId }, headers: asService() });
    const one = await mintWith(first.body.data.id);
    assert.equal(one.status, 201, JSON.stringify(one.body));
    const again = await mintWith(second.body.data.id);
    assert.equal(again.status, 409, JSON.stringify(again.body));
    assert.equal(again.body.code ?? again.body.data?.code ?? 'OUTPUT_MINTED', 'OUTPUT_MINTED');
    assert.match(again.body.error, new RegExp(`artwork of token ${one.body.data.tokenId}`));
    // The first token keeps its deck and document.
    const md = await call(`${mp.backendUrl}/nft/collections/${id}/metadata/${one.body.data.tokenId}`);
    assert.equal(md.status, 200, JSON.stringify(md.body));
    const [deck] = await mp.database.db.select().from(decks).where(eq(decks.id, first.body.data.deck_id));
    assert.equal(deck!.token_id, one.body.data.tokenId);
  });

  test('backend mint with outputId, tokens list, design-stage generate and per-token metadata', async () => {
    const { id } = await mp.deployedCollection({ title: 'Linked' });
    const out = await call(`${mp.backendUrl}/outputs`, {
      body: { collection_id: id, auto_create_deck: true },
      headers: asService({ user_id: 'creator-1' }),
    });
    assert.equal(out.status, 201, JSON.stringify(out.body));
    const outputId = out.body.data.id;
    const m = await call(`${mp.backendUrl}/nft/collections/${id}/mint`, {
      body: { recipient, chainId: 31337, outputId },
      headers: asService(),
    });
    assert.equal(m.status, 201, JSON.stringify(m.body));
    assert.equal(m.body.data.tokenId, 1);
    assert.equal(m.body.data.deckId, out.body.data.deck_id);
    const wrongChain = await call(`${mp.backendUrl}/nft/collections/${id}/mint`, { body: { recipient, chainId: 1 }, headers: asService() });
    assert.equal(wrongChain.status, 400);

    const plain = await call(`${mp.backendUrl}/nft/collections/${id}/mint`, { body: { recipient }, headers: asService() });
    assert.equal(plain.body.data.tokenId, 2);
    const md = await call(`${mp.backendUrl}/nft/collections/${id}/metadata/2`);
    assert.equal(md.status, 200);
    assert.equal(md.body.name, 'Linked #2');
    // Empty until the token's artwork completes (a fast worker may have finished it already).
    assert.match(md.body.image, /^(|http:\/\/127\.0\.0\.1:\d+\/files\/generations\/.+\.png)$/);

    const gen = await call(`${mp.backendUrl}/nft/collections/${id}/generate`, {
      body: { token_id: 2, generation_overrides: { color: 'red' } },
      headers: asService(),
    });
    assert.equal(gen.status, 202, JSON.stringify(gen.body));
    assert.equal(gen.body.data.token_id, 2);
    assert.ok(gen.body.data.job_id);
    const missingToken = await call(`${mp.backendUrl}/nft/collections/${id}/generate`, { body: { token_id: 99 }, headers: asService() });
    assert.equal(missingToken.status, 404);
    await waitFor('token 2 artwork', async () => {
      const d = await call(`${mp.backendUrl}/nft/collections/${id}/metadata/2`);
      return d.body.image ? d : undefined;
    });
    const final = await call(`${mp.backendUrl}/nft/collections/${id}/metadata/2`);
    assert.deepEqual(final.body.attributes, [{ trait_type: 'Color', value: 'Red' }]);

    const page = await call(`${mp.backendUrl}/nft/collections/${id}/tokens?page=1&limit=1`, { headers: asService() });
    assert.equal(page.status, 200);
    assert.equal(page.body.data.total, 2);
    assert.equal(page.body.data.tokens.length, 1);
    assert.equal(page.body.data.tokens[0].token_id, 1);
    const page2 = await call(`${mp.backendUrl}/nft/collections/${id}/tokens?page=2&limit=1`, { headers: asService() });
    assert.equal(page2.body.data.tokens[0].token_id, 2);
    const badPage = await call(`${mp.backendUrl}/nft/collections/${id}/tokens?limit=500`, { headers: asService() });
    assert.equal(badPage.status, 400);
  });

  test('a paused collection refuses a mint with 409 naming the pause, and no deck is made', async () => {
    const { id, address } = await mp.deployedCollection({ title: 'Paused' });
    await mp.chain.sender(31337).send({
      purpose: 'test_pause',
      to: address,
      data: encodeFunctionData({ abi: collectionAbi, functionName: 'setMintActive', args: [false] }),
    });
    const res = await call(`${mp.backendUrl}/nft/collections/${id}/mint-and-generate`, {
      body: { recipient, variables: {} },
      headers: asService(),
    });
    assert.equal(res.status, 409, JSON.stringify(res.body));
    assert.match(res.body.error, /paused.*MintNotActive/);
    const mints = await call(`${mp.backendUrl}/nft/collections/${id}/mints`, { headers: asService() });
    assert.deepEqual(mints.body.data.mints, []);
  });

  test('a mint above the cap lowered on chain is a 409 naming the sold-out collection, not a 502', async () => {
    // The record allows 1000, the contract 1 (setMaxSupply): the contract's refusal is what counts.
    // Anvil words MaxSupplyExceeded(uint256,uint256) as its selector and raw argument bytes only.
    const { id, address } = await mp.deployedCollection({ title: 'Capped on chain' });
    await mp.chain.sender(31337).send({
      purpose: 'test_cap',
      to: address,
      data: encodeFunctionData({ abi: collectionAbi, functionName: 'setMaxSupply', args: [1n] }),
    });
    const mint = () => call(`${mp.backendUrl}/nft/collections/${id}/mint-and-generate`, { body: { recipient }, headers: asService() });
    assert.equal((await mint()).status, 201);
    const over = await mint();
    assert.equal(over.status, 409, JSON.stringify(over.body));
    assert.match(over.body.error, /sold out.*\(MaxSupplyExceeded\)/);
  });

  test('per-token mint: the next id is minted, any other id is a 409 naming the next one', async () => {
    const { id } = await mp.deployedCollection({ title: 'Per Token' });
    const wrong = await call(`${mp.backendUrl}/nft/collections/${id}/tokens/5/mint`, {
      body: { recipient_address: recipient, quantity: 1 },
      headers: asService(),
    });
    assert.equal(wrong.status, 409);
    assert.equal(wrong.body.next_token_id, 1);
    assert.match(wrong.body.error, /next token id .* is 1/);
    const first = await call(`${mp.backendUrl}/nft/collections/${id}/tokens/1/mint`, {
      body: { recipient_address: recipient, quantity: 2 },
      headers: asService(),
    });
    assert.equal(first.status, 201, JSON.stringify(first.body));
    assert.deepEqual(first.body.data.token_ids, [1, 2]);
    assert.equal(first.body.data.requested_token_id, 1);
    const next = await call(`${mp.backendUrl}/nft/collections/${id}/tokens/3/mint`, {
      body: { recipient_address: recipient, quantity: 1 },
      headers: asService(),
    });
    assert.deepEqual(next.body.data.token_ids, [3]);
    const bad = await call(`${mp.backendUrl}/nft/collections/${id}/tokens/zero/mint`, {
      body: { recipient_address: recipient, quantity: 1 },
      headers: asService(),
    });
    assert.equal(bad.status, 400);
    assert.match(bad.body.error, /path\.tokenId/);
  });

  test('admin proxy: POST and GET /api/nft/mint', async () => {
    const { id } = await mp.deployedCollection({ title: 'Admin' });
    const r = await call(`${mp.adminUrl}/api/nft/mint`, {
      body: { collectionId: id, recipient, variables: {} },
      headers: asService({ 'idempotency-key': 'admin-1' }),
    });
    assert.equal(r.status, 201, JSON.stringify(r.body));
    assert.equal(r.body.success, true);
    assert.equal(r.body.mint.tokenId, 1);
    assert.equal(r.body.generation.status, 'generating');
    const again = await call(`${mp.adminUrl}/api/nft/mint`, {
      body: { collectionId: id, recipient, variables: {} },
      headers: asService({ 'idempotency-key': 'admin-1' }),
    });
    assert.equal(again.body.mint.tokenId, 1);
    const list = await call(`${mp.adminUrl}/api/nft/mint?collectionId=${id}`, { headers: asService() });
    assert.equal(list.status, 200);
    assert.equal(list.body.mints.length, 1);
    const bad = await call(`${mp.adminUrl}/api/nft/mint`, { body: { collectionId: id, recipient: '0x1' }, headers: asService() });
    assert.equal(bad.status, 400);
    assert.equal(bad.body.success, false);
  });

  test('the zero address as recipient is a 400 naming the field on every mint route, and nothing is sent', async () => {
    const { id, address } = await mp.deployedCollection({ title: 'Nobody' });
    const zero = `0x${'0'.repeat(40)}`;
    // Transactions to this collection only: background duties of the platform (MetadataUpdate for
    // earlier tests' artwork) may send others meanwhile.
    const sentToIt = () =>
      mp.database.db
        .select({ n: count() })
        .from(chainTransactions)
        .where(sql`lower(${chainTransactions.to_address}) = ${address.toLowerCase()}`);
    const before = await sentToIt();
    for (const [url, body, field] of [
      [`${mp.adminUrl}/api/nft/mint`, { collectionId: id, recipient: zero }, 'recipient'],
      [`${mp.backendUrl}/nft/collections/${id}/mint-and-generate`, { recipient: zero }, 'recipient'],
      [`${mp.backendUrl}/nft/collections/${id}/mint`, { recipient_address: zero, quantity: 1 }, 'recipient_address'],
      [`${mp.backendUrl}/nft/collections/${id}/tokens/1/mint`, { recipient: zero }, 'recipient'],
    ] as const) {
      const r = await call(url, { body, headers: asService() });
      assert.equal(r.status, 400, `${url}: ${JSON.stringify(r.body)}`);
      assert.match(r.body.error, new RegExp(`^body\\.${field}: the zero address cannot receive a token`));
    }
    assert.deepEqual(await sentToIt(), before);
  });

  test('a mint the contract refuses with an argument of zero bytes is recorded as failed, never left queued', async () => {
    // Anvil words ERC721InvalidReceiver(address(0)) with the argument's raw bytes (NUL characters),
    // which a text column refuses: the row stayed `queued` and the request was a 500.
    const { address } = await mp.deployedCollection({ title: 'Refused' });
    const data = encodeFunctionData({ abi: collectionAbi, functionName: 'mintTo', args: [`0x${'0'.repeat(40)}`, 1n] });
    const err = await mp.chain
      .sender(31337)
      .send({ purpose: 'test_mint_refused', to: address, data })
      .then(
        () => assert.fail('the contract should refuse the mint'),
        (e: unknown) => e,
      );
    assert.ok(err instanceof TxFailedError, String(err));
    assert.match(err.message, /custom error 0x64a0ae92/);
    const [row] = await mp.database.db.select().from(chainTransactions).where(eq(chainTransactions.purpose, 'test_mint_refused'));
    assert.equal(row!.status, 'failed');
    assert.doesNotMatch(row!.error ?? '', /\u0000/);
  });
});
