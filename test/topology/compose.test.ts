/**
 * compose.yaml and the Dockerfile describe the same topology as `npm run topology`
 * (scripts/topology/plan.ts): the same services, each running the same `atelier` command with the
 * same environment variable names (and the same ports). Docker cannot run here, so this is how the
 * container files stay true (docs/deployment.md).
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { test } from 'node:test';
import { parse } from 'yaml';
import { DEFAULT_PORTS, topologyPlan } from '../../scripts/topology/plan.ts';

interface ComposeService {
  image?: string;
  build?: unknown;
  command?: string[];
  entrypoint?: string[];
  environment?: Record<string, string>;
  depends_on?: Record<string, { condition: string }>;
  healthcheck?: { test: string[] };
}

const compose = parse(fs.readFileSync('compose.yaml', 'utf8'), { merge: true }) as { services: Record<string, ComposeService> };
const plan = topologyPlan({
  databaseUrl: 'postgres://x',
  redisUrl: 'redis://x',
  rpcUrl: 'http://x',
  chainId: 31337,
  deployerKey: '0x00',
  apiKey: 'k',
  dataDir: '/data',
  host: '0.0.0.0',
  ports: DEFAULT_PORTS,
  workerConcurrency: 2,
  logLevel: 'info',
});

test('compose.yaml has every process of the topology script, running the same command, and the infrastructure', () => {
  const atelierServices = Object.entries(compose.services)
    .filter(([, s]) => s.build && !s.entrypoint)
    .map(([name]) => name)
    .sort();
  assert.deepEqual(atelierServices, plan.map((p) => p.name).sort(), 'the same atelier processes');
  for (const p of plan) assert.deepEqual(compose.services[p.name]!.command, [p.command], `${p.name} runs atelier ${p.command}`);
  for (const infra of ['postgres', 'redis', 'anvil']) assert.ok(compose.services[infra], `${infra} service`);
});

test('each compose service gets the same environment variable names as the script gives its process', () => {
  for (const p of plan) {
    const env = compose.services[p.name]!.environment ?? {};
    assert.deepEqual(Object.keys(env).sort(), Object.keys(p.env).sort(), `environment of ${p.name}`);
  }
});

test('ports, signing keys and ordering agree: one-shot steps first, the signing key only where the script gives it', () => {
  for (const p of plan) {
    const env = compose.services[p.name]!.environment!;
    for (const v of ['PORT', 'ADMIN_PORT', 'WORKER_HEALTH_PORT'] as const) {
      if (p.env[v] !== undefined) assert.equal(String(env[v]), p.env[v], `${p.name} ${v}`);
    }
    assert.equal('NFT_DEPLOYER_PRIVATE_KEY' in env, 'NFT_DEPLOYER_PRIVATE_KEY' in p.env, `${p.name} signs only when the script's does`);
    if (p.kind === 'service') {
      assert.equal(compose.services[p.name]!.depends_on?.deploy?.condition, 'service_completed_successfully', `${p.name} waits for deploy`);
      assert.match(compose.services[p.name]!.healthcheck!.test.join(' '), /\/readyz/, `${p.name} health is its /readyz`);
    }
  }
  assert.equal(compose.services.deploy!.depends_on?.migrate?.condition, 'service_completed_successfully');
  // Every replica writes the same public URL into token metadata.
  const urls = new Set(plan.filter((p) => p.command === 'backend').map((p) => compose.services[p.name]!.environment!.PUBLIC_BASE_URL));
  assert.equal(urls.size, 1);
});

test('Redis keeps its data across restarts (append-only file)', () => {
  const cmd = compose.services.redis!.command!.join(' ');
  assert.match(cmd, /--appendonly yes/);
});

test('Dockerfile: multi-stage, pinned node base, runs as the non-root node user', () => {
  const text = fs.readFileSync('Dockerfile', 'utf8');
  const froms = text.split('\n').filter((l) => /^FROM /.test(l));
  assert.ok(froms.length >= 2, 'multi-stage');
  for (const f of froms) assert.match(f, /^FROM node:\d+\.\d+\.\d+-[a-z]+-slim AS \w+$/, `pinned node base: ${f}`);
  const users = text.split('\n').filter((l) => /^USER /.test(l));
  assert.deepEqual(users, ['USER node']);
  assert.match(text, /ENTRYPOINT \["node", "bin\/atelier.js"\]/);
  assert.equal(compose.services['backend-1']!.build, '.', 'compose builds this Dockerfile');
});
