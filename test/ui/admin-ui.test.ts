/**
 * The console's static routes (src/http/admin/ui.ts): the page without a key, a strict CSP, known
 * file types only, nothing outside web/. The console itself is driven in chromium by the
 * console-*.test.ts files beside this one.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { FastifyInstance } from 'fastify';
import { testConfig } from '../../src/config.ts';
import { buildAdmin } from '../../src/processes/admin.ts';
import { SERVICE_KEY } from '../helpers/platform.ts';

describe('admin UI routes', () => {
  let admin: FastifyInstance;
  before(async () => {
    admin = await buildAdmin(testConfig({ API_KEY: SERVICE_KEY, BACKEND_API_URL: 'http://127.0.0.1:9' }));
  });
  after(() => admin.close());

  test('GET / serves the page without a key, with a strict CSP', async () => {
    const res = await admin.inject({ method: 'GET', url: '/' });
    assert.equal(res.statusCode, 200);
    assert.match(String(res.headers['content-type']), /^text\/html; charset=utf-8/);
    const csp = String(res.headers['content-security-policy']);
    assert.match(csp, /default-src 'none'/);
    assert.match(csp, /script-src 'self'(;|$)/);
    assert.match(csp, /connect-src 'self'(;|$)/);
    assert.match(csp, /img-src 'self' data: http:\/\/127\.0\.0\.1:9(;|$)/);
    assert.equal(res.headers['x-content-type-options'], 'nosniff');
    assert.match(res.body, /<script type="module" src="\/ui\/main\.js">/);
  });

  test('assets have their content types; nothing outside web/ is served', async () => {
    for (const [file, type] of [
      ['main.js', 'text/javascript'],
      ['app.css', 'text/css'],
      ['favicon.svg', 'image/svg+xml'],
    ] as const) {
      const res = await admin.inject({ method: 'GET', url: `/ui/${file}` });
      assert.equal(res.statusCode, 200, file);
      assert.ok(String(res.headers['content-type']).startsWith(type), `${file}: ${res.headers['content-type']}`);
    }
    for (const url of ['/ui/missing.js', '/ui/../package.json', '/ui/%2e%2e/package.json', '/ui/..%2fsrc%2fconfig.ts', '/ui/index.txt']) {
      const res = await admin.inject({ method: 'GET', url });
      // 404 from the UI route, or 401 when the path normalises to a route outside /ui/.
      assert.ok(res.statusCode === 404 || res.statusCode === 401, `${url}: ${res.statusCode}`);
      assert.equal(res.json().success, false);
    }
  });

  test('the API docs beside the console have a CSP of their own: scripts from this origin only', async () => {
    for (const url of ['/docs', '/docs/static/index.html', '/docs/static/swagger-initializer.js']) {
      const res = await admin.inject({ method: 'GET', url });
      assert.ok(res.statusCode === 200 || res.statusCode === 302, `${url}: ${res.statusCode}`);
      const csp = String(res.headers['content-security-policy']);
      assert.match(csp, /script-src 'self'(;|$)/, url);
      assert.match(csp, /frame-ancestors 'none'/, url);
      assert.doesNotMatch(csp, /unsafe-inline|unsafe-eval|https:/, url);
    }
  });

  test('the API routes still need the key', async () => {
    const res = await admin.inject({ method: 'GET', url: '/api/nft/deploy' });
    assert.equal(res.statusCode, 401);
  });
});
