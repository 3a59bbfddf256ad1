/**
 * Reset then redeploy on the same factory (docs/api/nft.md §7.1; docs/chain-operations.md "Stale deployments"): after a dev chain
 * reset the platform is redeployed (the factory lands at the same address), a collection is reset
 * and deployed again — a new contract, written back — and mints. The platform redeploy keeps
 * its stablecoin record (a new test token on the reset chain, recorded), and paid samples work
 * after it and after a restart, with a payment made before the restart.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createWalletClient, http, type Address, type Hex } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { foundry } from 'viem/chains';
import { atelierTestUSDAbi, collectionAbi } from '../../contracts/abi/index.ts';
import { like } from 'drizzle-orm';
import { ANVIL_PRIVATE_KEYS } from '../../src/chain/anvil.ts';
import { chainTransactions } from '../../src/db/schema/index.ts';
import { SERVICE_KEY, sampleData } from '../helpers/platform.ts';
import { startWalkPlatform, type WalkPlatform } from '../helpers/inject-platform.ts';
import { injector } from '../permissions/fixtures.ts';

const payer = privateKeyToAccount(ANVIL_PRIVATE_KEYS[8]);
const service = { 'x-api-key': SERVICE_KEY };

describe('reset → redeploy → mint, and paid samples across a platform redeploy and a restart', { timeout: 180_000 }, () => {
  let p: WalkPlatform;
  const api = (method: string, url: string, body?: unknown) => injector(p)(method, url, service, body);
  const admin = (method: string, url: string, body?: unknown) => injector(p, 'admin')(method, url, service, body);
  const stablecoin = () => p.chain.deployment(31337)!.contracts.Stablecoin as Address;

  const pay = async (amount: bigint): Promise<Hex> => {
    const w = createWalletClient({ account: payer, chain: foundry, transport: http(p.anvil.rpcUrl) });
    const client = p.chain.client(31337);
    const token = stablecoin();
    const faucet = await w.writeContract({
      address: token,
      abi: atelierTestUSDAbi,
      functionName: 'mint',
      args: [payer.address, amount],
    } as never);
    await client.waitForTransactionReceipt({ hash: faucet });
    const to = p.chain.walletAddress(31337);
    const hash = await w.writeContract({ address: token, abi: atelierTestUSDAbi, functionName: 'transfer', args: [to, amount] } as never);
    await client.waitForTransactionReceipt({ hash });
    return hash;
  };
  const paidSample = async (collectionId: string, txHash: Hex) => {
    const r = await api('POST', `/nft/collections/${collectionId}/samples`, { count: 1, wallet_address: payer.address, tx_hash: txHash });
    assert.equal(r.status, 201, JSON.stringify(r.body));
    assert.equal(r.body.samples[0].is_free, false);
  };
  const costOf = async (id: string) => {
    const r = await api('GET', `/nft/collections/${id}/sample-status?wallet_address=${payer.address}`);
    return BigInt(r.body.compute_cost_per_sample);
  };
  const deployDesign = async (id: string) => {
    const r = await api('POST', `/nft/collections/${id}/deploy`, { max_supply: 10, royalty_bps: 0, royalty_receiver: payer.address });
    assert.equal(r.status, 200, JSON.stringify(r.body));
    return r.body.data as { contract_address: Address; tx_hash: string };
  };

  before(async () => {
    // A reset the platform does not rebuild: a wiped dev node whose lost transactions are more than
    // the sender replays (restoreMaxTxs 0; docs/chain-operations.md "Crash recovery"). A chain that
    // only lost its last blocks is restored instead, and needs no redeploy.
    p = await startWalkPlatform({ senderOptions: { restoreMaxTxs: 0 } });
  });
  after(() => p?.close());

  test('the platform redeploy after a chain reset: same factory, a recorded stablecoin; the collection redeploys and mints', async () => {
    const created = await api('POST', '/nft/collections', { title: 'Survives a reset', editions: 10, data: sampleData() });
    const id = created.body.data.collection.id as string;
    const first = await deployDesign(id);
    assert.equal((await api('POST', `/nft/collections/${id}/mint`, { recipient: payer.address })).status, 201);
    await paidSample(id, await pay(await costOf(id)));
    const factory = p.chain.deployment(31337)!.contracts.DiamondFactory;

    await p.resetChain();
    const redeployed = await admin('POST', '/api/nft/deploy', { chainId: 31337 });
    assert.equal(redeployed.status, 200, JSON.stringify(redeployed.body));
    assert.equal(redeployed.body.deployment.contracts.DiamondFactory, factory, 'the same factory address');
    const token = redeployed.body.deployment.contracts.Stablecoin as Address;
    assert.match(token ?? '', /^0x[0-9a-fA-F]{40}$/, 'the redeployed record names a stablecoin');
    assert.ok(await p.chain.hasCode(31337, token), 'and it has code on the reset chain');

    const reset = await api('POST', `/nft/collections/${id}/reset`);
    assert.equal(reset.status, 200, JSON.stringify(reset.body));
    const second = await deployDesign(id);
    // A new transaction under a new key (its hash may equal the first: same nonce and data on a fresh chain).
    const sent = await p.database.db
      .select()
      .from(chainTransactions)
      .where(like(chainTransactions.idempotency_key, `deploy:${id}:%`));
    assert.equal(sent.length, 2, 'one createCollection per deployment, not the replay of the vanished one');
    assert.ok(first.contract_address);
    assert.ok(await p.chain.hasCode(31337, second.contract_address));
    const row = (await api('GET', `/nft/collections/${id}`)).body.data.collection;
    assert.equal(row.contract_address, second.contract_address, 'written back');
    assert.equal(row.mint_status, 'deployed');
    const client = p.chain.client(31337);
    assert.equal(
      await client.readContract({ address: second.contract_address, abi: collectionAbi, functionName: 'name' }),
      'Survives a reset',
    );
    const minted = await api('POST', `/nft/collections/${id}/mint`, { recipient: payer.address });
    assert.equal(minted.status, 201, JSON.stringify(minted.body));
    assert.equal(
      await client.readContract({ address: second.contract_address, abi: collectionAbi, functionName: 'ownerOf', args: [1n] }),
      payer.address,
    );

    // Paid samples work against the redeployed platform. (Another amount: the same payment on the
    // fresh chain would have the same nonce, data and so hash as the one already accepted.)
    await paidSample(id, await pay((await costOf(id)) + 1n));
  });

  test('a redeploy on a live chain keeps its stablecoin; a payment made before a restart counts after it', async () => {
    const token = stablecoin();
    const again = await admin('POST', '/api/nft/deploy', { chainId: 31337, force: true });
    assert.equal(again.status, 200, JSON.stringify(again.body));
    assert.equal(again.body.deployment.contracts.Stablecoin, token, 'the same stablecoin');
    const created = await api('POST', '/nft/collections', { title: 'After restart', editions: 10, data: sampleData() });
    const id = created.body.data.collection.id as string;
    await deployDesign(id);
    const hash = await pay(await costOf(id));
    await p.restart();
    assert.equal(stablecoin(), token, 'the restart did not deploy another test token');
    await paidSample(id, hash);
  });
});
