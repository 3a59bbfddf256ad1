/**
 * Both OpenAPI documents (backend and admin proxy, /openapi.json and /docs) describe every
 * operation fully, and their examples work (docs/api-docs.md):
 *
 * - every operation has a summary, a description, an operationId (unique in its document), a 2xx
 *   response schema and tags with descriptions; every tag the document lists is used (no empty
 *   section in /docs);
 * - public routes carry no security requirement (no lock in /docs) and every other one does, and
 *   the app agrees: an anonymous call is refused for lack of credentials exactly where there is a lock;
 * - every request body, every required path and query parameter and every 2xx JSON answer has an
 *   example; each answer example parses with the route's own zod schema without a field the schema
 *   does not know (so examples cannot drift from the schemas);
 * - every request example, sent to the real apps (real anvil with the platform contracts, a job
 *   queue, file storage) with the service key for a signed-in user, is accepted: a 2xx, or for a
 *   few operations the status listed in NOT_2XX with why. The example ids (schemas/examples.ts) are
 *   replaced by the records the requests create: an id an answer example names is learned from the
 *   real answer, so a collection created from the create example is the one later examples deploy,
 *   mint and read. Operations run in document order, deletions last, and those refused for a
 *   record made later run again.
 *
 * The checks run over the documents, never route by route: a new route without an example fails
 * here, naming the operation.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { Address } from 'viem';
import type { z } from 'zod';
import { testConfig } from '../src/config.ts';
import { createJobQueue } from '../src/generation/runtime.ts';
import type { StepPayload } from '../src/generation/pipeline.ts';
import { documentedRoutes, type DocumentedRoute } from '../src/http/plugins/openapi.ts';
import { EXAMPLE_CHAIN, EXAMPLE_ID, EXAMPLE_UPLOAD_PATH } from '../src/http/schemas/examples.ts';
import { IndexerEvents } from '../src/indexer/events.ts';
import type { Indexer } from '../src/indexer/indexer.ts';
import { createIndexer } from '../src/indexer/service.ts';
import type { WorkQueue } from '../src/queue/index.ts';
import { LocalStorage } from '../src/storage/local.ts';
import { deployFactory, startChainPlatform, type ChainPlatform } from './chain-ops/helpers.ts';
import { userToken } from './helpers/content.ts';
import { SERVICE_KEY, call, type Reply } from './helpers/platform.ts';

type Schema = { example?: unknown };
type Media = { schema?: Schema; example?: unknown };
type Param = { in: string; name: string; required?: boolean; example?: unknown; schema?: Schema };
type Op = {
  summary?: string;
  description?: string;
  operationId?: string;
  tags?: string[];
  security?: unknown[];
  parameters?: Param[];
  requestBody?: { content?: Record<string, Media> };
  responses?: Record<string, { content?: Record<string, Media> }>;
};
type Doc = { paths: Record<string, Record<string, Op>>; tags?: Array<{ name: string; description?: string }> };
type AppName = 'backend' | 'admin';

const METHODS = ['get', 'post', 'put', 'patch', 'delete'];

/**
 * Operations whose example, sent as documented, cannot get a 2xx, and why: their examples carry a
 * credential only the server could have made for that request. Every other operation must answer
 * 2xx; these must answer exactly this status and error (past every check of the example's form).
 */
