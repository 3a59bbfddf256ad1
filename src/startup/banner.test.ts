import assert from 'node:assert/strict';
import { test } from 'node:test';
import { startBanner } from './banner.ts';

const facts = {
  backendUrl: 'http://127.0.0.1:3000',
  adminUrl: 'http://127.0.0.1:3001',
  database: 'PGlite in .atelier/pgdata',
  chain: { url: 'http://127.0.0.1:8545', chainId: 31337, stateDir: '.atelier/chain' },
  auth: 'service API key (from .atelier/api-key):\n    k',
};

test('the banner names the console first (for a browser), then the API docs, then the API base', () => {
  const lines = startBanner(facts).split('\n');
  const urls = lines.filter((l) => /https?:\/\//.test(l));
  assert.equal(urls[0], '  Console: http://127.0.0.1:3001/ (open in a browser; sign in with the service key below)');
  assert.match(urls[1]!, /^ {2}API docs: http:\/\/127\.0\.0\.1:3001\/docs \(admin proxy\) · http:\/\/127\.0\.0\.1:3000\/docs \(backend\)$/);
  assert.match(urls[2]!, /^ {2}API base: http:\/\/127\.0\.0\.1:3001\/api\/nft \(admin proxy\) · http:\/\/127\.0\.0\.1:3000 \(backend\)$/);
});

test('the banner gives the public mint pages’ link pattern, on the backend', () => {
  const lines = startBanner(facts).split('\n');
  const urls = lines.filter((l) => /https?:\/\//.test(l));
  assert.match(urls[3]!, /^ {2}Mint pages: http:\/\/127\.0\.0\.1:3000\/mint\/<collection id> \(public, for collectors; /);
  // with trailing slashes in the configured URLs, no double slash
  const text = startBanner({ ...facts, backendUrl: 'https://api.example.com/' });
  assert.match(text, /Mint pages: https:\/\/api\.example\.com\/mint\/<collection id> /);
});

test('the banner has no example that needs an id the reader does not have', () => {
  const text = startBanner(facts);
  assert.doesNotMatch(text, /try:|<uuid>|collectionId=/);
  assert.match(text, /send it as {2}X-API-Key: <key>/);
});

test('with authentication off the banner asks for no key', () => {
  const text = startBanner({ ...facts, auth: 'authentication is OFF (ENABLE_AUTH=false): every request is let through', authOff: true });
  assert.match(text, /^ {2}Console: http:\/\/127\.0\.0\.1:3001\/ \(open in a browser\)$/m);
  assert.doesNotMatch(text, /service key|X-API-Key/);
});
