// The unit tests beside the code (src/**/*.test.ts), loaded into ONE process: they need no
// database server, Redis, chain or platform, so a process per file would only add start-up
// time. Used by `npm run test:unit`; `npm test` still runs each file in its own process.
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

const filters = (process.env.UNIT_FILTER ?? '').split(',').filter(Boolean);
const files = fs
  .readdirSync('src', { recursive: true })
  .map(String)
  .filter((f) => f.endsWith('.test.ts') && (filters.length === 0 || filters.some((x) => f.includes(x))))
  .sort();
if (files.length === 0) throw new Error(`no unit test files match ${filters.join(' ')}`);
for (const f of files) await import(pathToFileURL(path.resolve('src', f)).href);