const NOT_2XX: Record<string, { status: number; error: RegExp; why: string }> = {
  getTokenReceipt: {
    status: 409,
    error: /artwork is not complete yet/,
    why: "a receipt follows its token's finished artwork; no worker runs beside these apps, so the example token's artwork stays queued",
  },
  replayWebhookDelivery: {
    status: 404,
    error: /^delivery not found$/,
    why: 'a delivery exists once an event was sent to the subscription; the documents make none with an id to learn',
  },
  adminReplayWebhookDelivery: {
    status: 404,
    error: /^delivery not found$/,
    why: 'a delivery exists once an event was sent to the subscription; the documents make none with an id to learn',
  },
  resolveIdentity: {
    status: 401,
    error: /^invalid token: ERR_JWS_SIGNATURE_VERIFICATION_FAILED$/,
    why: "the example access_token is not signed with this platform's JWT_SECRET",
  },
  verifyWalletSignature: {
    status: 400,
    error: /^body\.message: the message has expired/,
    why: 'a Sign-In with Ethereum message carries a nonce the platform issued minutes before; the example one has expired',
  },
  signInWithEthereum: {
    status: 400,
    error: /^body\.message: the message has expired/,
    why: 'as for verifyWalletSignature: the signed message holds a nonce the platform issued minutes before',
  },
  adminSignIn: {
    status: 400,
    error: /^body\.message: the message has expired/,
    why: 'forwarded to signInWithEthereum',
  },
  signOut: {
    status: 400,
    error: /^authorization: only a session token/,
    why: 'it signs out the session token the request carries; these requests carry the service key (a session comes from a sign-in)',
  },
  adminSignOut: {
    status: 400,
    error: /^authorization: the service key is not a session/,
    why: 'as for signOut',
  },
  adminRetryJob: {
    status: 409,
    error: /is pending and still moving: it can be retried when it fails/,
    why: "the backend's retryJob example ran first on the same failed job, which is pending again (a retry of a moving job is refused)",
  },
  exportCollection: {
    status: 409,
    error: /^the sale of this collection is still open/,
    why: 'an export needs a closed sale (sold out, minting off or ended); the example collection is still on sale',
  },
  readCollectionExport: {
    status: 404,
    error: /^export of collection .* not found$/,
    why: 'as for exportCollection: the example collection has no export',
  },
  pinCollectionExport: {
    status: 503,
    error: /IPFS_PIN_TARGET/,
    why: 'the test platform has no pin target (IPFS_PIN_TARGET none, the embedded default); test/permanence/pinning.test.ts pins against fakes',
  },
  freezeCollection: {
    status: 409,
    error: /has no ready export|is not deployed/,
    why: 'freezing needs a ready export of a closed sale (docs/permanence.md "Freezing"); the example collection is never exported here',
  },
  adminExportCollection: {
    status: 409,
    error: /^the sale of this collection is still open/,
    why: 'as for exportCollection',
  },
  adminReadCollectionExport: {
    status: 404,
    error: /^export of collection .* not found$/,
    why: 'as for readCollectionExport',
  },
  adminFreezeCollection: {
    status: 409,
    error: /has no ready export|is not deployed/,
    why: 'as for freezeCollection',
  },
  getIpfsRoot: {
    status: 404,
    error: /^content .* not found$/,
    why: 'the example CID is a bundle of the example collection, which is never exported here',
  },
  getIpfsPath: {
    status: 404,
    error: /^content .* not found$/,
    why: 'as for getIpfsRoot',
  },
  videoWebhook: {
    status: 503,
    error: /VIDEO_WEBHOOK_SECRET/,
    why: 'the test platform has no VIDEO_WEBHOOK_SECRET: the Mux-Signature header, an HMAC under it, is the credential',
  },
};

/** The app refuses a call without credentials with this message (src/http/plugins/auth.ts). */
const NO_CREDENTIALS = /^authentication required/;

/** Every example value that stands for a record or a chain object the test platform makes. */
const STAND_INS = new Set<string>([
  ...Object.values(EXAMPLE_ID),
  EXAMPLE_CHAIN.collection,
  EXAMPLE_CHAIN.factory,
  EXAMPLE_CHAIN.deployTx,
  EXAMPLE_CHAIN.mintTx,
  EXAMPLE_CHAIN.secondMintTx,
  EXAMPLE_CHAIN.transferTx,
  EXAMPLE_CHAIN.blockHash,
  EXAMPLE_UPLOAD_PATH,
]);

interface Operation {
  app: AppName;
  method: string;
  path: string;
  op: Op;
  name: string;
  route: DocumentedRoute | undefined;
}

