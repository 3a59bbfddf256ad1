#!/usr/bin/env node
// `npm test`: every test file under test/ and src/ through node's test runner (Node 20 has no
// glob for --test). Arguments filter by substring: `npm test -- collections auth`.
// `npm run test:unit` (`--unit`): only the unit tests beside the code in src/, which need no
// database server, Redis, chain or platform, all in one process (scripts/unit-tests.mjs).
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

const args = process.argv.slice(2);
const unit = args.includes('--unit');
const roots = unit ? ['src'] : ['test', 'src'];
const files = [];
for (const root of roots) {
  if (!fs.existsSync(root)) continue;
  for (const entry of fs.readdirSync(root, { recursive: true })) {
    const file = path.join(root, String(entry));
    if (file.endsWith('.test.ts') && !file.includes('node_modules')) files.push(file);
  }
}
const filters = args.filter((a) => a !== '--unit');
if (unit) {
  const result = spawnSync(process.execPath, ['--import', 'tsx', '--test', 'scripts/unit-tests.mjs'], {
    stdio: 'inherit',
    env: { ...process.env, UNIT_FILTER: filters.join(',') },
  });
  process.exit(result.status ?? 1);
}
const selected = files.sort().filter((f) => filters.length === 0 || filters.some((x) => f.includes(x)));
if (selected.length === 0) {
  console.error(`no test files match ${filters.join(' ')}`);
  process.exit(1);
}
const concurrency = process.env.TEST_CONCURRENCY ?? (unit ? '4' : '2');
const result = spawnSync(
  process.execPath,
  ['--import', 'tsx', '--test', `--test-concurrency=${concurrency}`, '--test-timeout=300000', ...selected],
  { stdio: 'inherit' },
);
process.exit(result.status ?? 1);
