import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ConfigError, loadConfig } from '../src/config.ts';

test('defaults: ports 3000 and 3001, data under ./.atelier, auth on', () => {
  const c = loadConfig({});
  assert.equal(c.PORT, 3000);
  assert.equal(c.ADMIN_PORT, 3001);
  assert.equal(c.ENABLE_AUTH, true);
  assert.ok(c.dataDir.endsWith('.atelier'));
  assert.equal(c.DATABASE_URL, undefined);
});

test('every variable docs/api/nft.md §5 names is read', () => {
  const c = loadConfig({
    API_KEY: 'k'.repeat(20),
    ENABLE_AUTH: 'false',
    BACKEND_API_URL: 'http://backend:3000',
    NFT_DEPLOYER_PRIVATE_KEY: `0x${'11'.repeat(32)}`,
    ARBITRUM_SEPOLIA_RPC_URL: 'https://sepolia.example',
    ARBITRUM_ONE_RPC_URL: 'https://one.example',
    NFT_FACTORY_ADDRESS: `0x${'22'.repeat(20)}`,
    NFT_RPC_URL: 'http://127.0.0.1:8545',
    DATABASE_URL: 'postgres://u@h/db',
    REDIS_URL: 'redis://127.0.0.1:6379',
    PORT: '8080',
    ADMIN_PORT: '8081',
    DATA_DIR: '/tmp/x',
    METADATA_BASE_URL: 'https://meta.example',
    JWT_SECRET: 's'.repeat(32),
    JWT_JWKS_URL: 'https://idp.example/jwks.json',
  });
  assert.equal(c.ENABLE_AUTH, false);
  assert.equal(c.PORT, 8080);
  assert.equal(c.dataDir, '/tmp/x');
  assert.equal(c.NFT_FACTORY_ADDRESS, `0x${'22'.repeat(20)}`);
});

const bad: Array<[Record<string, string>, string]> = [
  [{ PORT: 'eighty' }, 'PORT'],
  [{ ADMIN_PORT: '70000' }, 'ADMIN_PORT'],
  [{ ENABLE_AUTH: 'maybe' }, 'ENABLE_AUTH'],
  [{ DATABASE_URL: 'mysql://x' }, 'DATABASE_URL'],
  [{ REDIS_URL: 'http://x' }, 'REDIS_URL'],
  [{ BACKEND_API_URL: 'not a url' }, 'BACKEND_API_URL'],
  [{ NFT_DEPLOYER_PRIVATE_KEY: '0x1234' }, 'NFT_DEPLOYER_PRIVATE_KEY'],
  [{ NFT_FACTORY_ADDRESS: '0xzz' }, 'NFT_FACTORY_ADDRESS'],
  [{ API_KEY: 'short' }, 'API_KEY'],
  [{ JWT_SECRET: 'short' }, 'JWT_SECRET'],
  [{ STORAGE_DRIVER: 's3' }, 'S3_BUCKET'],
];
for (const [env, variable] of bad) {
  test(`a bad ${variable} stops with a message naming it`, () => {
    assert.throws(
      () => loadConfig(env),
      (err: unknown) => err instanceof ConfigError && err.variable === variable && err.message.startsWith(variable),
    );
  });
}

test('secrets are never echoed in the error', () => {
  try {
    loadConfig({ NFT_DEPLOYER_PRIVATE_KEY: '0xsecretsecret' });
    assert.fail('should throw');
  } catch (err) {
    assert.ok(!(err as Error).message.includes('secretsecret'));
  }
});

test('.env.example documents every variable', async () => {
  const { CONFIG_VARIABLES } = await import('../src/config.ts');
  const fs = await import('node:fs');
  const example = fs.readFileSync('.env.example', 'utf8');
  for (const name of CONFIG_VARIABLES) assert.match(example, new RegExp(`^#? ?${name}=`, 'm'), name);
});
