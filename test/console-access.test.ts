/**
 * The console's server side (docs/auth.md "Sign in with Ethereum", "Sessions",
 * "The admin proxy"; docs/admin-ui.md "Signing in", "Live generation", "Live activity"), over real
 * HTTP: a real anvil with the platform contracts, a fresh database (PGlite, or PostgreSQL with
 * DATABASE_URL), the backend and the admin proxy listening on their own ports, the in-process job
 * queue and the ownership indexer feeding socket.io on both ports.
 *
 * Two JWT users (A and B) and the operator use the admin proxy as the console does; a wallet signs
 * in with Sign-In with Ethereum (a viem private-key account signing the message); a job's events
 * come through the proxy's SSE pass-through; a transfer on anvil reaches socket.io on the admin
 * port (and, when Debian's chromium is installed, a page of the admin origin under its CSP).
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test, type TestContext } from 'node:test';
import { io as connect, type Socket } from 'socket.io-client';
import { getAddress, type Address, type PublicClient } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { createSiweMessage } from 'viem/siwe';
import { collectionAbi } from '../contracts/abi/index.ts';
import { ANVIL_PRIVATE_KEYS, startAnvil, type AnvilInstance } from '../src/chain/anvil.ts';
import { createChainServices, type ChainServices } from '../src/chain/platform-chain.ts';
import { waitForReceipt } from '../src/chain/wait-receipt.ts';
import { createJobQueue } from '../src/generation/runtime.ts';
import { createBackendClient } from '../src/http/admin/backend-client.ts';
import { IndexerEvents } from '../src/indexer/events.ts';
import type { Indexer } from '../src/indexer/indexer.ts';
import { createIndexer } from '../src/indexer/service.ts';
import { bearer, userToken } from './helpers/content.ts';
import { setupApps, setupDb, walletFor, type TestApps } from './helpers/kit.ts';
import { SERVICE_KEY, asService, call, sampleData } from './helpers/platform.ts';
import { CHROMIUM, launchBrowser } from './ui/console-kit.ts';

interface World {
  anvil: AnvilInstance;
  chain: ChainServices;
  apps: TestApps;
  indexer: Indexer;
  client: PublicClient;
  /** Upstream stream requests the proxy aborted (its client went away). */
  abortedStreams: string[];
  close(): Promise<void>;
}

async function startWorld(): Promise<World> {
  const anvil = await startAnvil();
  const env = { NFT_RPC_URL: anvil.rpcUrl, NFT_CHAIN_ID: '31337', SIWE_DOMAIN: 'console.atelier.test' };
  const database = await setupDb();
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'atelier-console-'));
  const committed = fs.mkdtempSync(path.join(os.tmpdir(), 'atelier-console-committed-'));
  const { testConfig } = await import('../src/config.ts');
  const config = testConfig({ API_KEY: SERVICE_KEY, ...env });
  const chain = createChainServices({ config, db: database.db, deploymentsDir: dir, committedDeploymentsDir: committed });
  const { deployment } = await chain.ensureDeployed(31337);
  const events = new IndexerEvents();
  const jobQueue = createJobQueue(config);
  const abortedStreams: string[] = [];
  const apps = await setupApps({
    database,
    env,
    backend: {
      metadataBaseUrl: 'http://meta.test',
      chain,
      contractExists: chain.contractExists,
      jobQueue,
      indexer: { chainId: 31337, rpcUrl: anvil.rpcUrl, contracts: deployment.contracts as Record<string, string>, events },
    },
    admin: (backendUrl) => {
      // The real client; its stream requests are watched, to see the proxy abort them.
      const real = createBackendClient(backendUrl, SERVICE_KEY);
      return {
        chain,
        indexerEvents: events,
        backend: {
          call: real.call,
          open: (method, route, opts = {}) => {
            opts.signal?.addEventListener('abort', () => abortedStreams.push(route));
            return real.open(method, route, opts);
          },
        },
      };
    },
  });
  const indexer = createIndexer({
    database,
    chainId: 31337,
    rpcUrl: anvil.rpcUrl,
    factoryAddress: deployment.contracts.DiamondFactory,
    startBlock: deployment.blockNumber,
    confirmations: 0,
    events,
  });
  return {
    anvil,
    chain,
    apps,
    indexer,
    client: chain.client(31337) as PublicClient,
    abortedStreams,
    async close() {
      await indexer.stop();
      await apps.close();
      await jobQueue.close();
      await chain.close();
      await anvil.stop();
      await database.close();
      fs.rmSync(dir, { recursive: true, force: true });
      fs.rmSync(committed, { recursive: true, force: true });
    },
  };
}

