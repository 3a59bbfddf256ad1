/**
 * The layering rules of README "Architecture" are checked by `npm run lint` (its `lint:layers`
 * step, dependency-cruiser with .dependency-cruiser.cjs). The tree passes; a copy of src/ with one
 * file breaking a rule fails, naming the rule and the file. The copies live in a temporary
 * directory (the worktree is never touched) and are removed afterwards.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { after, test } from 'node:test';

const repo = path.resolve(import.meta.dirname, '..');
const pkg = JSON.parse(fs.readFileSync(path.join(repo, 'package.json'), 'utf8')) as { scripts: Record<string, string> };
const temps: string[] = [];
after(() => {
  for (const dir of temps) fs.rmSync(dir, { recursive: true, force: true });
});

/** `npm run lint:layers` in `cwd`, its cache kept apart so copies never share the tree's. */
function layers(cwd: string, cache: string) {
  // No colours (CI=true turns them on), and any that come anyway are stripped: lines are matched as text.
  const env = { ...process.env, NO_COLOR: '1', FORCE_COLOR: '0' };
  const r = spawnSync('npm', ['run', '--silent', 'lint:layers', '--', '--cache', cache], { cwd, env, encoding: 'utf8', timeout: 240_000 });
  return { status: r.status, out: `${r.stdout}\n${r.stderr}`.replace(/\x1b\[[0-9;]*m/g, '') };
}

/** A copy of the repository's src/ and the checker's configuration, plus the given files. */
function copyWith(files: Record<string, string>): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'atelier-layering-'));
  temps.push(dir);
  fs.cpSync(path.join(repo, 'src'), path.join(dir, 'src'), { recursive: true });
  for (const f of ['package.json', 'tsconfig.json', '.dependency-cruiser.cjs']) fs.copyFileSync(path.join(repo, f), path.join(dir, f));
  fs.symlinkSync(path.join(repo, 'node_modules'), path.join(dir, 'node_modules'), 'dir');
  for (const [rel, text] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(dir, rel)), { recursive: true });
    fs.writeFileSync(path.join(dir, rel), text);
  }
  return dir;
}

/** The lines of the checker's report that are errors (warnings do not fail the lint). */
function errors(out: string): string[] {
  return out.split('\n').filter((l) => /^\s*error /.test(l));
}

test('npm run lint runs the layering check after Biome', () => {
  assert.match(pkg.scripts.lint!, /biome check \. && npm run (--silent )?lint:layers/);
  assert.match(pkg.scripts['lint:layers']!, /depcruise src --config \.dependency-cruiser\.cjs/);
});

test("README's Architecture section states the checked rules, no more and no fewer", () => {
  const config = createRequire(import.meta.url)(path.join(repo, '.dependency-cruiser.cjs')) as {
    forbidden: Array<{ name: string; severity: string }>;
  };
  const readme = fs.readFileSync(path.join(repo, 'README.md'), 'utf8');
  const section = readme.slice(readme.indexOf('## Architecture'), readme.indexOf('\n## ', readme.indexOf('## Architecture') + 1) >>> 0);
  const stated = new Set([...section.matchAll(/^- `([a-z-]+)`:/gm)].map((m) => m[1]!));
  const warnedOnly = new Set([...section.matchAll(/warnings?: `([a-z-]+)`/g)].map((m) => m[1]!));
  const checked = config.forbidden.map((r) => r.name);
  for (const name of checked) assert.ok(stated.has(name) || warnedOnly.has(name), `README does not state ${name}`);
  for (const name of stated) assert.ok(checked.includes(name), `README states ${name}, which nothing checks`);
  // The rules that fail the lint are errors; the ones the README calls warnings are warnings.
  for (const r of config.forbidden) {
    const warned = warnedOnly.has(r.name) || (r.name === 'services-import-no-db-value-outside-wiring' && /as a warning/.test(section));
    assert.equal(r.severity, warned ? 'warn' : 'error', r.name);
  }
});

test('the tree passes the layering check', () => {
  const cache = fs.mkdtempSync(path.join(os.tmpdir(), 'atelier-layering-cache-'));
  temps.push(cache);
  const r = layers(repo, cache);
  assert.equal(r.status, 0, r.out);
  assert.deepEqual(errors(r.out), []);
});

test('a file in src/domain importing from src/db fails the check', () => {
  const dir = copyWith({
    'src/domain/zz-probe.ts': "import { rows } from '../db/client.ts';\nexport const probe = rows;\n",
  });
  const r = layers(dir, path.join(dir, '.cache'));
  assert.notEqual(r.status, 0, r.out);
  assert.deepEqual(errors(r.out), ['  error domain-imports-nothing-of-ours: src/domain/zz-probe.ts → src/db/client.ts']);
});

