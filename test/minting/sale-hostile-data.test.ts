/**
 * A hostile purchase must not stop the purchase follower (docs/minting.md "On-chain sale"), on
 * `atelier start` (embedded dev chain, indexer, worker, PGlite): collectors send `purchase` with
 * `data` that is valid JSON but that PostgreSQL's jsonb refuses — a NUL escape in a value, a lone
 * surrogate in a value, a NUL escape in a key — and then an honest purchase. Every token gets its
 * deck and artwork: the hostile ones with drawn variables and `choices_status` `invalid`, the honest
 * one with the buyer's choice; the follower never fails a pass over them.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, test } from 'node:test';
import { sql } from 'drizzle-orm';
import { toHex, type Address, type Hex } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { collectionAbi } from '../../contracts/abi/index.ts';
import { publicClientForUrl } from '../../src/chain/chains.ts';
import { ANVIL_PRIVATE_KEYS, freePort } from '../../src/chain/anvil.ts';
import { openDatabase, rows } from '../../src/db/client.ts';
import { startCli, stopAllClis, stopCli } from '../helpers/cli.ts';
import { walletFor } from '../helpers/kit.ts';
import { call, sampleData } from '../helpers/platform.ts';

const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'atelier-sale-hostile-'));
after(async () => {
  await stopAllClis();
  fs.rmSync(dataDir, { recursive: true, force: true });
});

/** Neither NUL nor a UTF-16 code unit of a surrogate (paired or not) survives in a stored reason. */
const clean = (s: string) => !/[\u0000\ud800-\udfff]/.test(s);

