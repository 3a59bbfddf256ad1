/**
 * The public mint page's routes (docs/mint-page.md) on the backend without a chain: the page and
 * its JSON need no credential and set no cookie, unknown collections are 404, every bad parameter
 * a 400 naming it, the embed alone may be framed, the allowlist proof verifies against the list's
 * root, and the page's hand-made ABI encoding equals viem's.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { encodeFunctionData, encodeFunctionResult, erc20Abi, getAddress, padHex, toHex, type Hex } from 'viem';
import { collectionAbi } from '../contracts/abi/index.ts';
import { merkleLeaf, merkleRoot, verifyMerkleProof } from '../src/domain/mint-policy.ts';
// @ts-expect-error plain ES modules of the mint page, without types
import * as mintAbi from '../web/mint/abi.js';
import { asService, sampleData, startTestPlatform, type TestPlatform } from './helpers/platform.ts';

const {
  choicesData,
  DECIMALS_SELECTOR,
  decodeSymbol,
  decodeUint,
  encodeAllowance,
  encodeApprove,
  encodePurchase,
  formatUnits,
  mintedTokenIds,
  SYMBOL_SELECTOR,
  TRANSFER_TOPIC,
} = mintAbi;

const A = '0x70997970C51812dc3A010C7d01b50e0d17dc79C8';
const B = '0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC';
const C = '0x90F79bf6EB2c4f870365E785982E1f101E93b906';
const UNKNOWN = '7d0f4b7e-2d55-4c55-9b1d-6a0f3c1d2e4f';

describe('mint page routes', () => {
  let p: TestPlatform;
  let id: string;
  let listed: string;

  before(async () => {
    p = await startTestPlatform({}, {}, { listen: false });
    const made = await p.request('backend', '/nft/collections', {
      headers: asService(),
      body: { title: 'Night Foxes', description: 'Foxes under a moon', editions: 10, data: sampleData() },
    });
    assert.equal(made.status, 201, JSON.stringify(made.body));
    id = made.body.data.collection.id;
    const other = await p.request('backend', '/nft/collections', {
      headers: asService(),
      body: { title: 'Listed', description: 'with an allowlist', editions: 10, data: sampleData() },
    });
    assert.equal(other.status, 201, JSON.stringify(other.body));
    listed = other.body.data.collection.id;
    const list = await p.request('backend', `/nft/collections/${listed}`, {
      method: 'PUT',
      headers: asService(),
      body: { mint_allowlist: [A, B] },
    });
    assert.equal(list.status, 200, JSON.stringify(list.body));
  });
  after(() => p?.close());

  const get = (url: string) => p.backend.inject({ method: 'GET', url });

  test('the JSON is public: title, choices, supply, no sale without a chain, no cookie', async () => {
    const res = await get(`/nft/collections/${id}/mint-page`);
    assert.equal(res.statusCode, 200, res.body);
    assert.equal(res.headers['set-cookie'], undefined);
    assert.equal(res.headers['access-control-allow-origin'], '*');
    const d = res.json().data;
    assert.equal(d.title, 'Night Foxes');
    assert.equal(d.description, 'Foxes under a moon');
    assert.equal(d.minted, 0);
    assert.equal(d.max_supply, 10);
    assert.equal(d.sale, null);
    assert.match(d.sale_error, /no chain/);
    assert.deepEqual(d.latest_mints, []);
    assert.deepEqual(d.fairness, { committed: false, commitment: null, revealed: false, secret: null });
    // color is selectable (presets), animal customizable (free text); social_pfp and the reference images are not offered
    assert.deepEqual(
      d.choices.map((c: { name: string; kind: string; presets: unknown[] }) => [c.name, c.kind, c.presets.length]),
      [
        ['color', 'preset', 2],
        ['animal', 'custom', 2],
      ],
    );
    assert.equal(d.choices[0].display_name, 'Color');
    assert.deepEqual(d.choices[0].presets[0], { value: 'red', display_name: 'Red' });
  });

  test('unknown collections are 404; bad ids and addresses are 400 naming the parameter', async () => {
    for (const url of [
      `/nft/collections/${UNKNOWN}/mint-page`,
      `/mint/${UNKNOWN}`,
      `/nft/collections/${UNKNOWN}/allowlist-proof?address=${A}`,
    ]) {
      const res = await get(url);
      assert.equal(res.statusCode, 404, `${url}: ${res.body}`);
    }
    const bad: Array<[string, RegExp]> = [
      [`/nft/collections/not-a-uuid/mint-page`, /collectionId/],
      [`/mint/not-a-uuid`, /collectionId/],
      [`/mint/${id}?embed=yes`, /embed/],
      [`/nft/collections/${id}/allowlist-proof`, /address/],
      [`/nft/collections/${id}/allowlist-proof?address=0x1234`, /address.*20-byte/],
      [`/mint/31337/0xnothex`, /address/],
      [`/mint/0/${A}`, /chainId/],
      [`/mint/abc/${A}`, /chainId/],
    ];
    for (const [url, message] of bad) {
      const res = await get(url);
      assert.equal(res.statusCode, 400, `${url}: ${res.body}`);
      assert.match(res.json().error, message, url);
    }
    const nowhere = await get(`/mint/31337/${C}`);
    assert.equal(nowhere.statusCode, 404, nowhere.body);
    // A path under a collection's page is no page, not a bad chain id.
    for (const url of [`/mint/${id}/extra`, `/mint/${UNKNOWN}/extra?embed=1`]) {
      const res = await get(url);
      assert.equal(res.statusCode, 404, `${url}: ${res.body}`);
      const at = url.split('?')[0]!;
      assert.equal(res.json().error, `route GET ${at} not found: a collection's mint page is ${at.replace(/\/extra$/, '')}`);
    }
  });

  test('the page: static HTML, strict CSP, not framable; the embed alone may be framed', async () => {
    const page = await get(`/mint/${id}`);
    assert.equal(page.statusCode, 200, page.body);
    assert.match(String(page.headers['content-type']), /^text\/html/);
    assert.equal(page.headers['set-cookie'], undefined);
    const csp = String(page.headers['content-security-policy']);
    assert.match(csp, /default-src 'none'/);
    assert.match(csp, /script-src 'self'(;|$)/);
    assert.match(csp, /connect-src 'self'(;|$)/);
    assert.match(csp, /frame-ancestors 'none'/);
    assert.doesNotMatch(csp, /unsafe-inline|unsafe-eval/);
    assert.equal(page.headers['x-frame-options'], 'DENY');
    assert.match(page.body, /<script type="module" src="\/mint-assets\/mint\.js"><\/script>/);
    assert.doesNotMatch(page.body, /<script>|<script type="module">|style=/, 'no inline script or style');

    const tracked = await get(`/mint/${id}?utm_source=newsletter&fbclid=abc`);
    assert.equal(tracked.statusCode, 200, 'a shared link with trackers still opens');

    const widget = await get(`/mint/${id}?embed=1`);
    assert.equal(widget.statusCode, 200);
    assert.match(String(widget.headers['content-security-policy']), /frame-ancestors \*/);
    assert.equal(widget.headers['x-frame-options'], undefined);

    for (const [file, type] of [
      ['mint.js', 'text/javascript'],
      ['wallet.js', 'text/javascript'],
      ['abi.js', 'text/javascript'],
      ['mint.css', 'text/css'],
      ['favicon.svg', 'image/svg+xml'],
    ] as const) {
      const res = await get(`/mint-assets/${file}`);
      assert.equal(res.statusCode, 200, file);
      assert.ok(String(res.headers['content-type']).startsWith(type), file);
    }
    for (const url of [
      '/mint-assets/index.html',
      '/mint-assets/constructor',
      '/mint-assets/__proto__',
      '/mint-assets/..%2fmain.js',
      '/mint-assets/missing.js',
    ]) {
      assert.equal((await get(url)).statusCode, 404, url);
    }
  });

  test('the allowlist proof: from the collection’s address list, verifying against its root', async () => {
    const open = (await get(`/nft/collections/${id}/allowlist-proof?address=${A.toLowerCase()}`)).json().data;
    assert.equal(open.allowed, true);
    assert.deepEqual(open.proof, []);
    assert.equal(open.address, A);

    const yes = (await get(`/nft/collections/${listed}/allowlist-proof?address=${B}`)).json().data;
    assert.equal(yes.allowed, true, yes.reason);
    assert.equal(yes.list_root, merkleRoot([A, B]));
    assert.ok(verifyMerkleProof(yes.list_root as Hex, merkleLeaf(B), yes.proof));

    const no = (await get(`/nft/collections/${listed}/allowlist-proof?address=${C}`)).json().data;
    assert.equal(no.allowed, false);
    assert.match(no.reason, /not on the allowlist/);
  });

  test('the console overview links the page and the embed', async () => {
    const o = await p.request('backend', `/nft/collections/${id}/overview`, { headers: asService() });
    assert.equal(o.status, 200, JSON.stringify(o.body));
    assert.match(o.body.data.share.page_url, new RegExp(`/mint/${id}$`));
    assert.equal(o.body.data.share.embed_url, `${o.body.data.share.page_url}?embed=1`);
  });
});