test('each other rule fails on its own breach; a type-only import from db into http passes', () => {
  const dir = copyWith({
    // db imports only domain
    'src/db/zz-probe.ts': "import { createMintingService } from '../services/minting.ts';\nexport const probe = createMintingService;\n",
    // services never import http (types included)
    'src/services/zz-probe.ts':
      "import type { FastifyInstance } from 'fastify';\nimport type { AdminDeps } from '../http/admin/app.ts';\nexport type Probe = [AdminDeps, FastifyInstance];\n",
    // http imports no db value ...
    'src/http/zz-probe-value.ts': "import { rows } from '../db/client.ts';\nexport const probe = rows;\n",
    // ... but may import db types
    'src/http/zz-probe-types.ts': "import type { Db } from '../db/client.ts';\nexport type Probe = Db;\n",
    // no cycles through value imports
    'src/storage/zz-cycle-a.ts': "import { b } from './zz-cycle-b.ts';\nexport const a = () => b;\n",
    'src/storage/zz-cycle-b.ts': "import { a } from './zz-cycle-a.ts';\nexport const b = () => a;\n",
    // configuration is parsed in the composition layer only ...
    'src/storage/zz-config-value.ts': "import { loadConfig } from '../config.ts';\nexport const probe = loadConfig;\n",
    // ... but its type may be imported anywhere, and a wiring module may import its values
    'src/storage/zz-config-type.ts': "import type { Config } from '../config.ts';\nexport type Probe = Pick<Config, 'DATA_DIR'>;\n",
    'src/services/wire-zz-probe.ts': "import { loadConfig } from '../config.ts';\nexport const probe = loadConfig;\n",
  });
  const r = layers(dir, path.join(dir, '.cache'));
  assert.notEqual(r.status, 0, r.out);
  const errs = errors(r.out).join('\n');
  assert.match(errs, /error db-imports-only-domain: src\/db\/zz-probe\.ts → src\/services\/minting\.ts/);
  assert.match(errs, /error services-never-import-http: src\/services\/zz-probe\.ts → src\/http\/admin\/app\.ts/);
  assert.match(errs, /error http-imports-no-db-value: src\/http\/zz-probe-value\.ts → src\/db\/client\.ts/);
  assert.match(errs, /error no-import-cycles: src\/storage\/zz-cycle-[ab]\.ts/);
  assert.match(errs, /error config-parsed-once: src\/storage\/zz-config-value\.ts → src\/config\.ts/);
  assert.doesNotMatch(errs, /zz-probe-types/);
  assert.doesNotMatch(errs, /zz-config-type|wire-zz-probe/);
});

/** The composition layer: the only modules that hold the whole Config (README "Architecture", `config-parsed-once`). */
const COMPOSITION = /^src\/(processes\/|cli\.ts$|services\/wire-[^/]*\.ts$|config[^/]*\.ts$)/;

/**
 * The lines where `text` annotates a parameter or field with the whole `Config` (`config: Config`,
 * `(…, config: Config)`, `config?: Config`, `X & Config`), but not with a narrow part of it
 * (`Pick<Config, …>`, `Config['X']`, `keyof Config`). Comments are blanked first, keeping lines.
 */
function wholeConfigAnnotations(text: string): number[] {
  const code = text.replace(/\/\*[\s\S]*?\*\/|(?<=^|\s)\/\/.*$/gm, (c) => c.replace(/[^\n]/g, ' '));
  const lines: number[] = [];
  for (const m of code.matchAll(/[:|&]\s*Config\b(?!\s*[[.<])/g)) {
    lines.push(code.slice(0, m.index).split('\n').length);
  }
  return [...new Set(lines)];
}

test('no function outside the composition layer takes the whole Config', () => {
  // The detector itself: the whole Config is found, a narrow Pick of it is not.
  assert.deepEqual(wholeConfigAnnotations('export function f(config: Config, x: number) {}'), [1]);
  assert.deepEqual(wholeConfigAnnotations('const f = (a: number,\n  config: Config) => a;'), [2]);
  assert.deepEqual(wholeConfigAnnotations('export interface Deps {\n  db: Db;\n  config: Config;\n}'), [3]);
  assert.deepEqual(wholeConfigAnnotations('export const r: Plugin<{ config?: Config }> = 1;'), [1]);
  assert.deepEqual(wholeConfigAnnotations("function f(config: Pick<Config, 'A'> & Config) {}"), [1]);
  assert.deepEqual(
    wholeConfigAnnotations(
      "type O = Pick<Config, 'A'>;\nfunction f(o: O, id: Config['NFT_CHAIN_ID'], k: keyof Config) {}\n/** takes config: Config */\n// (config: Config)\n",
    ),
    [],
  );
  const offenders: string[] = [];
  for (const entry of fs.readdirSync(path.join(repo, 'src'), { recursive: true })) {
    const rel = path.posix.join('src', String(entry).split(path.sep).join('/'));
    if (!rel.endsWith('.ts') || rel.endsWith('.test.ts') || COMPOSITION.test(rel)) continue;
    for (const line of wholeConfigAnnotations(fs.readFileSync(path.join(repo, rel), 'utf8'))) offenders.push(`${rel}:${line}`);
  }
  assert.deepEqual(
    offenders,
    [],
    `these take the whole Config outside the composition layer; give each its own options type (Pick<Config, …>) naming what it reads:\n${offenders.join('\n')}`,
  );
});
