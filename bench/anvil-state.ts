/**
 * What writing the embedded anvil's state more often costs (docs/chain-operations.md "State
 * interval"): mint-like writes (a storage write each, through the real tx sender, CONCURRENCY at a time, default 16) per
 * second against anvil with `--state FILE --state-interval N`, for each N given, on a state grown
 * to ACCOUNTS accounts (the state file's size is what a dump costs).
 *
 *   npx tsx bench/anvil-state.ts            # intervals 5 and 1, 15 s each
 *   SECONDS_PER_RUN=30 INTERVALS=5,2,1 ACCOUNTS=20000 npx tsx bench/anvil-state.ts
 *
 * Uses DATABASE_URL when set, else a throwaway PGlite.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { privateKeyToAccount } from 'viem/accounts';
import { ANVIL_PRIVATE_KEYS } from '../src/chain/anvil.ts';
import { createTxSender } from '../src/chain/tx/sender.ts';
import { createTestDatabase } from '../test/helpers/db.ts';
import { startLocalAnvil } from '../test/helpers/anvil-local.ts';
import { COUNTER_INIT } from '../test/chain/helpers.ts';

const intervals = (process.env.INTERVALS ?? '5,1').split(',').map(Number);
const seconds = Number(process.env.SECONDS_PER_RUN ?? 15);
const accounts = Number(process.env.ACCOUNTS ?? 5000);
const concurrency = Number(process.env.CONCURRENCY ?? 16);

const results: Array<{ interval: number; writes: number; perSecond: number; stateBytes: number; dumps: number }> = [];
for (const interval of intervals) {
  // A fresh database per run, so runs do not slow each other down through a growing table.
  const database = await createTestDatabase();
  try {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'atelier-anvil-state-'));
    const statePath = path.join(dir, 'state.json');
    const anvil = await startLocalAnvil(['--state', statePath, '--state-interval', String(interval)]);
    try {
      // Grow the state: what a dump writes is the whole state.
      for (let i = 0; i < accounts; i += 500) {
        await Promise.all(
          Array.from({ length: Math.min(500, accounts - i) }, (_, j) =>
            anvil.rpc('anvil_setBalance', [`0x${(i + j + 1).toString(16).padStart(40, '0')}`, '0x1']),
          ),
        );
      }
      const sender = createTxSender({
        db: database.db,
        chainId: 31337,
        rpcUrl: anvil.rpcUrl,
        account: privateKeyToAccount(ANVIL_PRIVATE_KEYS[interval % 10]!),
        options: { catchUpIntervalMs: 0 },
      });
      const counter = (await sender.send({ purpose: 'bench-deploy', data: COUNTER_INIT })).receipt.contractAddress!;
      let writes = 0;
      let dumps = 0;
      let lastMtime = 0;
      const watcher = setInterval(() => {
        const m = fs.existsSync(statePath) ? fs.statSync(statePath).mtimeMs : 0;
        if (m !== lastMtime) dumps++;
        lastMtime = m;
      }, 100);
      const end = Date.now() + seconds * 1000;
      const t0 = Date.now();
      await Promise.all(
        Array.from({ length: concurrency }, async () => {
          while (Date.now() < end) {
            await sender.send({ purpose: 'bench-mint', to: counter, data: '0x', gas: 60_000n });
            writes++;
          }
        }),
      );
      const elapsed = (Date.now() - t0) / 1000;
      clearInterval(watcher);
      await sender.close();
      const stateBytes = fs.existsSync(statePath) ? fs.statSync(statePath).size : 0;
      results.push({ interval, writes, perSecond: Math.round((writes / elapsed) * 10) / 10, stateBytes, dumps });
      console.log(
        `state-interval ${interval} s: ${writes} writes in ${elapsed.toFixed(1)} s = ${(writes / elapsed).toFixed(1)}/s; state file ${(stateBytes / 1024).toFixed(0)} KiB, ${dumps} dumps seen`,
      );
    } finally {
      await anvil.stop();
      await new Promise((r) => setTimeout(r, 500));
      fs.rmSync(dir, { recursive: true, force: true, maxRetries: 5 });
    }
  } finally {
    await database.close();
  }
}
console.log(JSON.stringify(results));
