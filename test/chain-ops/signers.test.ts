/**
 * The platform wallet's key outside the process (docs/signers-and-rpc.md): with NFT_SIGNER=remote
 * the platform deploys and mints while the key lives only in a fake remote signer
 * (test/fakes/signer-server.ts); with NFT_SIGNER=kms a fake AWS KMS (test/fakes/fake-kms.ts, one
 * real secp256k1 key) signs, and anvil accepts what it signed. Everything else is unchanged:
 * same tx sender, same routes. The `atelier deploy` process root picks its signer from the same
 * configuration, and no secret reaches a log line, a stored error or a config error.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { getAddress, parseEther, parseSignature, verifyMessage, verifyTypedData, type Address } from 'viem';
import { generatePrivateKey } from 'viem/accounts';
import { collectionAbi } from '../../contracts/abi/index.ts';
import { kmsAccount } from '../../src/chain/signers/kms.ts';
import { remoteAccount } from '../../src/chain/signers/remote.ts';
import { createChainServices } from '../../src/chain/platform-chain.ts';
import { DEV_ADDRESS } from '../../src/chain/wallet.ts';
import { loadConfig, testConfig } from '../../src/config.ts';
import { runDeploy } from '../../src/processes/deploy.ts';
import { rowsOf } from '../chain/helpers.ts';
import { startLocalAnvil, type LocalAnvil } from '../helpers/anvil-local.ts';
import { createTestDatabase, type TestDatabase } from '../helpers/db.ts';
import { startFakeKms, type FakeKms } from '../fakes/fake-kms.ts';
import { startFakeSignerServer, type FakeSignerServer } from '../fakes/signer-server.ts';
import { asService, sampleData } from '../helpers/platform.ts';
import { backendCall, deployFactory, startChainPlatform, type ChainPlatform } from './helpers.ts';

const rpc = async (url: string, method: string, params: unknown[]) => {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
  });
  const body = (await res.json()) as { result?: unknown; error?: { message: string } };
  if (body.error) throw new Error(body.error.message);
  return body.result;
};
const fund = (p: ChainPlatform, address: Address) =>
  rpc(p.anvil.rpcUrl, 'anvil_setBalance', [address, `0x${parseEther('100').toString(16)}`]);
const U1 = asService({ user_id: 'u1' });
const SECRET = '0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d';

const typedData = {
  domain: { name: 'Atelier', version: '1', chainId: 31337 },
  types: {
    Mint: [
      { name: 'to', type: 'address' },
      { name: 'quantity', type: 'uint256' },
    ],
  },
  primaryType: 'Mint',
  message: { to: '0x70997970C51812dc3A010C7d01b50e0d17dc79C8', quantity: 3n },
} as const;

describe('remote JSON-RPC signer', { timeout: 120_000 }, () => {
  let p: ChainPlatform;
  let signer: FakeSignerServer;
  before(async () => {
    signer = await startFakeSignerServer(SECRET);
    p = await startChainPlatform({ env: { NFT_SIGNER: 'remote', NFT_SIGNER_URL: signer.url, NFT_SIGNER_ADDRESS: signer.address } });
    await fund(p, signer.address);
  });
  after(async () => {
    await p?.close();
    await signer?.close();
  });

  test('the platform deploys and mints with the key held only by the signer server', async () => {
    assert.equal(p.chain.walletAddress(31337), getAddress(signer.address));
    await deployFactory(p);
    const c = await backendCall(p, '/nft/collections', { title: 'remote', data: sampleData() }, U1);
    assert.equal(c.status, 201, JSON.stringify(c.body));
    const id = c.body.data.collection.id;
    const dep = await backendCall(
      p,
      `/nft/collections/${id}/deploy`,
      { max_supply: 10, royalty_bps: 0, royalty_receiver: DEV_ADDRESS },
      U1,
    );
    assert.equal(dep.status, 200, JSON.stringify(dep.body));
    const address = dep.body.data.contract_address as Address;
    const m = await backendCall(p, `/nft/collections/${id}/mint`, { recipient: DEV_ADDRESS }, U1);
    assert.equal(m.status, 201, JSON.stringify(m.body));

    const client = p.chain.client(31337);
    assert.equal(await client.readContract({ address, abi: collectionAbi, functionName: 'minter' as never }), getAddress(signer.address));
    assert.equal(
      await client.readContract({ address, abi: collectionAbi, functionName: 'ownerOf' as never, args: [1n] as never }),
      DEV_ADDRESS,
    );
    // Every platform transaction came from the signer's address and was signed by the server.
    const sent = await client.getTransactionCount({ address: signer.address });
    assert.ok(sent >= 3, `the signer's address sent ${sent} transactions`);
    assert.equal(signer.calls.filter((c) => c === 'eth_signTransaction').length, sent);
    assert.equal(await client.getTransactionCount({ address: DEV_ADDRESS }), 0, 'the dev key signed nothing');
  });

  test('/metrics and the config never show the key', async () => {
    const r = await fetch(`${p.backendUrl}/metrics`);
    const text = await r.text();
    assert.ok(!text.includes(SECRET.slice(2)), 'no key in /metrics');
    assert.equal(JSON.stringify(p.config).includes(SECRET.slice(2)), false);
  });

  test('typed data and messages are signed remotely and verify against the address', async () => {
    const account = remoteAccount({ url: signer.url, address: signer.address, chainId: 31337 });
    const sig = await account.signTypedData(typedData);
    assert.equal(await verifyTypedData({ ...typedData, address: signer.address, signature: sig }), true);
    const msg = await account.signMessage({ message: 'hello' });
    assert.equal(await verifyMessage({ address: signer.address, message: 'hello', signature: msg }), true);
  });

  test('NFT_SIGNER_TOKEN goes as a bearer token; a refusal names neither the token nor the URL', async () => {
    const token = 'signer-token-7f3a9c';
    const guarded = await startFakeSignerServer(SECRET, { token });
    try {
      const ok = remoteAccount({ url: guarded.url, address: guarded.address, chainId: 31337, token });
      const sig = await ok.signTypedData(typedData);
      assert.equal(await verifyTypedData({ ...typedData, address: guarded.address, signature: sig }), true);
      const wrong = remoteAccount({ url: `${guarded.url}/?key=url-secret`, address: guarded.address, chainId: 31337, token: 'not-it' });
      await assert.rejects(wrong.signMessage({ message: 'x' }), (err: Error) => {
        assert.equal(err.message, 'remote signer: eth_sign answered HTTP 401');
        return true;
      });
    } finally {
      await guarded.close();
    }
  });

  test('a signer holding a different key is refused; the error names addresses, never a key or the URL', async () => {
    const other = await startFakeSignerServer(generatePrivateKey());
    try {
      const account = remoteAccount({ url: `${other.url}/?token=s3cr3t`, address: signer.address, chainId: 31337 });
      await assert.rejects(account.signTypedData(typedData), (err: Error) => {
        assert.match(err.message, /^remote signer: eth_signTypedData_v4 refused: unknown account/);
        assert.ok(!err.message.includes('s3cr3t'));
        return true;
      });
      const lying = remoteAccount({ url: other.url, address: other.address, chainId: 31337 });
      // Asked for nonce 1, a correct signer signs nonce 1: tampering is what the check is for.
      const raw = await lying.signTransaction({
        type: 'eip1559',
        chainId: 31337,
        nonce: 1,
        to: DEV_ADDRESS,
        value: 1n,
        gas: 21000n,
        maxFeePerGas: 2n,
        maxPriorityFeePerGas: 1n,
      });
      assert.match(raw, /^0x02/);
      const wrong = remoteAccount({ url: other.url, address: signer.address, chainId: 31337 });
      await assert.rejects(wrong.signMessage({ message: 'x' }), /remote signer: eth_sign refused: unknown account/);
    } finally {
      await other.close();
    }
  });
});

describe('AWS KMS signer against a fake KMS', { timeout: 120_000 }, () => {
  let p: ChainPlatform;
  let kms: FakeKms;
  before(async () => {
    kms = await startFakeKms();
    p = await startChainPlatform({
      env: {
        NFT_SIGNER: 'kms',
        NFT_SIGNER_ADDRESS: kms.address,
        NFT_KMS_KEY_ID: kms.keyId,
        NFT_KMS_ENDPOINT: kms.url,
        NFT_KMS_ACCESS_KEY_ID: 'AKIAFAKE',
        NFT_KMS_SECRET_ACCESS_KEY: 'fake-secret-fake-secret',
      },
    });
    await fund(p, kms.address);
  });
  after(async () => {
    await p?.close();
    await kms?.close();
  });

  test('transfers through the tx sender, signed by KMS, are mined by anvil', async () => {
    const to = '0x000000000000000000000000000000000000bEEF' as Address;
    const sender = p.chain.sender(31337);
    assert.equal(sender.address, kms.address);
    for (let i = 0; i < 4; i++) {
      const r = await sender.send({ purpose: 'kms-transfer', to, value: 1000n });
      assert.equal(r.status, 'mined');
      assert.equal(getAddress(r.receipt.from), kms.address);
    }
    assert.equal(await p.chain.client(31337).getBalance({ address: to }), 4000n);
    assert.ok(kms.calls.includes('TrentService.GetPublicKey'));
    assert.equal(kms.calls.filter((c) => c === 'TrentService.Sign').length, 4);
  });

  test('high-s signatures are normalised and v recovered: every signature verifies', async () => {
    const account = kmsAccount({
      keyId: kms.keyId,
      address: kms.address,
      region: 'us-east-1',
      endpoint: kms.url,
      credentials: { accessKeyId: 'a', secretAccessKey: 'b' },
    });
    const before = kms.highS;
    for (let i = 0; i < 24; i++) {
      const message = `message ${i}`;
      const signature = await account.signMessage({ message });
      const { s } = parseSignature(signature);
      assert.ok(BigInt(s) <= 0x7fffffffffffffffffffffffffffffff5d576e7357a4501ddfe92f46681b20a0n, 'low s');
      assert.equal(await verifyMessage({ address: kms.address, message, signature }), true);
    }
    assert.ok(kms.highS > before, 'the fake answered some upper-half s values (2^-24 chance of none)');
    const sig = await account.signTypedData(typedData);
    assert.equal(await verifyTypedData({ ...typedData, address: kms.address, signature: sig }), true);
  });

  test('a KMS key whose address is not NFT_SIGNER_ADDRESS signs nothing', async () => {
    const account = kmsAccount({
      keyId: kms.keyId,
      address: DEV_ADDRESS,
      region: 'us-east-1',
      endpoint: kms.url,
      credentials: { accessKeyId: 'a', secretAccessKey: 'b' },
    });
    await assert.rejects(
      account.signMessage({ message: 'x' }),
      new RegExp(`KMS signer: the KMS key's address is ${kms.address}, but NFT_SIGNER_ADDRESS is ${DEV_ADDRESS}`),
    );
  });
});

/** A port nothing listens on. */
async function closedPort(): Promise<number> {
  const s = http.createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  const { port } = s.address() as AddressInfo;
  await new Promise<void>((r) => s.close(() => r()));
  return port;
}