describe('OpenAPI documents', { timeout: 600_000 }, () => {
  let p: ChainPlatform;
  let indexer: Indexer;
  let queue: WorkQueue<StepPayload> | undefined;
  let filesDir = '';
  const docs = {} as Record<AppName, Doc>;
  /**
   * Example value → the real record's value, learned as the examples run; one story per app (the
   * admin proxy's examples create, deploy and mint their own collection).
   */
  const real = { backend: new Map<string, string>(), admin: new Map<string, string>() };
  let userId = '';

  before(async () => {
    filesDir = fs.mkdtempSync(path.join(os.tmpdir(), 'atelier-docs-files-'));
    // Auth failures are the point of one test: no rate limit in the way.
    const env = { AUTH_FAILURE_LIMIT: '1000000', IDENTITY_RATE_LIMIT: '1000000' };
    queue = createJobQueue(testConfig(env));
    p = await startChainPlatform({
      env,
      backend: { storage: new LocalStorage({ root: filesDir, baseUrl: 'http://files.test' }), jobQueue: queue },
    });
    // As after `npm start`: the platform contracts are deployed, an indexer follows the chain.
    const factoryAddress = await deployFactory(p);
    indexer = createIndexer({
      database: p.database,
      chainId: 31337,
      rpcUrl: p.anvil.rpcUrl,
      factoryAddress: factoryAddress as Address,
      startBlock: 0,
      confirmations: 0,
      events: new IndexerEvents(),
    });
    for (const app of ['backend', 'admin'] as const) {
      const r = await call<Doc>(`${base(app)}/openapi.json`);
      assert.equal(r.status, 200);
      docs[app] = r.body;
    }
    // The signed-in user the examples act for (service key + user_id), and a second one to merge.
    for (const [example, sub] of [
      [EXAMPLE_ID.user, 'docs-user'],
      [EXAMPLE_ID.otherUser, 'docs-other-user'],
    ] as const) {
      const me = await call(`${p.backendUrl}/api/me`, { headers: { authorization: `Bearer ${await userToken(sub)}` } });
      assert.equal(me.status, 200, JSON.stringify(me.body));
      for (const app of ['backend', 'admin'] as const) real[app].set(example, me.body.data.id);
    }
    userId = real.backend.get(EXAMPLE_ID.user)!;
  });
  after(async () => {
    await indexer?.stop();
    await p?.close();
    await queue?.close();
    fs.rmSync(filesDir, { recursive: true, force: true });
  });

  const base = (app: AppName) => (app === 'backend' ? p.backendUrl : p.adminUrl);

  function operations(app: AppName): Operation[] {
    const routes = documentedRoutes(app === 'backend' ? p.backend : p.admin);
    return Object.entries(docs[app].paths).flatMap(([path, methods]) =>
      Object.entries(methods)
        .filter(([m]) => METHODS.includes(m))
        .map(([method, op]) => ({
          app,
          method: method.toUpperCase(),
          path,
          op,
          name: `${app} ${method.toUpperCase()} ${path}`,
          route: routes.find((r) => r.method === method.toUpperCase() && r.path === path),
        })),
    );
  }

  const json = (m: Record<string, Media> | undefined) => m?.['application/json'];
  const successes = (op: Op) => Object.entries(op.responses ?? {}).filter(([code]) => /^2\d\d$/.test(code));

  for (const app of ['backend', 'admin'] as const) {
    test(`${app}: every operation has a summary, a description, an operationId, a 2xx response schema, described tags`, () => {
      const missing: string[] = [];
      const ids = new Map<string, string>();
      const described = new Map((docs[app].tags ?? []).map((t) => [t.name, t.description]));
      for (const { op, name } of operations(app)) {
        if (!op.summary?.trim()) missing.push(`${name}: summary`);
        if (!op.description?.trim()) missing.push(`${name}: description`);
        if (!op.operationId) missing.push(`${name}: operationId`);
        else if (ids.has(op.operationId)) missing.push(`${name}: operationId ${op.operationId} also used by ${ids.get(op.operationId)}`);
        else ids.set(op.operationId, name);
        const success = successes(op);
        const documented = success.some(([, r]) => Object.values(r.content ?? {}).some((c) => c.schema !== undefined));
        // A stream (SSE) or a file documents its content type without a JSON schema.
        const streamed = success.some(([, r]) => Object.keys(r.content ?? {}).some((t) => !t.includes('json')));
        if (!documented && !streamed) missing.push(`${name}: 2xx response schema`);
        // Every tag an operation uses has a description (the section headings of /docs).
        for (const tag of op.tags ?? []) if (!described.get(tag)?.trim()) missing.push(`${name}: tag ${tag} has no description`);
      }
      assert.deepEqual([...new Set(missing)], []);
    });

    test(`${app}: no empty tag section (every listed tag is used by an operation)`, () => {
      const used = new Set(operations(app).flatMap((o) => o.op.tags ?? []));
      const listed = (docs[app].tags ?? []).map((t) => t.name);
      assert.ok(listed.length > 0, 'the document lists its tags');
      assert.deepEqual(
        listed.filter((name) => !used.has(name)),
        [],
        'a tag no operation carries is an empty section in /docs',
      );
    });

    test(`${app}: public operations carry no security requirement, every other one does, and the app agrees`, async () => {
      const wrong: string[] = [];
      for (const o of operations(app)) {
        const locked = o.op.security === undefined ? true : o.op.security.length > 0;
        if (!o.route) wrong.push(`${o.name}: no route behind the operation`);
        else if (o.route.public === locked)
          wrong.push(`${o.name}: route public=${o.route.public} but the document shows ${locked ? 'a lock' : 'no lock'}`);
        const r = await send(o, {});
        const refused = r.status === 401 && NO_CREDENTIALS.test(errorOf(r));
        if (refused !== locked)
          wrong.push(`${o.name}: without credentials ${r.status} ${errorOf(r)} (document: ${locked ? 'locked' : 'public'})`);
      }
      assert.deepEqual(wrong, []);
    });

    test(`${app}: every request body, required parameter and 2xx JSON answer has an example; answer examples parse with the route's zod schema`, () => {
      const wrong: string[] = [];
      for (const o of operations(app)) {
        const body = json(o.op.requestBody?.content);
        if (o.op.requestBody && body?.example === undefined)
          wrong.push(`${o.name}: the request body has no example (withExample on its zod schema, src/http/schemas/examples.ts)`);
        if (body?.example !== undefined) wrong.push(...parses(`${o.name}: the request example`, o.route?.schema.body, body.example));
        for (const prm of o.op.parameters ?? [])
          if (prm.required && prm.example === undefined) wrong.push(`${o.name}: ${prm.in} parameter ${prm.name} has no example`);
        for (const [status, r] of successes(o.op)) {
          const media = json(r.content);
          if (!media) continue; // streams and files
          if (media.example === undefined) {
            wrong.push(`${o.name}: the ${status} answer has no example (withExample on its zod schema or the record it wraps)`);
            continue;
          }
          const schema = (o.route?.schema.response as Record<string, unknown> | undefined)?.[status];
          wrong.push(...parses(`${o.name}: the ${status} example`, schema, media.example));
        }
      }
      assert.deepEqual(wrong, []);
    });
  }

  test('every request example is accepted by the real apps', async (t) => {
    const order = [...operations('backend'), ...operations('admin')];
    const last = new Map<Operation, Reply>();
    let pending = order;
    const later: string[] = [];
    for (let pass = 1; pass <= 3 && pending.length > 0; pass++) {
      if (pass > 1) later.push(...pending.map((o) => `${o.op.operationId} (pass ${pass})`));
      // The indexer follows the chain between passes, as it does beside `npm start`.
      if (pass > 1) await indexer.syncOnce();
      const again: Operation[] = [];
      for (const o of pending) {
        const r = await send(o, { 'x-api-key': SERVICE_KEY, user_id: userId });
        last.set(o, r);
        if (r.status >= 200 && r.status < 300) learn(real[o.app], exampleAnswer(o.op, r.status), r.body);
        else if (!accepted(o, r)) again.push(o);
      }
      // Only what a later record may help: a request refused for a reason of its own stays refused.
      if (again.length === pending.length) break;
      pending = again;
    }
    const wrong: string[] = [];
    for (const o of order) {
      const r = last.get(o)!;
      const expected = NOT_2XX[o.op.operationId ?? ''];
      if (!accepted(o, r))
        wrong.push(`${o.name}: ${r.status} ${errorOf(r)}${expected ? ` (expected ${expected.status}: ${expected.why})` : ''}`);
    }
    t.diagnostic(`${order.length} operations; example values replaced: ${real.backend.size} (backend), ${real.admin.size} (admin)`);
    t.diagnostic(`run again after a later record or an indexer pass: ${later.join(', ') || 'none'}`);
    assert.deepEqual(wrong, []);
  });

  /** A 2xx, or for an operation of NOT_2XX exactly its status and error. */
  function accepted(o: Operation, r: Reply): boolean {
    const expected = NOT_2XX[o.op.operationId ?? ''];
    return expected ? r.status === expected.status && expected.error.test(errorOf(r)) : r.status >= 200 && r.status < 300;
  }

  /** The documented example of the answer with this status (or of the first 2xx). */
  function exampleAnswer(op: Op, status: number): unknown {
    const r = op.responses?.[String(status)] ?? successes(op)[0]?.[1];
    return json(r?.content)?.example;
  }

  /** Records the real value behind each stand-in the example names at the same place (the first one seen). */
  function learn(into: Map<string, string>, example: unknown, actual: unknown) {
    if (typeof example === 'string') {
      if (STAND_INS.has(example) && typeof actual === 'string' && actual !== example && !into.has(example)) into.set(example, actual);
      return;
    }
    if (Array.isArray(example)) {
      if (Array.isArray(actual) && actual.length > 0 && example.length > 0) learn(into, example[0], actual[0]);
      return;
    }
    if (example && typeof example === 'object' && actual && typeof actual === 'object')
      for (const [k, v] of Object.entries(example)) learn(into, v, (actual as Record<string, unknown>)[k]);
  }

  /** Text with every stand-in replaced by its real value (longest first: a path holds a user id). */
  const substitute = (app: AppName, text: string) => {
    let out = text;
    for (const [example, value] of [...real[app]].sort((a, b) => b[0].length - a[0].length)) out = out.split(example).join(value);
    return out;
  };

  /** The operation's documented example request, with real ids, sent with `headers`; a stream is read up to its headers. */
  async function send(o: Operation, headers: Record<string, string>): Promise<Reply> {
    const params = o.op.parameters ?? [];
    const value = (prm: Param | undefined) => substitute(o.app, String(prm?.example ?? prm?.schema?.example ?? ''));
    const url = o.path.replace(/\{([^}]+)\}/g, (_, name: string) => {
      const v = value(params.find((x) => x.in === 'path' && x.name === name));
      return name === '*' ? encodeURI(v) : encodeURIComponent(v);
    });
    const query = new URLSearchParams();
    for (const prm of params) if (prm.in === 'query' && prm.example !== undefined) query.set(prm.name, value(prm));
    const example = json(o.op.requestBody?.content)?.example;
    const res = await fetch(`${base(o.app)}${url}${query.size ? `?${query}` : ''}`, {
      method: o.method,
      headers: { ...headers, ...(example !== undefined ? { 'content-type': 'application/json' } : {}) },
      ...(example !== undefined ? { body: substitute(o.app, JSON.stringify(example)) } : {}),
      signal: AbortSignal.timeout(60_000),
    });
    if (!(res.headers.get('content-type') ?? '').includes('json')) {
      await res.body?.cancel();
      return { status: res.status, body: `(${res.headers.get('content-type')})`, headers: res.headers };
    }
    return { status: res.status, body: await res.json(), headers: res.headers };
  }
});

