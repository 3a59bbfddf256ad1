/**
 * `npm run bench:indexer`: Transfer events indexed per second in a backfill.
 *
 * A fresh anvil gets the platform, one collection, MINTS mintTo(…, 10) calls and TRANSFERS
 * transferFrom calls (automine off, many transactions per block), then a fresh database is
 * indexed from the factory's deployment block to the head in one syncOnce(). Runs on PGlite and,
 * when reachable, on PostgreSQL (DATABASE_URL, default postgres://postgres@127.0.0.1:5432/test).
 *
 * Each engine gets one warm-up backfill (printed, not counted), then RUNS backfills alternating
 * the engines; the last lines are each engine's median.
 *
 *   npm run bench:indexer                 # 1,000 mints × 10 + 2,000 transfers = 12,000 events, 3 runs
 *   MINTS=2000 TRANSFERS=5000 npm run bench:indexer
 *   RUNS=5 npm run bench:indexer          # five backfills per engine and their median
 */
import os from 'node:os';
import pg from 'pg';
import { createPublicClient, encodeFunctionData, http, parseEventLogs, type Address, type Hex } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { collectionAbi, diamondFactoryAbi } from '../contracts/abi/index.ts';
import { ANVIL_PRIVATE_KEYS } from '../src/chain/anvil.ts';
import { deployPlatform } from '../src/chain/deploy-platform.ts';
import { countTransfers } from '../src/db/indexer-store.ts';
import { createIndexer } from '../src/indexer/service.ts';
import { startLocalAnvil } from '../test/helpers/anvil-local.ts';
import { createTestDatabase } from '../test/helpers/db.ts';
import { waitForReceipt } from '../src/chain/wait-receipt.ts';

const MINTS = Number(process.env.MINTS ?? 1000);
const TRANSFERS = Number(process.env.TRANSFERS ?? 2000);
/** Measured backfills per engine, each into a fresh database, after one warm-up; the median is printed. */
const RUNS = Number(process.env.RUNS ?? 3);
const PG_URL = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

