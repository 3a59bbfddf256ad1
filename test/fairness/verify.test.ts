/**
 * `atelier verify` (docs/fairness.md "Verify") against the real platform (`atelier start`,
 * embedded dev chain, worker): three tokens bought through the on-chain sale and one owner mint
 * sell out a collection of 4; `verify` runs as a stranger would — a child process in an empty
 * directory with a clean environment (no DATABASE_URL, no DATA_DIR, no key) — and only the RPC and
 * the URLs the chain gives. Before the reveal it says so (exit 3); after it every token is ok
 * (exit 0, receipts root checked); an image altered on disk makes it fail naming that token (exit 1).
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, test } from 'node:test';
import { toHex, type Address } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { collectionAbi } from '../../contracts/abi/index.ts';
import { publicClientForUrl } from '../../src/chain/chains.ts';
import { ANVIL_PRIVATE_KEYS, freePort } from '../../src/chain/anvil.ts';
import { CLI, startCli, stopAllClis } from '../helpers/cli.ts';
import { walletFor } from '../helpers/kit.ts';
import { call, sampleData } from '../helpers/platform.ts';

const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'atelier-verify-e2e-'));
const strangerDir = fs.mkdtempSync(path.join(os.tmpdir(), 'atelier-verify-stranger-'));
after(async () => {
  await stopAllClis();
  fs.rmSync(dataDir, { recursive: true, force: true });
  fs.rmSync(strangerDir, { recursive: true, force: true });
});

/** `atelier verify ...` as a stranger: empty directory, only PATH and HOME in the environment. */
function verify(args: string[]): Promise<{ code: number | null; out: string; err: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CLI, 'verify', ...args], {
      cwd: strangerDir,
      env: { PATH: process.env.PATH ?? '', HOME: strangerDir },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    child.stdout.on('data', (c: Buffer) => (out += c.toString()));
    child.stderr.on('data', (c: Buffer) => (err += c.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), 120_000);
    child.once('error', reject);
    child.once('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, out, err });
    });
  });
}

const until = async <T>(what: string, get: () => Promise<T | undefined>, ms = 90_000): Promise<T> => {
  const end = Date.now() + ms;
  for (;;) {
    const v = await get();
    if (v !== undefined) return v;
    if (Date.now() > end) assert.fail(`not within ${ms / 1000} s: ${what}`);
    await new Promise((r) => setTimeout(r, 500));
  }
};