function errorOf(r: Reply): string {
  const b = r.body as { error?: unknown; message?: unknown } | string;
  if (typeof b === 'string') return b.slice(0, 200);
  return String(b?.error ?? b?.message ?? '').slice(0, 300);
}

/** What is wrong with `example` as a value of the zod `schema`: an issue, or a field it does not know. */
function parses(what: string, schema: unknown, example: unknown): string[] {
  if (!schema || typeof (schema as z.ZodType).safeParse !== 'function') return [`${what}: the route has no zod schema for it`];
  const parsed = (schema as z.ZodType).safeParse(example);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    return [`${what} does not parse: ${issue.path.join('.') || '(root)'}: ${issue.message}`];
  }
  return droppedKeys(example, parsed.data).map((k) => `${what} has ${k}, which the schema does not know`);
}

/** Fields of an example that parsing dropped (a zod object strips what it does not know). */
function droppedKeys(example: unknown, parsed: unknown, at = ''): string[] {
  if (!example || typeof example !== 'object' || !parsed || typeof parsed !== 'object') return [];
  if (Array.isArray(example)) return example.flatMap((e, i) => droppedKeys(e, (parsed as unknown[])[i], `${at}[${i}]`));
  return Object.entries(example).flatMap(([k, v]) =>
    k in (parsed as object) ? droppedKeys(v, (parsed as Record<string, unknown>)[k], `${at}.${k}`) : [`${at}.${k}`.slice(1)],
  );
}
