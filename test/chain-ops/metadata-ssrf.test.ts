/**
 * The admin metadata proxy fetches whatever URI a contract names, so a hostile collection's
 * contractURI or tokenURI must not reach our network (docs/security.md "Outside fetches"): a loopback address, a
 * host name that resolves to loopback (the resolver is injected), a cloud metadata address, and a
 * redirect from our own (allowed) metadata host to loopback. A listener standing in for an
 * internal service records no connection; the proxy answers 200 with metadataError.
 */
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { mintTokens } from '../../src/chain/mint.ts';
import { DEV_ADDRESS } from '../../src/chain/wallet.ts';
import type { Resolver } from '../../src/net/guarded-fetch.ts';
import { adminCall, collectionParams, deployFactory, startChainPlatform, type ChainPlatform } from './helpers.ts';

describe('metadata proxy against hostile contract URIs', { timeout: 90_000 }, () => {
  let p: ChainPlatform;
  let internal: http.Server;
  let internalPort = 0;
  let internalConnections = 0;
  let meta: http.Server;
  let metaUrl = '';
  const resolverAsked: string[] = [];

  before(async () => {
    internal = http.createServer((_req, res) => res.end('{"secret":"instance credentials"}'));
    internal.on('connection', () => internalConnections++);
    await new Promise<void>((r) => internal.listen(0, '127.0.0.1', r));
    internalPort = (internal.address() as AddressInfo).port;
    // Our own metadata host (rewritten from http://meta.test, so allowed on loopback) redirects once.
    meta = http.createServer((req, res) => {
      if (req.url === '/redirect') res.writeHead(302, { location: `http://127.0.0.1:${internalPort}/latest/meta-data` }).end();
      else res.writeHead(200, { 'content-type': 'application/json' }).end('{"name":"ours"}');
    });
    await new Promise<void>((r) => meta.listen(0, '127.0.0.1', r));
    metaUrl = `http://127.0.0.1:${(meta.address() as AddressInfo).port}`;
    const fetchResolver: Resolver = async (host) => {
      resolverAsked.push(host);
      return host === 'rebind.test' ? [{ address: '127.0.0.1', family: 4 }] : [];
    };
    p = await startChainPlatform({ metadataRewrites: [{ from: 'http://meta.test', to: metaUrl }], fetchResolver });
    await deployFactory(p);
  });
  after(async () => {
    await p?.close();
    internal?.close();
    meta?.close();
  });

  const deployWith = async (i: number, contractURI: string, baseURI = 'http://meta.test/tokens/') => {
    const r = await adminCall(p, '/api/nft/collections', collectionParams(i, { contractURI, baseURI }));
    assert.equal(r.status, 200, JSON.stringify(r.body));
    return r.body.collection.address as string;
  };

  test('contractURI on loopback, on a name resolving to loopback, on a link-local metadata address, or redirecting there: not fetched', async () => {
    const cases: Array<[string, RegExp]> = [
      [`http://127.0.0.1:${internalPort}/latest/meta-data`, /not fetched: 127\.0\.0\.1 is a loopback address/],
      [`http://rebind.test:${internalPort}/latest/meta-data`, /not fetched: rebind\.test resolves to a loopback address/],
      ['http://169.254.169.254/latest/meta-data/', /not fetched: 169\.254\.169\.254 is a link-local address/],
      [`http://[::ffff:127.0.0.1]:${internalPort}/`, /not fetched: ::ffff:7f00:1 is a loopback \(IPv4 127\.0\.0\.1 inside IPv6\) address/],
      ['http://meta.test/redirect', /not fetched: 127\.0\.0\.1 is a loopback address/],
    ];
    let i = 100;
    for (const [uri, error] of cases) {
      const address = await deployWith(i++, uri);
      const r = await adminCall(p, `/api/nft/metadata?chainId=31337&address=${address}&type=contract`);
      assert.equal(r.status, 200, JSON.stringify(r.body));
      assert.equal(r.body.uri, uri);
      assert.equal(r.body.metadata, null);
      assert.match(r.body.metadataError, error);
    }
    assert.ok(resolverAsked.includes('rebind.test'), 'the name was resolved by the injected resolver');
    assert.equal(internalConnections, 0, 'no connection reached the internal listener');
  });

  test('a hostile tokenURI is refused the same way; our own metadata host still answers', async () => {
    const address = await deployWith(200, 'http://meta.test/c.json', `http://127.0.0.1:${internalPort}/tokens/`);
    await mintTokens(p.chain, { chainId: 31337, collection: address, recipient: DEV_ADDRESS, quantity: 1, idempotencyKey: 'ssrf-mint-1' });
    const t = await adminCall(p, `/api/nft/metadata?chainId=31337&address=${address}&type=token&tokenId=1`);
    assert.equal(t.status, 200, JSON.stringify(t.body));
    assert.equal(t.body.uri, `http://127.0.0.1:${internalPort}/tokens/1`);
    assert.equal(t.body.metadata, null);
    assert.match(t.body.metadataError, /not fetched: 127\.0\.0\.1 is a loopback address/);
    const c = await adminCall(p, `/api/nft/metadata?chainId=31337&address=${address}&type=contract`);
    assert.equal(c.body.metadata?.name, 'ours', JSON.stringify(c.body));
    assert.equal(internalConnections, 0);
  });
});
