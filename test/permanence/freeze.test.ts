/**
 * Freezing (docs/permanence.md "Freezing") on a real anvil and the real backend: a sold-out
 * collection is exported, then POST …/freeze points its contract at the bundle and freezes it.
 * The chain is read back (tokenURI, reverting setters, the MetadataFrozen and BatchMetadataUpdate
 * logs, each exactly once), the metadata routes answer the bundle's bytes, the MetadataUpdate
 * emitter has nothing left to send, the collection.frozen webhook event is written once and matches
 * its OpenAPI schema, and `atelier verify` checks the frozen collection through the backend's
 * /ipfs gateway. Refusals: no export, an open sale, a second freeze, another user, no credentials.
 * A creator-owned contract gets the three calls, sends them from its owner wallet, and a later
 * POST records the freeze.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { and, eq, sql } from 'drizzle-orm';
import { SignJWT } from 'jose';
import { encodeFunctionData, getAddress, parseEventLogs, type Address, type Hex } from 'viem';
import { collectionAbi } from '../../contracts/abi/index.ts';
import { collections, webhookEvents } from '../../src/db/schema/index.ts';
import { emitPendingMetadataUpdates } from '../../src/services/metadata-updates.ts';
import { metadataUpdatePortsOf } from '../../src/services/wire-nft.ts';
import { verifyCollection } from '../../src/verify/run.ts';
import { JWT_SECRET, asService, call } from '../helpers/platform.ts';
import { startMintingPlatform, waitFor, type MintingPlatform } from '../minting/helpers.ts';

let mp: MintingPlatform;
let owner: { authorization: string };
let other: { authorization: string };
let ownerId: string;

const sign = (sub: string) =>
  new SignJWT({ sub, name: sub }).setProtectedHeader({ alg: 'HS256' }).setExpirationTime('30m').sign(new TextEncoder().encode(JWT_SECRET));

before(async () => {
  mp = await startMintingPlatform();
  owner = { authorization: `Bearer ${await sign('freeze-owner')}` };
  other = { authorization: `Bearer ${await sign('freeze-other')}` };
  ownerId = (await call(`${mp.backendUrl}/api/me`, { headers: owner })).body.data.id as string;
  await call(`${mp.backendUrl}/api/me`, { headers: other });
});
after(() => mp.close());

/** A deployed collection owned by the owner user, `mint` tokens minted with their artwork done. */
async function collectionWithTokens(title: string, editions: number, mint: number) {
  const { id, address } = await mp.deployedCollection({ title, editions });
  await mp.database.db.update(collections).set({ user_id: ownerId }).where(eq(collections.id, id));
  const minted = await call(`${mp.backendUrl}/nft/collections/${id}/mint`, {
    headers: { ...asService(), 'idempotency-key': `${title}-mint` },
    body: { recipient_address: mp.wallet(3).account.address, quantity: mint },
  });
  assert.equal(minted.status, 201, JSON.stringify(minted.body));
  const tokenIds = minted.body.data.token_ids as number[];
  for (const tokenId of tokenIds) {
    await waitFor(
      `${title} token ${tokenId} artwork`,
      async () => ((await call(`${mp.backendUrl}/collections/${id}/tokens/${tokenId}/receipt`)).status === 200 ? true : undefined),
      120_000,
      100,
    );
  }
  return { id, address, tokenIds };
}

async function exportReady(id: string): Promise<{ root_cid: string; images_cid: string }> {
  const started = await call(`${mp.backendUrl}/nft/collections/${id}/export`, { method: 'POST', headers: owner });
  assert.equal(started.status, 202, JSON.stringify(started.body));
  return waitFor(
    'export ready',
    async () => {
      const r = await call(`${mp.backendUrl}/nft/collections/${id}/export`, { headers: owner });
      assert.notEqual(r.body.data.status, 'failed', JSON.stringify(r.body.data));
      return r.body.data.status === 'ready' ? r.body.data : undefined;
    },
    120_000,
    100,
  );
}

const freeze = (id: string, headers: Record<string, string> = owner) =>
  call(`${mp.backendUrl}/nft/collections/${id}/freeze`, { method: 'POST', headers });

const readUri = (address: Address, functionName: 'tokenURI' | 'contractURI', args: unknown[] = []) =>
  mp.client.readContract({ address, abi: collectionAbi, functionName, args: args as never }) as Promise<string>;

/** The contract's logs of one event, decoded, from block 0. */
async function eventsOf(address: Address, eventName: 'MetadataFrozen' | 'BatchMetadataUpdate' | 'MetadataUpdate') {
  const logs = await mp.client.getLogs({ address, fromBlock: 0n, toBlock: 'latest' });
  return parseEventLogs({ abi: collectionAbi, logs, eventName });
}

