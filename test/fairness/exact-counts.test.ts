/**
 * Exact trait counts with a delayed, offset reveal (docs/fairness.md "Exact counts") on the real
 * backend, a real anvil and a generation worker: a 30-edition collection with counts 3/9/18 on one
 * trait and one excluded combination with a second trait sells out through the owner's mint route;
 * before the offset block every token document says `revealed: false` and no artwork exists; after
 * it the rarity route shows exactly 3/9/18 and no token has the excluded combination, the provenance
 * hash on chain is the deck recomputed from the revealed secret, each token's traits are its deck
 * position's, and one BatchMetadataUpdate(1, 30) covers the range. Bad inputs are 400 naming the field.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { asc, eq, sql } from 'drizzle-orm';
import { parseEventLogs, type Address, type Hex } from 'viem';
import { collectionAbi } from '../../contracts/abi/index.ts';
import { collections, decks } from '../../src/db/schema/index.ts';
import { dealDeck, deckPositionOf, provenanceHashOf, revealOffsetOf, type ExactSpec } from '../../src/domain/exact-deck.ts';
import { checkExactDeck } from '../../src/domain/verify-receipt.ts';
import { DEFAULT_GATEWAY } from '../../src/verify/args.ts';
import { fetchBytes, fetchJson } from '../../src/verify/fetch.ts';
import { EXIT_NOT_REVEALED, EXIT_OK, verifyCollection } from '../../src/verify/run.ts';
import { asService, call } from '../helpers/platform.ts';
import { startMintingPlatform, waitFor, type MintingPlatform } from '../minting/helpers.ts';

const COVER = 'https://example.com/exact-cover.png';
const RECIPIENT = '0x70997970C51812dc3A010C7d01b50e0d17dc79C8';

function exactData(over: { counts?: number[]; exclusions?: unknown; bgExtra?: Record<string, unknown> } = {}) {
  const [gold, silver, iron] = over.counts ?? [3, 9, 18];
  return {
    version: 'v2',
    distribution: 'exact',
    steps: [{ id: 1, nodeName: 'image', nodePayload: { intent: 'a $metal ring on a $bg cloth' } }],
    variables: [
      {
        name: 'metal',
        is_feature: true,
        feature_name: 'Metal',
        value: [
          { value: 'gold', count: gold },
          { value: 'silver', count: silver },
          { value: 'iron', count: iron },
        ],
      },
      { name: 'bg', is_feature: true, feature_name: 'Background', value: { values: ['red', 'blue'], counts: [15, 15] }, ...over.bgExtra },
    ],
    exclusions: over.exclusions ?? [{ $metal: 'gold', $bg: 'red' }],
  };
}

const attr = (doc: { attributes: Array<{ trait_type: string; value: string }> }, type: string) =>
  doc.attributes.find((a) => a.trait_type === type)?.value;

describe('exact counts: a 30-edition collection, 3/9/18 and one exclusion, revealed by an offset after sell-out', () => {
  let mp: MintingPlatform;
  let id: string;
  let contract: Address;
  const mine = () =>
    fetch(mp.anvil.rpcUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'evm_mine', params: [] }),
    });
  const tokenDoc = async (t: number) => (await call(`${mp.backendUrl}/collections/${id}/tokens/${t}`)).body;
  const contractDoc = async () => (await call(`${mp.backendUrl}/collections/${id}/metadata.json`)).body;
  const outputsOf = async () =>
    Number(
      (
        (await mp.database.db.execute(sql`select count(*)::int as n from outputs where collection_id = ${id}`)) as unknown as {
          rows: Array<{ n: number }>;
        }
      ).rows[0]!.n,
    );

  before(async () => {
    mp = await startMintingPlatform();
    const deployed = await mp.deployedCollection({ title: 'Exact', editions: 30, data: exactData() });
    id = deployed.id;
    contract = deployed.address;
    await mp.database.db.update(collections).set({ cover_image_url: COVER }).where(eq(collections.id, id));
  });
  after(() => mp.close());

  test('bad inputs are 400 naming the field; nothing is created', async () => {
    const create = (data: unknown, editions = 30) =>
      call(`${mp.backendUrl}/nft/collections`, { headers: asService(), body: { title: 'Bad exact', editions, data } });
    for (const [data, field, editions] of [
      [exactData({ counts: [3, 9, 17] }), 'body.data.variables[0].value', 30],
      [exactData(), 'body.data.variables[0].value', 31],
      [exactData({ exclusions: [{ $metal: 'iron', $bg: 'red' }] }), 'body.data.exclusions', 30],
      [exactData({ exclusions: [{ $metal: 'gold', $fur: 'red' }] }), 'body.data.exclusions[0].$fur', 30],
      [exactData({ bgExtra: { is_selectable: true } }), 'body.data.variables[1].is_selectable', 30],
    ] as const) {
      const r = await create(data, editions);
      assert.equal(r.status, 400, JSON.stringify(r.body));
      assert.ok(JSON.stringify(r.body).includes(field), `${field} in ${JSON.stringify(r.body)}`);
    }
    // An update is checked the same way (counts against the editions it would have).
    const u = await call(`${mp.backendUrl}/nft/collections/${id}`, {
      method: 'PUT',
      headers: asService(),
      body: { data: exactData({ counts: [1, 1, 1] }) },
    });
    assert.equal(u.status, 400, JSON.stringify(u.body));
    assert.match(JSON.stringify(u.body), /data\.variables\[0\]\.value/);
  });

  test('30 mints sell out; before the offset block every document says revealed:false and no artwork exists; then the deck is dealt exactly', async () => {
    // The public mint-and-generate route would draw a token's traits at once: exact collections refuse it.
    const mag = await call(`${mp.backendUrl}/nft/collections/${id}/mint-and-generate`, {
      headers: asService(),
      body: { recipient: RECIPIENT, variables: {} },
    });
    assert.equal(mag.status, 409, JSON.stringify(mag.body));
    assert.equal(mag.body.code ?? mag.body.error?.code, 'EXACT_COUNTS');

    let lastMintBlock = 0n;
    for (let i = 0; i < 3; i++) {
      const r = await call(`${mp.backendUrl}/nft/collections/${id}/mint`, {
        headers: asService({ 'idempotency-key': `exact-mint-${i}` }),
        body: { recipient: RECIPIENT, quantity: 10 },
      });
      assert.equal(r.status, 201, JSON.stringify(r.body));
      const receipt = await mp.client.getTransactionReceipt({ hash: r.body.data.txHash as Hex });
      lastMintBlock = receipt.blockNumber;
    }
    assert.equal(await mp.client.readContract({ address: contract, abi: collectionAbi, functionName: 'totalSupply' }), 30n);
    const tokenDecks = (
      await mp.database.db.select({ id: decks.id }).from(decks).where(eq(decks.collection_id, id)).orderBy(asc(decks.token_id))
    ).map((d) => d.id);

    // Nobody (the operator included) chooses a token's artwork before the reveal: no generation
    // into a token's deck, no cover change of it; nothing is written.
    const intoDeck = await call(`${mp.backendUrl}/collections/${id}/generations`, {
      headers: asService(),
      body: { deck_id: tokenDecks[0], variables: { metal: 'gold', bg: 'blue' } },
    });
    assert.equal(intoDeck.status, 409, JSON.stringify(intoDeck.body));
    assert.match(JSON.stringify(intoDeck.body), /EXACT_COUNTS/);
    assert.match(JSON.stringify(intoDeck.body), /body\.deck_id/);
    const cover = await call(`${mp.backendUrl}/decks/${tokenDecks[0]}`, {
      method: 'PATCH',
      headers: asService({ user_id: 'operator' }),
      body: { cover_output_id: '00000000-0000-4000-8000-000000000001' },
    });
    assert.equal(cover.status, 409, JSON.stringify(cover.body));
    assert.match(JSON.stringify(cover.body), /EXACT_COUNTS/);
    assert.equal(await outputsOf(), 0, 'the refused generation wrote nothing');
    const [deck1] = await mp.database.db.select().from(decks).where(eq(decks.id, tokenDecks[0]!));
    assert.equal(deck1!.cover_output_id, null);

    // A cover that is not the dealt artwork (as one set before these refusals existed) does not
    // exempt a token from the reveal: token 2's is planted here and must be replaced by its deal.
    const planted = await call(`${mp.backendUrl}/collections/${id}/generations`, {
      headers: asService(),
      body: { variables: { metal: 'gold', bg: 'blue' } },
    });
    assert.equal(planted.status, 202, JSON.stringify(planted.body));
    const plantedOutput = planted.body.data.outputId as string;
    await mp.database.db.update(decks).set({ cover_output_id: plantedOutput }).where(eq(decks.id, tokenDecks[1]!));

    // The provenance was set on chain before the first token, once.
    const provenance = await mp.client.readContract({ address: contract, abi: collectionAbi, functionName: 'provenanceHash' });
    assert.match(provenance, /^0x[0-9a-f]{64}$/);
    assert.notEqual(provenance, `0x${'0'.repeat(64)}`);
    const [provLog] = await mp.client.getContractEvents({
      address: contract,
      abi: collectionAbi,
      eventName: 'ProvenanceSet',
      fromBlock: 0n,
    });
    const [firstMint] = await mp.client.getContractEvents({ address: contract, abi: collectionAbi, eventName: 'Transfer', fromBlock: 0n });
    assert.ok(provLog!.blockNumber < firstMint!.blockNumber, 'provenance before the first mint');
    await assert.rejects(
      mp.wallet(0).writeContract({
        address: contract,
        abi: collectionAbi,
        functionName: 'setProvenance',
        args: [`0x${'11'.repeat(32)}`],
        chain: null,
      }),
      /ProvenanceAlreadySet/,
    );

    // Sold out, but no block after the last mint yet: nothing is dealt, nothing generated, even after
    // a few duty ticks (2 s each).
    await new Promise((r) => setTimeout(r, 5_000));
    assert.equal(await mp.client.getBlockNumber({ cacheTime: 0 }), lastMintBlock);
    for (let t = 1; t <= 30; t++) {
      if (t === 2) continue; // the planted cover
      const doc = await tokenDoc(t);
      assert.equal(doc.revealed, false, `token ${t}: ${JSON.stringify(doc)}`);
      assert.equal(doc.image, COVER);
      assert.deepEqual(doc.attributes, []);
    }
    assert.equal(await outputsOf(), 1, 'no artwork exists before the offset block (but the planted one)');
    const before = await contractDoc();
    assert.equal(before.fairness.exact.provenance_hash, provenance);
    assert.equal(before.fairness.exact.offset, null);
    assert.equal(before.fairness.revealed_secret, null);
    const verify = async () => {
      const lines: string[] = [];
      // The documents name the test's METADATA_BASE_URL host; it is this backend.
      const local = (u: string) => u.replace(/^https?:\/\/meta\.test/, mp.backendUrl);
      const get = { json: (u: string) => fetchJson(local(u)), bytes: (u: string) => fetchBytes(local(u)) };
      const code = await verifyCollection(
        { rpc: mp.anvil.rpcUrl, chainId: 31337, address: contract, fromBlock: 0n, gateway: DEFAULT_GATEWAY },
        (l) => lines.push(l),
        { get },
      );
      return { code, out: lines.join('\n') };
    };
    const early = await verify();
    assert.equal(early.code, EXIT_NOT_REVEALED, early.out);
    assert.match(early.out, /the deck is not dealt yet/);

    // The first block after the last mint.
    await mine();
    const revealed = await waitFor(
      'the reveal: offset, 30 artworks, the secret',
      async () => {
        const doc = await contractDoc();
        if (doc.fairness?.exact?.offset === null || !doc.fairness?.revealed_secret) return undefined;
        const rarity = await call(`${mp.backendUrl}/nft/collections/${id}/rarity`, { headers: asService() });
        const metal = rarity.body.data?.traits?.find((x: { trait_type: string }) => x.trait_type === 'Metal');
        const counted = (metal?.values ?? []).reduce((a: number, v: { count: number }) => a + v.count, 0);
        return counted === 30 ? { doc, rarity: rarity.body.data } : undefined;
      },
      180_000,
      1000,
    );

    // Exactly 3/9/18, and 15/15 for the second trait.
    const countsOf = (type: string) =>
      Object.fromEntries(
        revealed.rarity.traits
          .find((x: { trait_type: string }) => x.trait_type === type)
          .values.map((v: { value: string; count: number }) => [v.value, v.count]),
      );
    assert.equal(revealed.rarity.minted, 30);
    assert.deepEqual(countsOf('Metal'), { gold: 3, silver: 9, iron: 18 });
    assert.deepEqual(countsOf('Background'), { red: 15, blue: 15 });

    // The offset: the hash of the first block after the last mint, mod 30.
    const exact = revealed.doc.fairness.exact;
    assert.equal(exact.offset_block, Number(lastMintBlock) + 1);
    const offsetBlock = await mp.client.getBlock({ blockNumber: BigInt(exact.offset_block) });
    assert.equal(exact.offset, revealOffsetOf(offsetBlock.hash, 30));

    // From public data: the revealed secret deals the deck whose hash is the one on chain.
    const [, secret] = await mp.client.readContract({ address: contract, abi: collectionAbi, functionName: 'revealedSeed' });
    const deck = dealDeck(exact.spec as ExactSpec, secret);
    assert.equal(provenanceHashOf(deck), provenance);
    assert.equal(checkExactDeck(exact, provenance, secret).differences.length, 0);

    // Each token's traits are its deck position's; none has the excluded combination.
    for (let t = 1; t <= 30; t++) {
      const doc = await tokenDoc(t);
      const entry = deck[deckPositionOf(t, exact.offset, 30)]!;
      assert.equal(doc.revealed, true);
      assert.equal(attr(doc, 'Metal'), entry.metal, `token ${t}`);
      assert.equal(attr(doc, 'Background'), entry.bg, `token ${t}`);
      assert.ok(!(attr(doc, 'Metal') === 'gold' && attr(doc, 'Background') === 'red'), `token ${t} has the excluded combination`);
    }
    const [deck2] = await mp.database.db.select().from(decks).where(eq(decks.id, tokenDecks[1]!));
    assert.notEqual(deck2!.cover_output_id, plantedOutput, "token 2's planted cover was replaced by its dealt artwork");

    // The receipt records the deck position, the offset and the provenance; the seed is still the fair one.
    let receipt: any;
    await waitFor(
      'receipt of token 7',
      async () => {
        const r = await call(`${mp.backendUrl}/collections/${id}/tokens/7/receipt`);
        receipt = r.body;
        return r.status === 200 ? true : undefined;
      },
      60_000,
      500,
    );
    assert.deepEqual(receipt.deck, {
      position: deckPositionOf(7, exact.offset, 30),
      offset: exact.offset,
      offset_block: exact.offset_block,
      provenance_hash: provenance,
    });
    assert.equal(receipt.variables.find((v: { name: string }) => v.name === 'metal').chosen_by, 'deck');
    assert.match(receipt.seed.value, /^0x[0-9a-f]{64}$/);

    // One BatchMetadataUpdate(1, 30) once every artwork is done.
    const batch = await waitFor(
      'BatchMetadataUpdate',
      async () => {
        const logs = await mp.client.getLogs({ address: contract, fromBlock: 0n });
        const events = parseEventLogs({ abi: collectionAbi, logs, eventName: 'BatchMetadataUpdate' });
        return events.length > 0 ? events : undefined;
      },
      60_000,
      500,
    );
    assert.equal(batch.length, 1);
    assert.equal(batch[0]!.args._fromTokenId, 1n);
    assert.equal(batch[0]!.args._toTokenId, 30n);

    // `atelier verify` from public data alone: the deck, the offset and every token's dealt values.
    const late = await verify();
    assert.equal(late.code, EXIT_OK, late.out);
    assert.match(late.out, new RegExp(`exact: provenance ${provenance}, offset ${exact.offset}`));
    assert.match(late.out, /token 30: ok/);

    // A sale under way (here over) cannot switch its distribution.
    const weighted = { ...exactData(), distribution: 'weighted', exclusions: [] };
    const switched = await call(`${mp.backendUrl}/nft/collections/${id}`, {
      method: 'PUT',
      headers: asService(),
      body: { data: weighted },
    });
    assert.equal(switched.status, 409, JSON.stringify(switched.body));
    assert.match(JSON.stringify(switched.body), /EXACT_COUNTS/);
    // Nor, once the deck is dealt, rename a counted value (the counts still sum): nothing changes.
    const renamed = exactData();
    renamed.variables[0]!.value = [
      { value: 'Gold', count: 3 },
      { value: 'silver', count: 9 },
      { value: 'iron', count: 18 },
    ];
    renamed.exclusions = [{ $metal: 'Gold', $bg: 'red' }];
    const rename = await call(`${mp.backendUrl}/nft/collections/${id}`, { method: 'PUT', headers: asService(), body: { data: renamed } });
    assert.equal(rename.status, 409, JSON.stringify(rename.body));
    assert.match(JSON.stringify(rename.body), /EXACT_COUNTS/);
    const [stored] = await mp.database.db.select().from(collections).where(eq(collections.id, id));
    assert.equal((stored!.data as { variables: Array<{ value: Array<{ value: string }> }> }).variables[0]!.value[0]!.value, 'gold');
  });
});
