import { createPublicClient, encodeFunctionData, http, parseEventLogs, type Hex } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { collectionAbi, diamondFactoryAbi } from './contracts/abi/index.ts';
import { ANVIL_PRIVATE_KEYS } from './src/chain/anvil.ts';
import { deployPlatform } from './src/chain/deploy-platform.ts';
import { startLocalAnvil } from './test/helpers/anvil-local.ts';
import { createTestDatabase } from './test/helpers/db.ts';
import { JsonRpc } from './src/indexer/rpc.ts';
import { fetchRange } from './src/indexer/sync.ts';
import { decodeLogs } from './src/indexer/decode.ts';
import { groupMints, latestPerToken } from './src/indexer/projections.ts';
import { createDbStore } from './src/indexer/store.ts';
import { tx } from './src/db/client.ts';
import * as st from './src/db/indexer-store.ts';
import { decksOfTokens, setDeckOwners } from './src/db/ownership.ts';

const anvil = await startLocalAnvil(['--gas-limit', '300000000']);
const client = createPublicClient({ transport: http(anvil.rpcUrl), cacheTime: 0 });
const d = await deployPlatform({ rpcUrl: anvil.rpcUrl, privateKey: ANVIL_PRIVATE_KEYS[0], pollingInterval: 20 });
const owner = privateKeyToAccount(ANVIL_PRIVATE_KEYS[0]); const alice = privateKeyToAccount(ANVIL_PRIVATE_KEYS[1]);
const sign = (a: typeof owner, to: Hex, data: Hex, nonce: number, gas: bigint) => a.signTransaction({ chainId: anvil.chainId, type: 'eip1559', to, data, nonce, gas, maxFeePerGas: 10_000_000_000n, maxPriorityFeePerGas: 1n });
const hash = await client.request({ method: 'eth_sendRawTransaction', params: [await sign(owner, d.contracts.DiamondFactory as Hex, encodeFunctionData({ abi: diamondFactoryAbi, functionName: 'createCollection', args: [{ name: 'B', symbol: 'B', baseURI: 'x', contractURI: 'y', maxSupply: 1000000n, royaltyReceiver: owner.address, royaltyBps: 0n, owner: owner.address, minter: owner.address }] }), await client.getTransactionCount({ address: owner.address }), 3000000n)] });
const rc = await client.waitForTransactionReceipt({ hash, pollingInterval: 20 });
const col = parseEventLogs({ abi: diamondFactoryAbi, logs: rc.logs, eventName: 'CollectionCreated' })[0]!.args.diamond;
await anvil.rpc('evm_setAutomine', [false]);
let nonce = await client.getTransactionCount({ address: owner.address });
const raws: Hex[] = [];
for (let i = 0; i < 1000; i++) raws.push(await sign(owner, col, encodeFunctionData({ abi: collectionAbi, functionName: 'mintTo', args: [alice.address, 10n] }), nonce++, 1000000n));
for (let i = 0; i < raws.length; i += 200) await fetch(anvil.rpcUrl, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(raws.slice(i, i + 200).map((r, j) => ({ jsonrpc: '2.0', id: j, method: 'eth_sendRawTransaction', params: [r] }))) });
for (let i = 0; i < 100; i++) { const s = await anvil.rpc('txpool_status') as any; if (Number(s.pending) === 0) break; await anvil.rpc('evm_mine'); }
await anvil.rpc('evm_setAutomine', [true]);
const head = Number(await anvil.rpc('eth_blockNumber'));
const rpc = new JsonRpc(anvil.rpcUrl);
for (const engine of ['postgres', 'postgres', 'postgres']) {
  process.env.DATABASE_URL = 'postgres://postgres@127.0.0.1:5432/test';
  const db = await createTestDatabase();
  const store = createDbStore(db.db, anvil.chainId);
  await store.ensureState(d.blockNumber);
  const T: Record<string, number> = {};
  let t = performance.now();
  const lap = (k: string) => { const n = performance.now(); T[k] = Math.round(n - t); t = n; };
  const followed = await store.followedAddresses(); lap('followed');
  const f = await fetchRange(rpc, { from: d.blockNumber, to: head, prevHash: null, recent: true, factory: d.contracts.DiamondFactory, followed, addressChunk: 500 }); lap('fetch');
  const dec = decodeLogs(f.logs, f.timestamps, d.contracts.DiamondFactory); lap('decode');
  const mints = groupMints(dec.transfers); const latest = latestPerToken(dec.transfers); lap('project');
  await tx(db.db, async (x) => {
    await st.insertApps(x, anvil.chainId, dec.apps); lap('apps');
    const decks = await decksOfTokens(x, anvil.chainId, latest); lap('decks');
    await st.insertTransfers(x, anvil.chainId, dec.transfers.map((r) => ({ ...r, deck_id: null }))); lap('transfers');
    await st.insertMints(x, anvil.chainId, mints); lap('mints');
    await st.insertOwnerTransfers(x, anvil.chainId, dec.owners); await st.insertUpgrades(x, anvil.chainId, dec.upgrades); lap('owners+upgr');
    await setDeckOwners(x, []); await st.upsertBlocks(x, anvil.chainId, f.blocks); lap('blocks');
    await st.setIndexerProgress(x, anvil.chainId, { last: head, hash: f.lastHash, status: 'idle', head }); lap('progress');
  }); lap('commit');
  console.log(engine, dec.transfers.length, JSON.stringify(T), 'total', Object.values(T).reduce((a, b) => a + b, 0));
  await db.close();
}
await anvil.stop();