/** Whether `functionName(value)` from the platform wallet (the contract's owner) reverts, and its error name. */
async function setterRevert(address: Address, functionName: 'setBaseURI' | 'setContractURI') {
  try {
    await mp.client.simulateContract({
      address,
      abi: collectionAbi,
      functionName,
      args: ['https://elsewhere.example/'],
      account: mp.platformAddress,
    });
    return undefined;
  } catch (err) {
    return String((err as Error).message);
  }
}

test('a sold-out collection freezes at its bundle: the chain, the metadata routes, the emitter, the webhook event and verify agree', {
  timeout: 600_000,
}, async () => {
  const { id, address, tokenIds } = await collectionWithTokens('Frozen', 3, 3);
  const first = Math.min(...tokenIds);
  assert.equal(first, 1, 'token ids start at 1');

  // Before any export: 409 NOT_EXPORTED naming what to do; another user 403; no credentials 401.
  const early = await freeze(id);
  assert.equal(early.status, 409, JSON.stringify(early.body));
  assert.equal(early.body.code, 'NOT_EXPORTED');
  assert.match(early.body.error, /POST \/nft\/collections\/.+\/export/);
  const ready = await exportReady(id);
  const stranger = await freeze(id, other);
  assert.equal(stranger.status, 403, JSON.stringify(stranger.body));
  assert.equal((await freeze(id, {})).status, 401);

  // The emitter has MetadataUpdates due for the three completed artworks (nothing sent them here).
  const ports = metadataUpdatePortsOf(mp.database.db, mp.chain);
  const dueBefore = (await ports.pending(500)).filter((r) => getAddress(r.contract_address) === address);
  assert.equal(dueBefore.length, 3, 'three MetadataUpdates are due before the freeze');

  const frozen = await freeze(id);
  assert.equal(frozen.status, 200, JSON.stringify(frozen.body));
  const root = ready.root_cid;
  assert.equal(frozen.body.data.root_cid, root);
  assert.equal(frozen.body.data.base_uri, `ipfs://${root}/metadata/`);
  assert.equal(frozen.body.data.contract_uri, `ipfs://${root}/contract.json`);
  assert.deepEqual(
    frozen.body.data.transactions.map((t: { action: string }) => t.action),
    ['setBaseURI', 'setContractURI', 'freezeMetadata'],
  );
  assert.equal(frozen.body.data.tx_hash, frozen.body.data.transactions[2].tx_hash);

  // The chain: tokenURI in the bundle, the setters refuse, the events exactly once.
  assert.equal(await readUri(address, 'tokenURI', [1n]), `ipfs://${root}/metadata/1`);
  assert.equal(await readUri(address, 'contractURI'), `ipfs://${root}/contract.json`);
  assert.equal(await mp.client.readContract({ address, abi: collectionAbi, functionName: 'metadataFrozen' }), true);
  assert.match((await setterRevert(address, 'setBaseURI')) ?? 'did not revert', /MetadataIsFrozen/);
  assert.match((await setterRevert(address, 'setContractURI')) ?? 'did not revert', /MetadataIsFrozen/);
  // No token can be minted past the bundle: maxSupply is the frozen supply for good.
  assert.equal(await mp.client.readContract({ address, abi: collectionAbi, functionName: 'maxSupply' }), 3n);
  await assert.rejects(
    mp.client.simulateContract({ address, abi: collectionAbi, functionName: 'setMaxSupply', args: [10n], account: mp.platformAddress }),
    /MetadataIsFrozen/,
  );
  await assert.rejects(
    mp.client.simulateContract({
      address,
      abi: collectionAbi,
      functionName: 'mintTo',
      args: [mp.wallet(3).account.address, 1n],
      account: mp.platformAddress,
    }),
    'a mint after the freeze reverts',
  );
  const frozenEvents = await eventsOf(address, 'MetadataFrozen');
  assert.equal(frozenEvents.length, 1);
  assert.equal(frozenEvents[0]!.transactionHash, frozen.body.data.tx_hash as Hex);
  assert.deepEqual(
    { ...frozenEvents[0]!.args },
    { baseURI: `ipfs://${root}/metadata/`, contractURI: `ipfs://${root}/contract.json` },
    'the event records the frozen URIs',
  );
  const batches = (await eventsOf(address, 'BatchMetadataUpdate')).filter((e) => {
    const a = e.args as { _fromTokenId: bigint; _toTokenId: bigint };
    return a._fromTokenId === 1n && a._toTokenId === 3n;
  });
  assert.equal(batches.length, 1, 'one BatchMetadataUpdate(1, totalSupply)');
  assert.equal(batches[0]!.transactionHash, frozen.body.data.tx_hash as Hex);

  // The backend's metadata routes answer the bundle's bytes (the same as ipfs://<root>/…).
  for (const [route, bundled] of [
    [`/collections/${id}/tokens/2`, `/ipfs/${root}/metadata/2`],
    [`/nft/metadata/${id}/2`, `/ipfs/${root}/metadata/2`],
    [`/collections/${id}/metadata.json`, `/ipfs/${root}/contract.json`],
  ] as const) {
    const [a, b] = await Promise.all([fetch(`${mp.backendUrl}${route}`), fetch(`${mp.backendUrl}${bundled}`)]);
    assert.equal(a.status, 200, route);
    assert.equal(await a.text(), await b.text(), `${route} is ${bundled}`);
    assert.match(a.headers.get('cache-control') ?? '', /immutable/);
  }
  const doc = (await call(`${mp.backendUrl}/collections/${id}/tokens/2`)).body;
  assert.equal(doc.image, `ipfs://${ready.images_cid}/2.png`);

  // The emitter: nothing due for a frozen collection, and a pass sends no MetadataUpdate to it.
  assert.deepEqual(
    (await ports.pending(500)).filter((r) => getAddress(r.contract_address) === address),
    [],
  );
  await emitPendingMetadataUpdates(ports, { chainIds: [31337] });
  assert.equal((await eventsOf(address, 'MetadataUpdate')).length, 0);

  // Freezing twice: 409 ALREADY_FROZEN naming the bundle; the record keeps the first freeze.
  const twice = await freeze(id);
  assert.equal(twice.status, 409, JSON.stringify(twice.body));
  assert.equal(twice.body.code, 'ALREADY_FROZEN');
  assert.match(twice.body.error, new RegExp(`already frozen at ipfs://${root}/`));
  const [row] = await mp.database.db.select().from(collections).where(eq(collections.id, id));
  assert.equal(row!.frozen_root_cid, root);
  assert.equal(row!.frozen_tx_hash, frozen.body.data.tx_hash);
  assert.ok(row!.frozen_at);

  // The collection.frozen event: once, and as /openapi.json documents it.
  const events = await mp.database.db
    .select()
    .from(webhookEvents)
    .where(and(eq(webhookEvents.type, 'collection.frozen'), sql`${webhookEvents.payload}->'data'->>'collection_id' = ${id}`));
  assert.equal(events.length, 1);
  const payload = events[0]!.payload as { data: Record<string, unknown> };
  assert.equal(payload.data.root_cid, root);
  assert.equal(payload.data.tx_hash, frozen.body.data.tx_hash);
  assert.equal(events[0]!.owner_id, ownerId);
  const openapi = (await (await fetch(`${mp.backendUrl}/openapi.json`)).json()) as {
    webhooks: Record<string, { post: { requestBody: { content: { 'application/json': { schema: object } } } } }>;
  };
  const ajv = new Ajv2020({ strict: false });
  const schema = openapi.webhooks['collection.frozen']!.post.requestBody.content['application/json'].schema;
  assert.ok(ajv.validate(schema, events[0]!.payload), ajv.errorsText());

  // `atelier verify` through the backend's /ipfs route: every document, image and the collection
  // document come from the bundle by their ipfs:// URLs.
  const lines: string[] = [];
  const code = await verifyCollection({ rpc: mp.anvil.rpcUrl, chainId: 31337, address, fromBlock: 0n, gateway: mp.backendUrl }, (l) =>
    lines.push(l),
  );
  const out = lines.join('\n');
  for (const t of [1, 2, 3]) assert.match(out, new RegExp(`^token ${t}: ok`, 'm'), out);
  // Nothing differs: 0 after the reveal, 3 while the secret is still unrevealed.
  assert.ok(code === 0 || code === 3, `verify exit ${code}:\n${out}`);
  assert.doesNotMatch(out, /NOT verified/, out);
});