test('verify: not revealed yet (3), every token ok after the reveal (0), an altered image names its token (1)', {
  timeout: 600_000,
}, async (t) => {
  const [port, adminPort, chainPort] = [await freePort(), await freePort(), await freePort()];
  await startCli(
    { DEV_CHAIN: 'true', DATA_DIR: dataDir, PORT: String(port), ADMIN_PORT: String(adminPort), DEV_CHAIN_PORT: String(chainPort) },
    240_000,
  );
  const backend = `http://127.0.0.1:${port}`;
  const admin = `http://127.0.0.1:${adminPort}`;
  const rpc = `http://127.0.0.1:${chainPort}`;
  const h = { 'x-api-key': fs.readFileSync(path.join(dataDir, 'api-key'), 'utf8').trim() };

  const created = await call(`${backend}/nft/collections`, {
    headers: h,
    body: { title: 'Verified', description: 'verify e2e', editions: 4, data: sampleData() },
  });
  assert.equal(created.status, 201, JSON.stringify(created.body));
  const id = created.body.data.collection.id as string;
  const deployed = await call(`${admin}/api/nft/collections/deploy`, { headers: h, body: { collectionId: id } });
  assert.ok(deployed.status < 300, JSON.stringify(deployed.body));
  const contract = (await call(`${backend}/nft/collections/${id}`, { headers: h })).body.data.collection.contract_address as Address;
  assert.match(contract, /^0x[0-9a-fA-F]{40}$/);
  const target = `31337:${contract}`;

  const price = 10n ** 15n;
  const sale = await call(`${backend}/nft/collections/${id}/sale`, {
    method: 'PUT',
    headers: h,
    body: {
      currency: 'native',
      price: price.toString(),
      start: null,
      end: null,
      max_per_wallet: 5,
      merkle_root: null,
      payouts: [{ address: privateKeyToAccount(ANVIL_PRIVATE_KEYS[5]!).address, bps: 10000 }],
    },
  });
  assert.equal(sale.status, 200, JSON.stringify(sale.body));

  const buyer = walletFor(rpc, 7);
  const client = publicClientForUrl(31337, rpc);
  const hash = await buyer.writeContract({
    address: contract,
    abi: collectionAbi,
    functionName: 'purchase',
    args: [buyer.account.address, 3n, [], toHex(JSON.stringify({ color: 'red' }))],
    value: price * 3n,
  });
  assert.equal((await client.waitForTransactionReceipt({ hash })).status, 'success');

  // The document a wallet reads: its tokenURI, once the artwork is there.
  const documentOf = async (tokenId: number) => {
    const uri = await client.readContract({ address: contract, abi: collectionAbi, functionName: 'tokenURI', args: [BigInt(tokenId)] });
    const doc = await call(uri);
    return doc.status === 200 && typeof doc.body.image === 'string' && doc.body.image.includes('/files/') ? doc.body : undefined;
  };
  for (const tokenId of [1, 2, 3]) await until(`token ${tokenId}'s artwork`, () => documentOf(tokenId));

  // Bad arguments and an unreachable RPC: 2, with a message.
  const usage = await verify(['--rpc', rpc]);
  assert.equal(usage.code, 2, usage.out + usage.err);
  assert.match(usage.err, /<chainId>:<address>/);
  const unreachable = await verify(['--rpc', `http://127.0.0.1:${await freePort()}`, target]);
  assert.equal(unreachable.code, 2, unreachable.out + unreachable.err);
  assert.match(unreachable.err, /cannot reach the RPC/);

  // Before the reveal: everything but the seeds is checked; exit 3 says the secret is not revealed.
  const early = await verify(['--rpc', rpc, target]);
  for (const line of ['before the reveal:', ...early.out.trim().split('\n')]) t.diagnostic(line);
  assert.equal(early.code, 3, early.out + early.err);
  assert.match(early.out, /the secret is not revealed yet/);
  for (const tokenId of [1, 2, 3]) assert.match(early.out, new RegExp(`^token ${tokenId}: ok`, 'm'), early.out);

  // The owner mints the last token (sold out), the secret is revealed.
  const minted = await call(`${backend}/nft/collections/${id}/mint-and-generate`, {
    headers: h,
    body: { recipient: buyer.account.address, variables: {} },
  });
  assert.equal(minted.status, 201, JSON.stringify(minted.body));
  assert.equal(minted.body.data.mint.tokenId, 4);
  const revealed = await call(`${backend}/nft/collections/${id}/reveal`, { method: 'POST', headers: h, body: {} });
  assert.equal(revealed.status, 200, JSON.stringify(revealed.body));
  await until("token 4's artwork", () => documentOf(4));
  // The receipts root appears in contractURI once every token is generated (the document is cached 30 s).
  const contractUri = await client.readContract({ address: contract, abi: collectionAbi, functionName: 'contractURI' });
  await until('the receipts root in contractURI', async () => {
    const doc = await call(contractUri);
    return doc.body?.fairness?.receipts_merkle_root ?? undefined;
  });

  const good = await verify(['--rpc', rpc, target]);
  for (const line of ['after the reveal:', ...good.out.trim().split('\n')]) t.diagnostic(line);
  assert.equal(good.code, 0, good.out + good.err);
  for (const tokenId of [1, 2, 3, 4]) assert.match(good.out, new RegExp(`^token ${tokenId}: ok`, 'm'), good.out);
  assert.match(good.out, /^receipts root: ok/m, good.out);
  assert.match(good.out, /^summary: all 4 token\(s\) ok$/m, good.out);
  // A stranger's run leaves nothing behind: no data directory, no lock.
  assert.deepEqual(
    fs.readdirSync(strangerDir).filter((f) => !f.startsWith('.')),
    [],
  );

  // One served image altered on disk (local storage: DATA_DIR/files/<key>): verify fails on that token only.
  const image = new URL((await documentOf(2))!.image as string);
  const file = path.join(dataDir, 'files', ...decodeURIComponent(image.pathname.replace(/^\/files\//, '')).split('/'));
  const bytes = fs.readFileSync(file);
  bytes.writeUInt8(bytes.readUInt8(bytes.length - 20) ^ 0xff, bytes.length - 20);
  fs.writeFileSync(file, bytes);
  const bad = await verify(['--rpc', rpc, target]);
  for (const line of ['an altered image:', ...bad.out.trim().split('\n')]) t.diagnostic(line);
  assert.equal(bad.code, 1, bad.out + bad.err);
  assert.match(bad.out, /^token 2: .*image sha256 is [0-9a-f]{64}, the receipt says/m, bad.out);
  for (const tokenId of [1, 3, 4]) assert.match(bad.out, new RegExp(`^token ${tokenId}: ok`, 'm'), bad.out);
  assert.match(bad.out, /^summary: 3 of 4 token\(s\) ok, 1 problem\(s\): NOT verified$/m, bad.out);
});