let w: World;
let a: Record<string, string>;
let b: Record<string, string>;
let aId = '';
let bId = '';
let aCollection = '';
let aAddress: Address;
let bCollection = '';
let bAddress: Address;
let platformCollection = '';

const admin = (route: string, headers: Record<string, string>, body?: unknown, method?: string) =>
  call(`${w.apps.adminUrl}${route}`, { headers, ...(body !== undefined ? { body } : {}), ...(method ? { method } : {}) });
const backend = (route: string, headers: Record<string, string>, body?: unknown) =>
  call(`${w.apps.backendUrl}${route}`, { headers, ...(body !== undefined ? { body } : {}) });

/** A collection created and deployed by id through the admin proxy, as `headers`. */
async function deployedCollection(headers: Record<string, string>, title: string) {
  const created = await admin('/api/nft/collections/create', headers, { title, editions: 20, data: sampleData() });
  assert.equal(created.status, 200, JSON.stringify(created.body));
  const id = created.body.collection.id as string;
  const deployed = await admin('/api/nft/collections/deploy', headers, { collectionId: id, max_supply: 20 });
  assert.equal(deployed.status, 200, JSON.stringify(deployed.body));
  return { id, address: getAddress(deployed.body.contract_address) };
}

before(async () => {
  w = await startWorld();
  a = bearer(await userToken('console-user-a'));
  b = bearer(await userToken('console-user-b'));
  aId = (await backend('/api/me', a)).body.data.id;
  bId = (await backend('/api/me', b)).body.data.id;
  ({ id: aCollection, address: aAddress } = await deployedCollection(a, 'A’s collection'));
  ({ id: bCollection, address: bAddress } = await deployedCollection(b, 'B’s collection'));
  ({ id: platformCollection } = await deployedCollection(asService(), 'The platform’s collection'));
});
after(() => w?.close());