describe('the mint page’s hand-made ABI encoding', () => {
  test('purchase and approve calldata equal viem’s', () => {
    const proofs: Hex[][] = [[], [merkleLeaf(A)], [merkleLeaf(A), merkleLeaf(B), merkleLeaf(C)]];
    const datas = ['0x', toHex(JSON.stringify({ color: 'red' })), toHex('x'.repeat(32)), toHex(JSON.stringify({ animal: 'renard é 🦊' }))];
    for (const proof of proofs) {
      for (const data of datas) {
        for (const quantity of [1n, 3n, 2n ** 200n]) {
          assert.equal(
            encodePurchase(A, quantity, proof, data),
            encodeFunctionData({ abi: collectionAbi, functionName: 'purchase', args: [A, quantity, proof, data as Hex] }),
          );
        }
      }
    }
    assert.equal(encodeApprove(B, 10n ** 18n), encodeFunctionData({ abi: erc20Abi, functionName: 'approve', args: [B, 10n ** 18n] }));
  });

  test('choices become UTF-8 JSON without blanks; minted ids come from Transfer logs from zero', () => {
    assert.equal(choicesData({ color: 'red', animal: '' }), toHex(JSON.stringify({ color: 'red' })));
    assert.equal(choicesData({ color: '' }), '0x');
    assert.equal(choicesData({ animal: 'renard é' }), toHex(JSON.stringify({ animal: 'renard é' })));
    const pad = (v: string) => `0x${v.replace(/^0x/, '').toLowerCase().padStart(64, '0')}`;
    const contract = getAddress('0x14d4d76e91231e4499d466f272ed64a00fd1a580');
    const log = (from: string, tokenId: number, address = contract) => ({
      address: address.toLowerCase(),
      topics: [TRANSFER_TOPIC, pad(from), pad(A), pad(tokenId.toString(16))],
    });
    const receipt = { logs: [log('0x0', 7), log('0x0', 8), log(B, 9), log('0x0', 10, B), { address: contract, topics: [TRANSFER_TOPIC] }] };
    assert.deepEqual(mintedTokenIds(receipt, contract), [7, 8]);
  });

  test('the ERC-20 reads: allowance, decimals and symbol calldata equal viem’s; their answers decode', () => {
    assert.equal(encodeAllowance(A, B), encodeFunctionData({ abi: erc20Abi, functionName: 'allowance', args: [A, B] }));
    assert.equal(DECIMALS_SELECTOR, encodeFunctionData({ abi: erc20Abi, functionName: 'decimals' }));
    assert.equal(SYMBOL_SELECTOR, encodeFunctionData({ abi: erc20Abi, functionName: 'symbol' }));
    for (const v of [0n, 6n, 2n ** 255n + 7n]) {
      assert.equal(decodeUint(encodeFunctionResult({ abi: erc20Abi, functionName: 'allowance', result: v })), v);
    }
    for (const sym of ['tUSD', 'USDC', 'x'.repeat(40), 'Ünï']) {
      assert.equal(decodeSymbol(encodeFunctionResult({ abi: erc20Abi, functionName: 'symbol', result: sym })), sym);
    }
    // an older token's bytes32 symbol (MKR): trailing zero bytes cut
    assert.equal(decodeSymbol(padHex(toHex('MKR'), { dir: 'right', size: 32 })), 'MKR');
    assert.equal(decodeSymbol(encodeFunctionResult({ abi: erc20Abi, functionName: 'symbol', result: 'a\u0000b\nc' })), 'abc');
    assert.throws(() => decodeUint('0x'), /no number/);
    assert.throws(() => decodeSymbol('0x'), /no symbol/);
  });

  test('amounts in a currency’s units', () => {
    assert.equal(formatUnits(2_500_000n, 6), '2.5');
    assert.equal(formatUnits(10n ** 15n, 18), '0.001');
    assert.equal(formatUnits(3_000_000n, 6), '3');
    assert.equal(formatUnits(1n, 6), '0.000001');
    assert.equal(formatUnits(42n, 0), '42');
  });
});