test('data jsonb refuses: drawn artwork for those purchases, the choice for the honest one after', { timeout: 400_000 }, async () => {
  const [port, adminPort, chainPort] = [await freePort(), await freePort(), await freePort()];
  const env = {
    DEV_CHAIN: 'true',
    DATA_DIR: dataDir,
    PORT: String(port),
    ADMIN_PORT: String(adminPort),
    DEV_CHAIN_PORT: String(chainPort),
  };
  const platform = await startCli(env, 240_000);
  let logs = '';
  platform.child.stdout!.on('data', (c: Buffer) => (logs += c.toString()));
  platform.child.stderr!.on('data', (c: Buffer) => (logs += c.toString()));
  const backend = `http://127.0.0.1:${port}`;
  const admin = `http://127.0.0.1:${adminPort}`;
  const h = { 'x-api-key': fs.readFileSync(path.join(dataDir, 'api-key'), 'utf8').trim() };

  // A collection whose buyer may write a motto (customizable), as in the reviewer's report.
  const data = sampleData();
  data.variables.push({
    name: 'motto',
    is_feature: false,
    is_user_customizable: true,
    value: { values: ['carpe diem', 'ad astra'], display_names: ['Carpe diem', 'Ad astra'], weights: [1, 1] },
  });
  const created = await call(`${backend}/nft/collections`, {
    headers: h,
    body: { title: 'Hostile data', description: 'sale hostile data', editions: 20, data },
  });
  assert.equal(created.status, 201, JSON.stringify(created.body));
  const id = created.body.data.collection.id as string;
  const deployed = await call(`${admin}/api/nft/collections/deploy`, { headers: h, body: { collectionId: id } });
  assert.ok(deployed.status < 300, JSON.stringify(deployed.body));
  const contract = (await call(`${backend}/nft/collections/${id}`, { headers: h })).body.data.collection.contract_address as Address;
  assert.match(contract, /^0x[0-9a-fA-F]{40}$/);
  const price = 10n ** 15n;
  const sale = await call(`${backend}/nft/collections/${id}/sale`, {
    method: 'PUT',
    headers: h,
    body: {
      currency: 'native',
      price: price.toString(),
      start: null,
      end: null,
      max_per_wallet: null,
      merkle_root: null,
      payouts: [{ address: privateKeyToAccount(ANVIL_PRIVATE_KEYS[5]!).address, bps: 10000 }],
    },
  });
  assert.equal(sale.status, 200, JSON.stringify(sale.body));

  const buyer = walletFor(`http://127.0.0.1:${chainPort}`, 7);
  const client = publicClientForUrl(31337, `http://127.0.0.1:${chainPort}`);
  const buy = async (payload: Hex) => {
    const hash = await buyer.writeContract({
      address: contract,
      abi: collectionAbi,
      functionName: 'purchase',
      args: [buyer.account.address, 1n, [], payload],
      value: price,
    });
    assert.equal((await client.waitForTransactionReceipt({ hash })).status, 'success');
  };
  // The JSON texts exactly as a collector sends them: escapes, which JSON.parse turns into the characters.
  await buy(toHex(String.raw`{"color":"red","motto":"\u0000"}`)); // token 1: NUL in a value
  await buy(toHex(String.raw`{"motto":"\ud800"}`)); // token 2: a lone surrogate in a value
  await buy(toHex(String.raw`{"\u0000":1}`)); // token 3: NUL in a key (the reason names the key)
  await buy(toHex(JSON.stringify({ color: 'red' }))); // token 4: honest, after them
  const sentAt = Date.now();

  const done = new Map<number, { image: string; attributes: { trait_type: string; value: string }[] }>();
  while (done.size < 4 && Date.now() - sentAt < 90_000) {
    for (const tokenId of [1, 2, 3, 4]) {
      if (done.has(tokenId)) continue;
      const doc = await call(`${backend}/nft/metadata/${id}/${tokenId}`);
      if (doc.status === 200 && typeof doc.body.image === 'string' && doc.body.image !== '') done.set(tokenId, doc.body);
    }
    await new Promise((r) => setTimeout(r, 500));
  }
  const failures = logs.split('sale purchase follower failed').length - 1;
  assert.deepEqual(
    [...done.keys()].sort(),
    [1, 2, 3, 4],
    `tokens with images after 90 s: ${[...done.keys()]}; follower failures: ${failures}\n${logs.slice(-3000)}`,
  );
  assert.equal(failures, 0, `the follower failed ${failures} passes:\n${logs.slice(-3000)}`);
  assert.equal(done.get(4)!.attributes.find((a) => a.trait_type === 'Color')?.value, 'Red', "the honest buyer's choice");
  for (const tokenId of [1, 2, 3, 4]) {
    const img = await fetch(done.get(tokenId)!.image);
    assert.equal(img.status, 200, `token ${tokenId} image`);
    const r = await call(`${backend}/collections/${id}/tokens/${tokenId}/receipt`);
    assert.equal(r.status, 200, JSON.stringify(r.body));
    const chosen = ((r.body.data ?? r.body).variables as { name: string; chosen_by: string }[]).filter((v) => v.chosen_by === 'minter');
    assert.deepEqual(
      chosen.map((v) => v.name),
      tokenId === 4 ? ['color'] : [],
      `token ${tokenId}: the platform drew every variable of a hostile purchase`,
    );
  }
  const mints = await call(`${backend}/nft/collections/${id}/mints`, { headers: h });
  assert.deepEqual(
    (mints.body.data.mints as { token_id: number }[]).map((m) => m.token_id),
    [1, 2, 3, 4],
  );
  const got = await call(`${backend}/nft/collections/${id}`, { headers: h });
  assert.equal(got.body.data.collection.tokens_minted, 4);

  // The rows as stored: each hostile purchase invalid with a reason free of the bad characters.
  await stopCli(platform.child);
  const database = await openDatabase({ dataDir: path.join(dataDir, 'pgdata') });
  try {
    const stored = await rows<{ token_id: number; choices_status: string; choices: Record<string, unknown>; deck_id: string | null }>(
      database.db,
      sql`select token_id::int as token_id, choices_status, choices, deck_id from sale_purchases where collection_id = ${id} order by token_id`,
    );
    assert.deepEqual(
      stored.map((p) => [p.token_id, p.choices_status, p.deck_id !== null]),
      [
        [1, 'invalid', true],
        [2, 'invalid', true],
        [3, 'invalid', true],
        [4, 'buyer', true],
      ],
    );
    for (const p of stored.slice(0, 3)) {
      assert.equal(typeof p.choices.reason, 'string', JSON.stringify(p.choices));
      assert.ok(clean(p.choices.reason as string), JSON.stringify(p.choices));
      assert.deepEqual(Object.keys(p.choices), ['reason']);
    }
    assert.deepEqual(stored[3]!.choices, { color: 'red' });
  } finally {
    await database.close();
  }
});