describe('two users and the operator on the admin proxy', () => {
  test('each user lists only their own collections; the operator lists all; a user_id header changes nothing', async () => {
    const ids = async (headers: Record<string, string>) => {
      const r = await admin('/api/nft/collections/list?limit=100', headers);
      assert.equal(r.status, 200, JSON.stringify(r.body));
      return new Set((r.body.collections as Array<{ id: string }>).map((c) => c.id));
    };
    assert.deepEqual(await ids(a), new Set([aCollection]));
    assert.deepEqual(await ids(b), new Set([bCollection]));
    assert.deepEqual(await ids({ ...a, user_id: bId }), new Set([aCollection]));
    const all = await ids(asService());
    for (const id of [aCollection, bCollection, platformCollection]) assert.ok(all.has(id), id);
    const session = await admin('/api/nft/session', a);
    assert.equal(session.status, 200);
    assert.deepEqual(session.body.caller, { kind: 'user', user_id: aId, display_name: null, wallets: [] });
  });

  test('a user changes only their own records through the proxy (the backend authorizes the user, not the operator)', async () => {
    const other = await admin('/api/nft/collections/update', a, { collectionId: bCollection, description: 'not mine' }, 'PUT');
    assert.equal(other.status, 403, JSON.stringify(other.body));
    assert.equal(other.body.success, false);
    const own = await admin('/api/nft/collections/update', a, { collectionId: aCollection, description: 'mine' }, 'PUT');
    assert.equal(own.status, 200);
    assert.equal(own.body.collection.description, 'mine');
    // Minting B's owner-only collection: refused, whoever A names in user_id.
    const mint = await admin('/api/nft/mint', { ...a, user_id: bId }, { collectionId: bCollection, recipient: aAddress });
    assert.equal(mint.status, 403, JSON.stringify(mint.body));
    // An upload for another owner is the operator's.
    const png64 = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==';
    const forB = await admin('/api/nft/upload-image', a, { base64Data: png64, mimeType: 'image/png', userId: bId });
    assert.equal(forB.status, 403);
    assert.match(forB.body.error, /^body\.userId: only the operator/);
    assert.equal((await admin('/api/nft/upload-image', a, { base64Data: png64, mimeType: 'image/png', userId: aId })).status, 200);
  });

  test('admin actions: a user on their own platform-owned contract, never on another user’s nor the platform’s', async () => {
    const action = (headers: Record<string, string>, collectionAddress: string, value: boolean) =>
      admin('/api/nft/admin', headers, { chainId: 31337, collectionAddress, action: 'setMintActive', value });
    const mintActive = (address: Address) =>
      w.client.readContract({ address, abi: collectionAbi, functionName: 'mintActive' }) as Promise<boolean>;

    const onB = await action(a, bAddress, false);
    assert.equal(onB.status, 403, JSON.stringify(onB.body));
    assert.match(onB.body.error, /only the owner of the collection/);
    assert.equal(await mintActive(bAddress), true, 'nothing was sent for B’s contract');

    const platform = (await admin(`/api/nft/collections/lookup?collectionId=${platformCollection}`, asService())).body.collection;
    const onPlatform = await action(a, platform.contract_address, false);
    assert.equal(onPlatform.status, 403);
    assert.match(onPlatform.body.error, /platform collection/);

    const unknown = await action(a, privateKeyToAccount(generatePrivateKey()).address, false);
    assert.equal(unknown.status, 403);
    assert.match(unknown.body.error, /no collection record names/);

    const own = await action(a, aAddress, false);
    assert.equal(own.status, 200, JSON.stringify(own.body));
    assert.equal(await mintActive(aAddress), false);
    const back = await action(asService(), aAddress, true);
    assert.equal(back.status, 200);
    assert.equal(await mintActive(aAddress), true);
  });

  test('platform deploys and raw collection deploys are the operator’s: 403 naming why', async () => {
    const platform = await admin('/api/nft/deploy', a, { chainId: 31337 });
    assert.equal(platform.status, 403);
    assert.match(platform.body.error, /platform contracts is for the platform operator/);
    const raw = await admin('/api/nft/collections', b, {
      chainId: 31337,
      name: 'Raw',
      symbol: 'RAW',
      baseURI: 'http://meta.test/t/',
      contractURI: 'http://meta.test/c.json',
      maxSupply: '10',
    });
    assert.equal(raw.status, 403);
    assert.match(raw.body.error, /POST \/api\/nft\/collections\/deploy/);
    // Chain reads are open to signed-in users.
    const read = await admin(`/api/nft/collections?chainId=31337&addresses=${aAddress}`, a);
    assert.equal(read.status, 200);
    assert.equal(read.body.collections[0].address, aAddress);
    assert.equal((await admin('/api/nft/deploy?chainId=31337', b)).status, 200);
  });
});

