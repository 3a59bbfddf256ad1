/**
 * The console's two operator/owner reads on the real backend and admin proxy, anvil and the tx
 * sender: the gas the platform spent per collection (docs/collections.md "Gas spent") checked
 * against the receipts viem reads from the chain, and the platform wallet's health
 * (docs/operations.md "Wallet health") as the wallet-health duty stored it. Who may read them:
 * owner and operator (gas), operator only (wallet); another user 403, no credentials 401.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { formatEther, parseEther, toHex } from 'viem';
import { parseThresholds } from '../../src/domain/wallet-threshold.ts';
import { walletHealthOn } from '../../src/services/wire-wallet-health.ts';
import { bearer, userToken } from '../helpers/content.ts';
import { asService, call } from '../helpers/platform.ts';
import { startMintingPlatform, type MintingPlatform } from '../minting/helpers.ts';

let mp: MintingPlatform;
before(async () => {
  mp = await startMintingPlatform({ worker: false });
});
after(async () => mp.close());

const get = (url: string, headers: Record<string, string> = {}) => call(url, { headers });

describe('gas spent per collection', () => {
  test("deploy + mints: the figure equals the sum of gasUsed × effectiveGasPrice of the collection's receipts", async () => {
    const { id } = await mp.deployedCollection({ title: 'Gas counted' });
    const other = await mp.deployedCollection({ title: 'Gas elsewhere' });
    const recipient = mp.wallet(3).account.address;
    for (let i = 0; i < 2; i++) {
      const minted = await call(`${mp.backendUrl}/nft/collections/${id}/mint`, { body: { recipient }, headers: asService() });
      assert.equal(minted.status, 201, JSON.stringify(minted.body));
    }
    // A mint of another collection is not this one's cost.
    const elsewhere = await call(`${mp.backendUrl}/nft/collections/${other.id}/mint`, { body: { recipient }, headers: asService() });
    assert.equal(elsewhere.status, 201, JSON.stringify(elsewhere.body));
    const record = await get(`${mp.backendUrl}/nft/collections/${id}`, asService());
    const deployHash = String((record.body.data.collection ?? record.body.data).deploy_tx_hash).toLowerCase();
    assert.match(deployHash, /^0x[0-9a-f]{64}$/);

    // What the chain says, read by viem from the node (not from our database): every transaction
    // of every block that deployed the collection or was sent to its contract (the mints, and the
    // seed commitment the first mint makes: docs/fairness.md).
    const contract = String((record.body.data.collection ?? record.body.data).contract_address).toLowerCase();
    let expected = 0n;
    let gasUsed = 0n;
    let count = 0;
    const head = await mp.client.getBlockNumber({ cacheTime: 0 });
    for (let n = 0n; n <= head; n++) {
      const block = await mp.client.getBlock({ blockNumber: n, includeTransactions: true });
      for (const tx of block.transactions) {
        if (tx.hash.toLowerCase() !== deployHash && tx.to?.toLowerCase() !== contract) continue;
        const r = await mp.client.getTransactionReceipt({ hash: tx.hash });
        expected += r.gasUsed * r.effectiveGasPrice;
        gasUsed += r.gasUsed;
        count++;
      }
    }
    assert.ok(count >= 3, `the deploy and two mints at least (${count})`);
    assert.ok(expected > 0n);

    const got = await get(`${mp.backendUrl}/nft/collections/${id}/gas`, asService());
    assert.equal(got.status, 200, JSON.stringify(got.body));
    assert.deepEqual(got.body.data, {
      collection_id: id,
      chain_id: 31337,
      transactions: count,
      gas_used: gasUsed.toString(),
      gas_wei: expected.toString(),
      gas_eth: formatEther(expected),
    });
    // The admin proxy forwards the same figure.
    const viaAdmin = await get(`${mp.adminUrl}/api/nft/collections/gas?collectionId=${id}`, asService());
    assert.equal(viaAdmin.status, 200, JSON.stringify(viaAdmin.body));
    assert.equal(viaAdmin.body.gas_wei, expected.toString());
    assert.equal(viaAdmin.body.transactions, count);

    // The other collection: its deploy and its one mint (with its own seed commitment), not ours.
    const second = await get(`${mp.backendUrl}/nft/collections/${other.id}/gas`, asService());
    assert.equal(second.body.data.transactions, count - 1);
  });

  test('owner and operator read it; another user 403, no credentials 401, a bad id 400, an unknown one 404', async () => {
    const alice = bearer(await userToken('gas-alice'));
    const bob = bearer(await userToken('gas-bob'));
    const created = await call(`${mp.backendUrl}/nft/collections`, {
      body: { title: 'Alice draft', editions: 10, data: { version: 'v2' } },
      headers: alice,
    });
    assert.equal(created.status, 201, JSON.stringify(created.body));
    const id = created.body.data.collection.id as string;

    const own = await get(`${mp.backendUrl}/nft/collections/${id}/gas`, alice);
    assert.equal(own.status, 200, JSON.stringify(own.body));
    assert.deepEqual(
      { t: own.body.data.transactions, w: own.body.data.gas_wei, e: own.body.data.gas_eth, c: own.body.data.chain_id },
      { t: 0, w: '0', e: '0', c: null },
      'a draft has spent nothing',
    );
    assert.equal((await get(`${mp.backendUrl}/nft/collections/${id}/gas`, asService())).status, 200);
    const other = await get(`${mp.backendUrl}/nft/collections/${id}/gas`, bob);
    assert.equal(other.status, 403);
    assert.match(JSON.stringify(other.body), /only the owner/);
    assert.equal((await get(`${mp.backendUrl}/nft/collections/${id}/gas`)).status, 401);
    const bad = await get(`${mp.backendUrl}/nft/collections/not-a-uuid/gas`, asService());
    assert.equal(bad.status, 400);
    assert.match(JSON.stringify(bad.body), /collectionId/);
    assert.equal((await get(`${mp.backendUrl}/nft/collections/00000000-0000-4000-8000-000000000000/gas`, asService())).status, 404);

    // The same answers through the admin proxy, with the user's own credential forwarded.
    const admin = (q: string, h: Record<string, string> = {}) => get(`${mp.adminUrl}/api/nft/collections/gas?${q}`, h);
    assert.equal((await admin(`collectionId=${id}`, alice)).status, 200);
    assert.equal((await admin(`collectionId=${id}`, bob)).status, 403);
    assert.equal((await admin(`collectionId=${id}`)).status, 401);
    const badAdmin = await admin('collectionId=nope', asService());
    assert.equal(badAdmin.status, 400);
    assert.match(JSON.stringify(badAdmin.body), /collectionId/);
    assert.equal((await admin('', asService())).status, 400);
  });
});

describe('wallet health', () => {
  test("the stored read of the platform wallet: address, balance, threshold, low; the operator's only", async () => {
    const empty = await get(`${mp.backendUrl}/api/wallet-health`, asService());
    assert.equal(empty.status, 200, JSON.stringify(empty.body));
    assert.deepEqual(empty.body.data.wallets, [], 'nothing before the first read');

    // The duty's own pass (services/wallet-health.ts) stores the read the route shows.
    await mp.anvil.rpc('anvil_setBalance', [mp.platformAddress, toHex(parseEther('1.5'))]);
    const health = walletHealthOn(
      mp.database.db,
      { client: () => mp.client, walletAddress: () => mp.platformAddress },
      { chainIds: [31337], thresholds: parseThresholds(parseEther('5').toString()), mints: 100, stuckAfterMs: 3_600_000 },
    );
    await health.pass();
    const got = await get(`${mp.backendUrl}/api/wallet-health`, asService());
    assert.equal(got.status, 200);
    const [w] = got.body.data.wallets;
    assert.equal(got.body.data.wallets.length, 1);
    assert.equal(w.address, mp.platformAddress.toLowerCase());
    assert.equal(w.chain_id, 31337);
    assert.equal(w.balance_wei, parseEther('1.5').toString());
    assert.equal(w.balance_eth, '1.5');
    assert.equal(w.threshold_eth, '5');
    assert.equal(w.low, true);
    assert.ok(Date.now() - Date.parse(w.checked_at) < 60_000);

    const viaAdmin = await get(`${mp.adminUrl}/api/nft/wallet-health`, asService());
    assert.equal(viaAdmin.status, 200, JSON.stringify(viaAdmin.body));
    assert.deepEqual(viaAdmin.body.wallets, got.body.data.wallets);
    // It lists every chain and takes no parameter: one is refused naming it, not ignored as if it filtered.
    for (const url of [`${mp.backendUrl}/api/wallet-health?chain_id=abc`, `${mp.adminUrl}/api/nft/wallet-health?chain_id=31337`]) {
      const r = await get(url, asService());
      assert.equal(r.status, 400, `${url}: ${JSON.stringify(r.body)}`);
      assert.equal(r.body.error, 'query: Unrecognized key: "chain_id"', url);
    }

    const user = bearer(await userToken('wallet-user'));
    const refused = await get(`${mp.backendUrl}/api/wallet-health`, user);
    assert.equal(refused.status, 403);
    assert.match(JSON.stringify(refused.body), /operator/);
    assert.equal((await get(`${mp.adminUrl}/api/nft/wallet-health`, user)).status, 403);
    assert.equal((await get(`${mp.backendUrl}/api/wallet-health`)).status, 401);
    assert.equal((await get(`${mp.adminUrl}/api/nft/wallet-health`)).status, 401);

    // Refunded: the next read clears the warning.
    await mp.anvil.rpc('anvil_setBalance', [mp.platformAddress, toHex(parseEther('10'))]);
    await health.pass();
    const cleared = await get(`${mp.backendUrl}/api/wallet-health`, asService());
    assert.equal(cleared.body.data.wallets[0].low, false);
  });
});
