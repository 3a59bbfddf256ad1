/**
 * The collector's path end to end on `atelier start` (embedded dev chain, indexer, worker): the
 * operator configures a collection's on-chain sale; a wallet sends purchase(to, 3, [], data)
 * with viem and nothing else; within 60 s the three tokens' documents have generated images with
 * the buyer's selectable choice (docs/minting.md "On-chain sale"). The platform is restarted right
 * after the purchase (no token twice), each receipt's seed mixes the purchase's block hash, and a
 * purchase whose block a reorganisation removes loses its token and deck.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, test } from 'node:test';
import { toHex, type Address } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { collectionAbi } from '../../contracts/abi/index.ts';
import { publicClientForUrl } from '../../src/chain/chains.ts';
import { ANVIL_PRIVATE_KEYS, freePort } from '../../src/chain/anvil.ts';
import { startCli, stopAllClis, stopCli } from '../helpers/cli.ts';
import { walletFor } from '../helpers/kit.ts';
import { call, sampleData } from '../helpers/platform.ts';

const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'atelier-sale-e2e-'));
after(async () => {
  await stopAllClis();
  fs.rmSync(dataDir, { recursive: true, force: true });
});

test('a purchase on chain becomes three tokens with artwork and the buyer’s choice', { timeout: 400_000 }, async () => {
  const [port, adminPort, chainPort] = [await freePort(), await freePort(), await freePort()];
  const env = {
    DEV_CHAIN: 'true',
    DATA_DIR: dataDir,
    PORT: String(port),
    ADMIN_PORT: String(adminPort),
    DEV_CHAIN_PORT: String(chainPort),
  };
  let platform = await startCli(env, 240_000);
  const backend = `http://127.0.0.1:${port}`;
  const admin = `http://127.0.0.1:${adminPort}`;
  const h = { 'x-api-key': fs.readFileSync(path.join(dataDir, 'api-key'), 'utf8').trim() };

  const created = await call(`${backend}/nft/collections`, {
    headers: h,
    body: { title: 'Bought on chain', description: 'sale e2e', editions: 20, data: sampleData() },
  });
  assert.equal(created.status, 201, JSON.stringify(created.body));
  const id = created.body.data.collection.id as string;
  const deployed = await call(`${admin}/api/nft/collections/deploy`, { headers: h, body: { collectionId: id } });
  assert.ok(deployed.status < 300, JSON.stringify(deployed.body));
  const got = await call(`${backend}/nft/collections/${id}`, { headers: h });
  const contract = got.body.data.collection.contract_address as Address;
  assert.match(contract, /^0x[0-9a-fA-F]{40}$/);

  const payee = privateKeyToAccount(ANVIL_PRIVATE_KEYS[5]!).address;
  const price = 10n ** 15n;
  const sale = await call(`${backend}/nft/collections/${id}/sale`, {
    method: 'PUT',
    headers: h,
    body: {
      currency: 'native',
      price: price.toString(),
      start: null,
      end: null,
      max_per_wallet: 5,
      merkle_root: null,
      payouts: [{ address: payee, bps: 10000 }],
    },
  });
  assert.equal(sale.status, 200, JSON.stringify(sale.body));

  // the collector: only a wallet and the chain from here on
  const buyer = walletFor(`http://127.0.0.1:${chainPort}`, 7);
  const client = publicClientForUrl(31337, `http://127.0.0.1:${chainPort}`);
  const data = toHex(JSON.stringify({ color: 'red' }));
  const hash = await buyer.writeContract({
    address: contract,
    abi: collectionAbi,
    functionName: 'purchase',
    args: [buyer.account.address, 3n, [], data],
    value: price * 3n,
  });
  const receipt = await client.waitForTransactionReceipt({ hash });
  assert.equal(receipt.status, 'success');
  // A restart in the middle: the purchase is on chain, the platform goes down and comes back.
  await stopCli(platform.child);
  platform = await startCli(env, 240_000);
  const sentAt = Date.now();

  const done = new Map<number, { image: string; attributes: { trait_type: string; value: string }[] }>();
  while (done.size < 3 && Date.now() - sentAt < 60_000) {
    for (const tokenId of [1, 2, 3]) {
      if (done.has(tokenId)) continue;
      const doc = await call(`${backend}/nft/metadata/${id}/${tokenId}`);
      if (doc.status === 200 && typeof doc.body.image === 'string' && doc.body.image !== '') done.set(tokenId, doc.body);
    }
    await new Promise((r) => setTimeout(r, 500));
  }
  assert.equal(done.size, 3, `tokens with images after 60 s: ${[...done.keys()]}`);
  for (const [tokenId, doc] of done) {
    const color = doc.attributes.find((a) => a.trait_type === 'Color');
    assert.equal(color?.value, 'Red', `token ${tokenId}: the buyer's choice`);
    const img = await fetch(doc.image);
    assert.equal(img.status, 200, `token ${tokenId} image`);
  }

  // Exactly one deck per token across the restart.
  const mints = await call(`${backend}/nft/collections/${id}/mints`, { headers: h });
  assert.equal(mints.status, 200, JSON.stringify(mints.body));
  const tokenIds = (mints.body.data.mints as { token_id: number }[]).map((m) => m.token_id);
  assert.deepEqual(tokenIds, [1, 2, 3]);

  // The receipt: the buyer chose Color, the seed mixes the purchase's block hash.
  const r = await call(`${backend}/collections/${id}/tokens/1/receipt`);
  assert.equal(r.status, 200, JSON.stringify(r.body));
  const rec = r.body.data ?? r.body;
  assert.equal(rec.seed.inputs.block_hash, receipt.blockHash);
  assert.equal(rec.variables.find((v: { name: string }) => v.name === 'color')?.chosen_by, 'minter');

  // A purchase whose block is reorganised away loses its token and deck.
  const rpc = async (method: string, params: unknown[] = []) => {
    const res = await fetch(`http://127.0.0.1:${chainPort}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
    });
    return ((await res.json()) as { result: unknown }).result;
  };
  const snapshot = await rpc('evm_snapshot');
  const second = await buyer.writeContract({
    address: contract,
    abi: collectionAbi,
    functionName: 'purchase',
    args: [buyer.account.address, 1n, [], '0x'],
    value: price,
  });
  assert.equal((await client.waitForTransactionReceipt({ hash: second })).status, 'success');
  const listed = async () =>
    ((await call(`${backend}/nft/collections/${id}/mints`, { headers: h })).body.data.mints as { token_id: number }[]).map(
      (m) => m.token_id,
    );
  const until = async (what: string, ok: () => Promise<boolean>) => {
    const end = Date.now() + 60_000;
    while (!(await ok())) {
      if (Date.now() > end) assert.fail(`not within 60 s: ${what}`);
      await new Promise((res) => setTimeout(res, 500));
    }
  };
  await until('token 4 is followed', async () => (await listed()).includes(4));
  await rpc('evm_revert', [snapshot]);
  for (let i = 0; i < 3; i++) await rpc('evm_mine');
  await until('the reorganised purchase is undone', async () => !(await listed()).includes(4));
  assert.deepEqual(await listed(), [1, 2, 3]);
  assert.equal((await call(`${backend}/nft/metadata/${id}/4`)).status, 404);
});