describe('Sign-In with Ethereum', () => {
  const account = privateKeyToAccount(generatePrivateKey());

  async function signIn(via: 'admin' | 'backend' = 'admin', signer = account) {
    const prefix = via === 'admin' ? `${w.apps.adminUrl}/api/nft/auth/siwe` : `${w.apps.backendUrl}/api/auth/siwe`;
    const nonce = await call(`${prefix}/nonce`, { body: { address: signer.address } });
    assert.equal(nonce.status, 201, JSON.stringify(nonce.body));
    const n = via === 'admin' ? nonce.body : nonce.body.data;
    assert.equal(n.domain, 'console.atelier.test');
    const signature = await signer.signMessage({ message: n.message });
    const login = await call(`${prefix}/login`, { body: { message: n.message, signature } });
    assert.equal(login.status, 200, JSON.stringify(login.body));
    return { ...(via === 'admin' ? login.body : login.body.data), message: n.message as string, signature };
  }

  test('a wallet signs in through the proxy; its token works on both apps until sign-out, then 401', async () => {
    const s = await signIn();
    assert.match(s.token, /^ats_/);
    assert.equal(s.address, account.address);
    const lifetime = new Date(s.expires_at).getTime() - Date.now();
    assert.ok(lifetime > 0 && lifetime <= 86_400_000, `expires in ${lifetime} ms`);
    const headers = bearer(s.token);
    const session = await admin('/api/nft/session', headers);
    assert.equal(session.status, 200);
    assert.deepEqual(session.body.caller, { kind: 'user', user_id: s.user_id, display_name: null, wallets: [account.address] });
    const me = await backend('/api/me', headers);
    assert.equal(me.status, 200);
    assert.equal(me.body.data.id, s.user_id);
    assert.ok(me.body.data.identities.some((i: { provider: string; provider_user_id: string }) => i.provider === 'wallet'));
    // A new user sees no one else's collections, and creates their own through the proxy.
    assert.deepEqual((await admin('/api/nft/collections/list', headers)).body.collections, []);
    assert.equal((await admin('/api/nft/collections/create', headers, { title: 'Signed in', data: { version: 'v2' } })).status, 200);
    assert.equal((await admin('/api/nft/collections/list', headers)).body.collections.length, 1);
    // The same wallet signs in again as the same user.
    const again = await signIn('backend');
    assert.equal(again.user_id, s.user_id);
    assert.notEqual(again.token, s.token);

    const out = await admin('/api/nft/auth/logout', headers, {});
    assert.equal(out.status, 200, JSON.stringify(out.body));
    assert.deepEqual(out.body, { success: true, signed_out: true });
    // At once, even on a route the proxy answers itself (a chain read, no backend call but the lookup).
    const refused = await admin('/api/nft/deploy?chainId=31337', headers);
    assert.equal(refused.status, 401);
    assert.match(refused.body.error, /signed out/);
    assert.equal((await admin('/api/nft/session', headers)).status, 401);
    assert.equal((await backend('/api/me', headers)).status, 401);
    // The other session is still live, until it signs out at the backend: the proxy follows within seconds.
    const other = bearer(again.token);
    assert.equal((await admin('/api/nft/deploy?chainId=31337', other)).status, 200);
    assert.equal((await backend('/api/auth/logout', other, {})).status, 200);
    // Forwarded calls carry the credential itself: refused at once.
    assert.equal((await admin('/api/nft/session', other)).status, 401);
    // What the proxy answers itself follows within its lookup cache (5 s).
    const deadline = Date.now() + 8_000;
    let status = 200;
    while (status === 200 && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 250));
      status = (await admin('/api/nft/deploy?chainId=31337', other)).status;
    }
    assert.equal(status, 401, 'a session signed out at the backend stops working at the proxy within seconds');
    // Other credentials are not sessions: sign-out says so.
    const jwt = await admin('/api/nft/auth/logout', a, {});
    assert.equal(jwt.status, 400);
    assert.match(jwt.body.error, /only a session token/);
  });

  test('forged, tampered, wrong-domain, expired and replayed messages are 400 naming why', async () => {
    const expectRefusal = async (body: { message: string; signature: string }, code: string, field: RegExp) => {
      const r = await call(`${w.apps.adminUrl}/api/nft/auth/siwe/login`, { body });
      assert.equal(r.status, 400, `${code}: ${JSON.stringify(r.body)}`);
      assert.equal(r.body.success, false);
      assert.equal(r.body.code, code);
      assert.match(r.body.error, field);
    };
    const nonceFor = async (address: string) =>
      (await call(`${w.apps.adminUrl}/api/nft/auth/siwe/nonce`, { body: { address } })).body as { nonce: string; message: string };
    const mallory = privateKeyToAccount(generatePrivateKey());

    // Forged: the message names the account, another key signs it.
    const n1 = await nonceFor(account.address);
    await expectRefusal(
      { message: n1.message, signature: await mallory.signMessage({ message: n1.message }) },
      'SIWE_BAD_SIGNATURE',
      /^body\.signature/,
    );
    // Tampered: signed, then changed (another address line).
    const signed = await account.signMessage({ message: n1.message });
    await expectRefusal(
      { message: n1.message.replace(account.address, mallory.address), signature: signed },
      'SIWE_BAD_SIGNATURE',
      /^body\.signature/,
    );
    // Another site's message, with a good nonce and signature.
    const n2 = await nonceFor(account.address);
    const common = {
      address: account.address,
      chainId: 31337,
      nonce: n2.nonce,
      uri: 'https://console.atelier.test',
      version: '1' as const,
    };
    const foreign = createSiweMessage({ ...common, domain: 'evil.example' });
    await expectRefusal(
      { message: foreign, signature: await account.signMessage({ message: foreign }) },
      'SIWE_WRONG_DOMAIN',
      /evil\.example/,
    );
    // Expired, with a good nonce and signature.
    const expired = createSiweMessage({ ...common, domain: 'console.atelier.test', expirationTime: new Date(Date.now() - 60_000) });
    await expectRefusal({ message: expired, signature: await account.signMessage({ message: expired }) }, 'SIWE_EXPIRED', /expired/);
    // The refusals above used no nonce: n2's message still signs in, once.
    const good = { message: n2.message, signature: await account.signMessage({ message: n2.message }) };
    assert.equal((await call(`${w.apps.adminUrl}/api/nft/auth/siwe/login`, { body: good })).status, 200);
    await expectRefusal(good, 'SIWE_BAD_NONCE', /nonce/);
    // A wallet-link nonce (issued to a signed-in user) never signs in.
    const link = await backend('/api/auth/wallet/nonce', a, { address: account.address });
    assert.equal(link.status, 201);
    const linkMessage = link.body.data.message as string;
    await expectRefusal(
      { message: linkMessage, signature: await account.signMessage({ message: linkMessage }) },
      'SIWE_BAD_NONCE',
      /nonce/,
    );
    // Bad input is 400 naming the field.
    const bad = await call(`${w.apps.adminUrl}/api/nft/auth/siwe/nonce`, { body: { address: 'nope' } });
    assert.equal(bad.status, 400);
    assert.match(bad.body.error, /body\.address/);
  });
});