test('tokens on chain the platform has not recorded (a purchase not followed yet): export and freeze are 409 TOKENS_NOT_FOLLOWED', {
  timeout: 600_000,
}, async () => {
  const { id, address } = await collectionWithTokens('Unfollowed', 3, 2);
  // The third token minted on the contract directly: the platform has no record of it.
  await mp.chain.sender(31337).send({
    purpose: 'test_mint_outside',
    to: address,
    data: encodeFunctionData({ abi: collectionAbi, functionName: 'mintTo', args: [mp.wallet(4).account.address, 1n] }),
  });
  assert.equal(await mp.client.readContract({ address, abi: collectionAbi, functionName: 'totalSupply' }), 3n);
  const exported = await call(`${mp.backendUrl}/nft/collections/${id}/export`, { method: 'POST', headers: owner });
  assert.equal(exported.status, 409, JSON.stringify(exported.body));
  assert.equal(exported.body.code, 'TOKENS_NOT_FOLLOWED');
  assert.match(exported.body.error, /the contract has minted 3 tokens but the platform has recorded 2/);
  const frozen = await freeze(id);
  assert.equal(frozen.status, 409, JSON.stringify(frozen.body));
  assert.equal(await mp.client.readContract({ address, abi: collectionAbi, functionName: 'metadataFrozen' }), false);
});