async function main() {
  const anvil = await startLocalAnvil(['--gas-limit', '300000000']);
  try {
    const client = createPublicClient({ transport: http(anvil.rpcUrl), cacheTime: 0 });
    const deployment = await deployPlatform({ rpcUrl: anvil.rpcUrl, privateKey: ANVIL_PRIVATE_KEYS[0], pollingInterval: 20 });
    const owner = privateKeyToAccount(ANVIL_PRIVATE_KEYS[0]);
    const alice = privateKeyToAccount(ANVIL_PRIVATE_KEYS[1]);
    const bob = privateKeyToAccount(ANVIL_PRIVATE_KEYS[2]);

    const send = async (account: typeof owner, to: Address, data: Hex, nonce: number, gas: bigint) => {
      const raw = await account.signTransaction({
        chainId: anvil.chainId,
        type: 'eip1559',
        to,
        data,
        nonce,
        gas,
        maxFeePerGas: 10_000_000_000n,
        maxPriorityFeePerGas: 1n,
      });
      return raw;
    };
    const sendAll = async (raws: Hex[]) => {
      for (let i = 0; i < raws.length; i += 200) {
        const part = raws.slice(i, i + 200);
        const res = await fetch(anvil.rpcUrl, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify(part.map((r, j) => ({ jsonrpc: '2.0', id: j, method: 'eth_sendRawTransaction', params: [r] }))),
        });
        const replies = (await res.json()) as { error?: { message: string } }[];
        const failed = replies.find((r) => r.error);
        if (failed) throw new Error(`eth_sendRawTransaction: ${failed.error!.message}`);
      }
    };
    const mineAll = async () => {
      for (let i = 0; i < 10_000; i++) {
        const status = (await anvil.rpc('txpool_status')) as { pending: string; queued: string };
        if (Number(status.pending) === 0 && Number(status.queued) === 0) return;
        await anvil.rpc('evm_mine');
      }
    };

    // The collection.
    const createHash = await client.request({
      method: 'eth_sendRawTransaction',
      params: [
        await send(
          owner,
          deployment.contracts.DiamondFactory,
          encodeFunctionData({
            abi: diamondFactoryAbi,
            functionName: 'createCollection',
            args: [
              {
                name: 'Bench',
                symbol: 'BNCH',
                baseURI: 'https://meta.example/collections/x/tokens/',
                contractURI: 'https://meta.example/collections/x/metadata.json',
                maxSupply: 1_000_000n,
                royaltyReceiver: owner.address,
                royaltyBps: 0n,
                owner: owner.address,
                minter: owner.address,
              },
            ],
          }),
          await client.getTransactionCount({ address: owner.address }),
          3_000_000n,
        ),
      ],
    });
    const receipt = await waitForReceipt(client, createHash);
    const [created] = parseEventLogs({ abi: diamondFactoryAbi, logs: receipt.logs, eventName: 'CollectionCreated' });
    const collection = created!.args.diamond;

    // Mints and transfers, many per block.
    const t0 = performance.now();
    await anvil.rpc('evm_setAutomine', [false]);
    let nonce = await client.getTransactionCount({ address: owner.address });
    const mintRaws: Hex[] = [];
    for (let i = 0; i < MINTS; i++) {
      const data = encodeFunctionData({ abi: collectionAbi, functionName: 'mintTo', args: [alice.address, 10n] });
      mintRaws.push(await send(owner, collection, data, nonce++, 1_000_000n));
    }
    await sendAll(mintRaws);
    await mineAll();
    let aliceNonce = await client.getTransactionCount({ address: alice.address });
    const transferRaws: Hex[] = [];
    for (let i = 1; i <= TRANSFERS; i++) {
      const data = encodeFunctionData({ abi: collectionAbi, functionName: 'transferFrom', args: [alice.address, bob.address, BigInt(i)] });
      transferRaws.push(await send(alice, collection, data, aliceNonce++, 300_000n));
    }
    await sendAll(transferRaws);
    await mineAll();
    await anvil.rpc('evm_setAutomine', [true]);
    const head = Number(await anvil.rpc('eth_blockNumber').then((h) => BigInt(h as string)));
    const supply = (await client.readContract({ address: collection, abi: collectionAbi, functionName: 'totalSupply' })) as bigint;
    const expected = MINTS * 10 + TRANSFERS;
    if (supply !== BigInt(MINTS * 10)) throw new Error(`totalSupply ${supply}, expected ${MINTS * 10}`);
    process.stdout.write(
      `chain: ${expected} Transfer events (${MINTS} mintTo ×10, ${TRANSFERS} transferFrom) in blocks ${deployment.blockNumber}..${head}, ` +
        `prepared in ${((performance.now() - t0) / 1000).toFixed(1)} s\n`,
    );

    const engines: ('pglite' | 'postgres')[] = ['pglite'];
    try {
      const c = new pg.Client({ connectionString: PG_URL });
      await c.connect();
      await c.end();
      engines.push('postgres');
    } catch {
      process.stdout.write(`PostgreSQL at ${PG_URL} not reachable: PGlite only\n`);
    }

    /** One backfill into a fresh database; events per second. */
    const backfill = async (engine: 'pglite' | 'postgres', label: string): Promise<number> => {
      if (engine === 'postgres') process.env.DATABASE_URL = PG_URL;
      else delete process.env.DATABASE_URL;
      const database = await createTestDatabase();
      try {
        const indexer = createIndexer({
          database,
          chainId: anvil.chainId,
          rpcUrl: anvil.rpcUrl,
          factoryAddress: deployment.contracts.DiamondFactory,
          startBlock: deployment.blockNumber,
          confirmations: 0,
        });
        const start = performance.now();
        const ranges = await indexer.syncOnce();
        const seconds = (performance.now() - start) / 1000;
        const stored = await countTransfers(database.db);
        if (stored !== expected) throw new Error(`${engine}: ${stored} transfers stored, expected ${expected}`);
        process.stdout.write(
          `${engine.padEnd(8)} ${stored} Transfer events in ${seconds.toFixed(2)} s = ${Math.round(stored / seconds)} events/s ` +
            `(${ranges.length} range(s), ${indexer.totalLogs} logs incl. creation events)${label}\n`,
        );
        return stored / seconds;
      } finally {
        await database.close();
      }
    };

    // A warm-up backfill per engine (JIT, the node's caches), then RUNS rounds alternating the
    // engines, so a change in machine load hits both alike.
    const load0 = os.loadavg()[0]!;
    for (const engine of engines) await backfill(engine, ', warm-up, not counted');
    const rates = new Map(engines.map((e) => [e, [] as number[]]));
    for (let run = 0; run < RUNS; run++) for (const engine of engines) rates.get(engine)!.push(await backfill(engine, ''));
    process.stdout.write(`${os.cpus().length} cores, load average ${load0.toFixed(2)} → ${os.loadavg()[0]!.toFixed(2)}\n`);
    for (const engine of engines) {
      const sorted = [...rates.get(engine)!].sort((a, b) => a - b);
      process.stdout.write(
        `${engine.padEnd(8)} median of ${RUNS} runs: ${Math.round(sorted[Math.floor(RUNS / 2)]!)} events/s` +
          `${engine === 'postgres' ? ` (goal ≥ 19,000: ${sorted[Math.floor(RUNS / 2)]! >= 19_000 ? 'pass' : 'fail'})` : ''}\n`,
      );
    }
  } finally {
    await anvil.stop();
  }
}

main().catch((err: unknown) => {
  process.stderr.write(`bench:indexer failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  process.exit(1);
});