describe('the process roots take their signer and RPC URLs from the configuration', { timeout: 180_000 }, () => {
  let anvil: LocalAnvil;
  let kms: FakeKms;
  let database: TestDatabase;
  before(async () => {
    [anvil, kms, database] = await Promise.all([startLocalAnvil(), startFakeKms(), createTestDatabase()]);
    await rpc(anvil.rpcUrl, 'anvil_setBalance', [kms.address, `0x${parseEther('100').toString(16)}`]);
  });
  after(async () => {
    await anvil?.stop();
    await kms?.close();
    await database?.close();
  });

  test('atelier deploy (src/processes/deploy.ts) with NFT_SIGNER=kms and two RPC URLs, the first dead: KMS signs every deployment', async () => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'atelier-signer-deploy-'));
    const config = loadConfig({
      LOG_LEVEL: 'silent',
      DEV_CHAIN: 'false',
      DATA_DIR: dataDir,
      // On PostgreSQL runs the throwaway database of this file; else PGlite in the data dir.
      ...(database.url ? { DATABASE_URL: database.url } : {}),
      NFT_CHAIN_ID: '31337',
      NFT_RPC_URL: `http://127.0.0.1:${await closedPort()},${anvil.rpcUrl}`,
      NFT_SIGNER: 'kms',
      NFT_SIGNER_ADDRESS: kms.address,
      NFT_KMS_KEY_ID: kms.keyId,
      NFT_KMS_ENDPOINT: kms.url,
      NFT_KMS_ACCESS_KEY_ID: 'AKIAFAKEDEPLOY',
      NFT_KMS_SECRET_ACCESS_KEY: 'fake-deploy-secret',
    });
    try {
      const out = await runDeploy(config);
      assert.equal(out.deployed, true);
      const code = await rpc(anvil.rpcUrl, 'eth_getCode', [out.factory, 'latest']);
      assert.ok(typeof code === 'string' && code.length > 2, 'the factory has code');
      const sent = Number(await rpc(anvil.rpcUrl, 'eth_getTransactionCount', [kms.address, 'latest']));
      assert.ok(sent >= 10, `the KMS key's address sent ${sent} transactions`);
      assert.equal(kms.calls.filter((c) => c === 'TrentService.Sign').length, sent);
      assert.equal(Number(await rpc(anvil.rpcUrl, 'eth_getTransactionCount', [DEV_ADDRESS, 'latest'])), 0, 'the dev key signed nothing');
    } finally {
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  });

  test('no secret in a log line, a stored error or a config error', async () => {
    const token = 'tok-3b1e6d0c';
    const down = `http://127.0.0.1:${await closedPort()}/?apikey=url-secret`;
    const lines: string[] = [];
    const capture = (o: object, m?: string) =>
      lines.push(`${m ?? ''} ${JSON.stringify(o, (_k, v) => (typeof v === 'bigint' ? String(v) : v))}`);
    const config = testConfig({
      NFT_CHAIN_ID: '31337',
      NFT_RPC_URL: anvil.rpcUrl,
      NFT_SIGNER: 'remote',
      NFT_SIGNER_URL: down,
      NFT_SIGNER_TOKEN: token,
      NFT_SIGNER_ADDRESS: DEV_ADDRESS,
      NFT_DEPLOYER_PRIVATE_KEY: SECRET,
    });
    const chain = createChainServices({
      config,
      db: database.db,
      logger: { info: capture, warn: capture, error: capture, debug: capture },
    });
    try {
      const r = await chain
        .sender(31337)
        .send({ purpose: 'signer-down', to: DEV_ADDRESS, value: 1n })
        .then(
          () => undefined,
          (err: Error) => err,
        );
      assert.ok(r instanceof Error, 'the send failed: the signer is down');
      assert.match(r.message, /remote signer: eth_signTransaction did not reach the signer/);
      const stored = (await rowsOf(database.db)).filter((row) => row.purpose === 'signer-down').map((row) => row.error);
      assert.equal(stored.length, 1);
      const everything = [r.message, JSON.stringify(stored), ...lines].join('\n');
      assert.match(everything, /did not reach the signer/, 'the failure was logged');
      for (const secret of [token, 'url-secret', SECRET.slice(2), down]) assert.ok(!everything.includes(secret), `no ${secret} anywhere`);
    } finally {
      await chain.close();
    }
    // A config error names the variable, never a secret's value.
    for (const [name, value] of [
      ['NFT_SIGNER_URL', 'not a url tok-3b1e6d0c'],
      ['NFT_DEPLOYER_PRIVATE_KEY', '0x1234-secret'],
    ] as const) {
      assert.throws(
        () => loadConfig({ [name]: value }),
        (err: Error) => err.message.includes(name) && !err.message.includes(value),
      );
    }
    assert.throws(() => loadConfig({ NFT_SIGNER: 'remote' }), /NFT_SIGNER_URL: required when NFT_SIGNER is remote/);
    assert.throws(() => loadConfig({ NFT_SIGNER: 'kms', NFT_KMS_KEY_ID: 'k' }), /NFT_SIGNER_ADDRESS: required when NFT_SIGNER is kms/);
  });
});