test('a ready export of a collection whose sale reopened: 409 SALE_OPEN naming why', { timeout: 600_000 }, async () => {
  const { id, address } = await collectionWithTokens('Reopened', 10, 1);
  const mintActive = (on: boolean) =>
    mp.chain.sender(31337).send({
      purpose: 'test_mint_active',
      to: address,
      data: encodeFunctionData({ abi: collectionAbi, functionName: 'setMintActive', args: [on] }),
    });
  await mintActive(false);
  await exportReady(id);
  await mintActive(true);
  const open = await freeze(id);
  assert.equal(open.status, 409, JSON.stringify(open.body));
  assert.equal(open.body.code, 'SALE_OPEN');
  // The route takes no body: an unknown field is refused naming it (as on the sale route); `{}` is
  // no body; the admin proxy's forward (the console's {collectionId}) sends none.
  const url = `${mp.backendUrl}/nft/collections/${id}/freeze`;
  const extra = await call(url, { method: 'POST', headers: owner, body: { foo: 1 } });
  assert.equal(extra.status, 400, JSON.stringify(extra.body));
  assert.equal(extra.body.error, 'body: Unrecognized key: "foo"');
  const empty = await call(url, { method: 'POST', headers: owner, body: {} });
  assert.equal(empty.status, 409, JSON.stringify(empty.body));
  assert.equal(empty.body.code, 'SALE_OPEN');
  const viaConsole = await call(`${mp.adminUrl}/api/nft/collections/freeze`, {
    method: 'POST',
    headers: owner,
    body: { collectionId: id },
  });
  assert.equal(viaConsole.status, 409, JSON.stringify(viaConsole.body));
  assert.equal(viaConsole.body.code, 'SALE_OPEN');
  assert.match(open.body.error, /the contract has minted 1 of its maxSupply 10/);
  assert.match(open.body.error, /mintActive\(\) is true/);
  assert.equal(await mp.client.readContract({ address, abi: collectionAbi, functionName: 'metadataFrozen' }), false);
});

test('a creator-owned contract: 409 OWNER_MUST_SIGN with the three calls; sent from the owner wallet, a later POST records it', {
  timeout: 600_000,
}, async () => {
  const { id, address } = await collectionWithTokens('CreatorOwned', 2, 2);
  const creator = mp.wallet(2);
  await mp.chain.sender(31337).send({
    purpose: 'test_transfer_ownership',
    to: address,
    data: encodeFunctionData({ abi: collectionAbi, functionName: 'transferOwnership', args: [creator.account.address] }),
  });
  const ready = await exportReady(id);

  const asked = await freeze(id);
  assert.equal(asked.status, 409, JSON.stringify(asked.body));
  assert.equal(asked.body.code, 'OWNER_MUST_SIGN');
  assert.equal(getAddress(asked.body.owner), creator.account.address);
  const calls = asked.body.calls as Array<{ to: string; from: string; data: Hex; function: string; description: string; chainId: number }>;
  assert.deepEqual(
    calls.map((c) => c.function),
    ['setBaseURI(string)', 'setContractURI(string)', 'freezeMetadata()'],
  );
  for (const c of calls) {
    assert.equal(getAddress(c.to), address);
    assert.equal(c.chainId, 31337);
    assert.ok(c.description.length > 0);
  }
  assert.equal(await mp.client.readContract({ address, abi: collectionAbi, functionName: 'metadataFrozen' }), false, 'nothing sent');

  // The owner sends them, in order, as given.
  for (const c of calls) {
    const hash = await creator.sendTransaction({ to: c.to as Address, data: c.data, account: creator.account, chain: creator.chain });
    const receipt = await mp.client.waitForTransactionReceipt({ hash });
    assert.equal(receipt.status, 'success', c.function);
  }
  assert.equal(await readUri(address, 'tokenURI', [1n]), `ipfs://${ready.root_cid}/metadata/1`);

  const recorded = await freeze(id);
  assert.equal(recorded.status, 200, JSON.stringify(recorded.body));
  assert.equal(recorded.body.data.root_cid, ready.root_cid);
  assert.equal(recorded.body.data.tx_hash, null);
  assert.deepEqual(recorded.body.data.transactions, []);
  const served = await fetch(`${mp.backendUrl}/collections/${id}/tokens/1`);
  assert.equal(await served.text(), await (await fetch(`${mp.backendUrl}/ipfs/${ready.root_cid}/metadata/1`)).text());
  assert.equal((await freeze(id)).body.code, 'ALREADY_FROZEN');
});