describe('live job progress through the admin proxy (SSE)', () => {
  interface Frame {
    event: string;
    id?: string;
    data: any;
  }
  /** Reads SSE frames as the console will: fetch with the credential header and a stream reader. */
  function openStream(jobId: string, headers: Record<string, string>, signal?: AbortSignal) {
    const frames: Frame[] = [];
    let ended = false;
    const started = fetch(`${w.apps.adminUrl}/api/nft/jobs/${jobId}/stream`, { headers, ...(signal ? { signal } : {}) }).then(
      async (res) => {
        if (res.status !== 200) return res;
        const reader = res.body!.getReader();
        const decoder = new TextDecoder();
        let buffer = '';
        (async () => {
          try {
            for (;;) {
              const { done, value } = await reader.read();
              if (done) break;
              buffer += decoder.decode(value, { stream: true });
              let cut: number;
              while ((cut = buffer.indexOf('\n\n')) >= 0) {
                const raw = buffer.slice(0, cut);
                buffer = buffer.slice(cut + 2);
                const f: Partial<Frame> = {};
                for (const line of raw.split('\n')) {
                  if (line.startsWith('event: ')) f.event = line.slice(7);
                  else if (line.startsWith('id: ')) f.id = line.slice(4);
                  else if (line.startsWith('data: ')) f.data = JSON.parse(line.slice(6));
                }
                if (f.event) frames.push(f as Frame);
              }
            }
          } catch {
            /* aborted */
          } finally {
            ended = true;
          }
        })();
        return res;
      },
    );
    const until = async (cond: () => boolean, what: string) => {
      const deadline = Date.now() + 10_000;
      while (!cond() && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
      assert.ok(cond(), `${what}; frames: ${JSON.stringify(frames.map((f) => f.event))}`);
    };
    return { started, frames, until, ended: () => ended };
  }

  let jobId = '';
  before(async () => {
    // A's mint starts the token's artwork job (A's); no worker runs, so it waits in the queue.
    const mint = await admin('/api/nft/mint', a, {
      collectionId: aCollection,
      recipient: privateKeyToAccount(ANVIL_PRIVATE_KEYS[3]).address,
    });
    assert.equal(mint.status, 201, JSON.stringify(mint.body));
    jobId = mint.body.generation.jobId;
  });

  test('the job’s owner gets its events as they happen; another user 404; Last-Event-ID is forwarded', async () => {
    assert.equal((await admin(`/api/nft/jobs/${jobId}`, a)).body.job.id, jobId);
    assert.equal((await admin(`/api/nft/jobs/${jobId}`, b)).status, 404);
    const refused = await fetch(`${w.apps.adminUrl}/api/nft/jobs/${jobId}/stream`, { headers: b });
    assert.equal(refused.status, 404);
    assert.equal(((await refused.json()) as { success: boolean }).success, false);

    const s = openStream(jobId, a);
    const res = await s.started;
    assert.equal(res.status, 200);
    assert.match(res.headers.get('content-type') ?? '', /^text\/event-stream/);
    assert.equal(res.headers.get('x-accel-buffering'), 'no');
    // The first events arrive while the job is still open: nothing waits for the stream's end.
    await s.until(() => s.frames.some((f) => f.event === 'job_update'), 'history_init and job_update before the job ends');
    assert.equal(s.frames[0]!.event, 'history_init');
    assert.notEqual(s.frames.find((f) => f.event === 'job_update')!.data.status, 'completed');
    assert.equal(s.ended(), false);

    const done = await backend(`/api/jobs/${jobId}/complete`, asService(), { workflow_output: 'https://cdn.example/art.png' });
    assert.equal(done.status, 200, JSON.stringify(done.body));
    await s.until(() => s.frames.some((f) => f.event === 'job_update' && f.data.status === 'completed'), 'the completion');
    const entries = s.frames.filter((f) => f.event === 'job_history');
    assert.ok(entries.length >= 1);
    await s.until(s.ended, 'the stream ends with its job');

    // Resuming after the last entry seen: nothing is sent twice.
    const last = entries.at(-1)!.id!;
    const resumed = openStream(jobId, { ...a, 'last-event-id': last });
    assert.equal((await resumed.started).status, 200);
    await resumed.until(resumed.ended, 'the resumed stream of an ended job ends');
    assert.deepEqual(resumed.frames.find((f) => f.event === 'history_init')!.data, []);
  });

  test('a client that goes away closes the upstream request', async () => {
    const mint = await admin('/api/nft/mint', a, {
      collectionId: aCollection,
      recipient: privateKeyToAccount(ANVIL_PRIVATE_KEYS[3]).address,
    });
    const open = mint.body.generation.jobId as string;
    const before = w.abortedStreams.length;
    const controller = new AbortController();
    const s = openStream(open, a, controller.signal);
    assert.equal((await s.started).status, 200);
    await s.until(() => s.frames.some((f) => f.event === 'job_update'), 'the first events');
    controller.abort();
    const deadline = Date.now() + 5_000;
    while (w.abortedStreams.length === before && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    assert.deepEqual(w.abortedStreams.slice(before), [`api/jobs/${open}/stream`]);
  });
});

describe('live activity: socket.io on the admin port', () => {
  const sockets: Socket[] = [];
  after(() => {
    for (const s of sockets) s.disconnect();
  });

  /** Mints a token of A's collection to anvil account 3 and transfers it to account 4; indexes. */
  async function transferOnChain() {
    const from = walletFor(w.anvil.rpcUrl, 3);
    const to = privateKeyToAccount(ANVIL_PRIVATE_KEYS[4]).address;
    const mint = await admin('/api/nft/mint', a, { collectionId: aCollection, recipient: from.account.address });
    assert.equal(mint.status, 201, JSON.stringify(mint.body));
    const tokenId = BigInt(mint.body.mint.tokenId);
    const hash = await from.writeContract({
      address: aAddress,
      abi: collectionAbi,
      functionName: 'transferFrom',
      args: [from.account.address, to, tokenId],
    } as never);
    await waitForReceipt(w.client, hash);
    await w.indexer.syncOnce();
    return { tokenId: tokenId.toString(), from: from.account.address, to, hash };
  }

  test('a client of the admin origin subscribed to app:<address> receives emprops:appToken:transferred', async () => {
    const s = connect(w.apps.adminUrl, { transports: ['websocket'], forceNew: true });
    sockets.push(s);
    await new Promise<void>((resolve, reject) => {
      s.once('connect', () => resolve());
      s.once('connect_error', reject);
    });
    const got: any[] = [];
    s.on('emprops:appToken:transferred', (payload) => got.push(payload));
    const joined = await new Promise<{ ok: boolean; room?: string }>((resolve) =>
      s.emit('subscribe', { room: `app:${aAddress}` }, (r: { ok: boolean; room?: string }) => resolve(r)),
    );
    assert.deepEqual(joined, { ok: true, room: `app:${aAddress.toLowerCase()}` });
    const t = await transferOnChain();
    const deadline = Date.now() + 10_000;
    while (!got.some((e) => e.from === t.from) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    const event = got.find((e) => getAddress(e.from) === t.from);
    assert.ok(event, `events: ${JSON.stringify(got)}`);
    assert.equal(getAddress(event.to), t.to);
    assert.equal(String(event.tokenId), t.tokenId);
    assert.equal(getAddress(event.appAddress), aAddress);
    assert.equal(event.txHash, t.hash);
  });

  test('the browser client is served from the admin origin and connects under the console’s CSP (chromium)', async (t: TestContext) => {
    const client = await fetch(`${w.apps.adminUrl}/ui/vendor/socket.io.esm.min.js`);
    assert.equal(client.status, 200);
    assert.match(client.headers.get('content-type') ?? '', /^text\/javascript/);
    assert.match(await client.text(), /Socket\.IO v4\.8\.4/);
    if (!fs.existsSync(CHROMIUM)) {
      t.skip('chromium not installed: apt-get install chromium');
      return;
    }
    const b = await launchBrowser();
    try {
      const { page } = b;
      await page.goto(`${w.apps.adminUrl}/`);
      // In the page: the vendored client, a WebSocket to the page's own origin, a room.
      const room = `app:${aAddress}`;
      const pending = page.evaluate(async (r) => {
        const { io } = await import('/ui/vendor/socket.io.esm.min.js' as string);
        const socket = io({ transports: ['websocket'] });
        await new Promise<void>((resolve, reject) => {
          socket.once('connect', () => resolve());
          socket.once('connect_error', (e: Error) => reject(new Error(`connect_error: ${e.message}`)));
        });
        await new Promise((resolve) => socket.emit('subscribe', { room: r }, resolve));
        (window as unknown as { ready: boolean }).ready = true;
        return new Promise<unknown>((resolve) => socket.once('emprops:appToken:transferred', resolve));
      }, room);
      await page.waitForFunction(() => (window as unknown as { ready?: boolean }).ready === true, undefined, { timeout: 10_000 });
      const sent = await transferOnChain();
      const payload = (await pending) as { from: string; tokenId: string };
      assert.equal(getAddress(payload.from), sent.from);
      assert.equal(String(payload.tokenId), sent.tokenId);
      assert.deepEqual(
        b.errors.filter((v) => /Content Security Policy|Refused/.test(v)),
        [],
      );
    } finally {
      await b.close();
    }
  });
});
