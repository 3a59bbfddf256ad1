/**
 * Behind a reverse proxy or load balancer every client reaches the apps from the proxy's address.
 * The failed-authentication and sign-in limits count per client address, so without knowing the
 * real client one caller's bad credentials would lock every caller out (the operator included).
 * TRUST_PROXY names the proxies whose X-Forwarded-For is believed (docs/operations.md "Behind a
 * reverse proxy"); without it the header is ignored, so a client cannot choose its own address.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { SERVICE_KEY, startTestPlatform, type TestPlatform } from './helpers/platform.ts';

const LIMIT = 3;
const env = { AUTH_FAILURE_LIMIT: String(LIMIT), RATE_LIMIT_WINDOW_MS: '60000' };

/** A request through the reverse proxy at 10.0.0.2 for `client`, to one app. */
const via = (p: TestPlatform, app: 'backend' | 'admin', client: string, key: string) =>
  p[app].inject({
    method: 'GET',
    url: app === 'admin' ? '/api/nft/session' : '/nft/collections',
    headers: { 'x-api-key': key, 'x-forwarded-for': client },
    remoteAddress: '10.0.0.2',
  });

describe('TRUST_PROXY set to the reverse proxy', () => {
  let p: TestPlatform;
  before(async () => {
    p = await startTestPlatform({ ...env, TRUST_PROXY: '10.0.0.2' }, {}, { listen: false });
  });
  after(() => p.close());

  test("one client's failures lock that client out, not the operator behind the same proxy", async () => {
    for (const app of ['admin', 'backend'] as const) {
      for (let i = 0; i < LIMIT; i++) assert.equal((await via(p, app, '198.51.100.1', `bad-key-${app}-${i}`)).statusCode, 401);
      assert.equal((await via(p, app, '198.51.100.1', `bad-key-${app}-x`)).statusCode, 429);
      const operator = await via(p, app, '198.51.100.2', SERVICE_KEY);
      assert.notEqual(operator.statusCode, 429, `${app}: ${operator.body}`);
      assert.notEqual(operator.statusCode, 401, `${app}: ${operator.body}`);
    }
  });
});

describe('without TRUST_PROXY', () => {
  let p: TestPlatform;
  before(async () => {
    p = await startTestPlatform(env, {}, { listen: false });
  });
  after(() => p.close());

  test('X-Forwarded-For is not believed: a client cannot pose as many addresses', async () => {
    for (let i = 0; i < LIMIT; i++) assert.equal((await via(p, 'backend', `198.51.100.${10 + i}`, `bad-${i}`)).statusCode, 401);
    assert.equal((await via(p, 'backend', '198.51.100.99', 'bad-again')).statusCode, 429);
  });
});
