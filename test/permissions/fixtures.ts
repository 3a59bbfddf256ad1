/**
 * Records for the permission walk, made once through the routes themselves: the owner's
 * collection (deployed on the walk's anvil, one token minted), deck, output, job and API key, a
 * platform collection (service key, no owner), and helpers for fresh records per actor.
 */
import { privateKeyToAccount } from 'viem/accounts';
import { ANVIL_PRIVATE_KEYS } from '../../src/chain/anvil.ts';
import { userToken } from '../helpers/content.ts';
import { SERVICE_KEY, sampleData } from '../helpers/platform.ts';
import type { ActorName } from './policy-table.ts';
import type { WalkPlatform } from '../helpers/inject-platform.ts';

export interface Fixtures {
  headers: Record<ActorName, Record<string, string>>;
  ownerId: string;
  otherId: string;
  /** The owner's collection, deployed, token 1 minted. */
  collection: string;
  deployedAddress: string;
  /** A platform collection deployed by the operator (no owner). */
  platformCollection: string;
  platformAddress: string;
  /** An owner's collection still in draft. */
  draftCollection: string;
  /** The collection a deploy-by-id request names (a fresh draft per actor, set by the entry's `fresh`). */
  deployTarget: string;
  deck: string;
  mintedDeck: string;
  output: string;
  job: string;
  apiKey: string;
  workflowName: string;
  workflowId: string;
  file: string;
  wallet: string;
  mergePair: { primary_user_id: string; secondary_user_id: string };
  /** A provider token for POST /api/auth/resolve. */
  resolveToken: string;
  /** The user an operator call names when the route needs one (neither owner nor other). */
  operatorUserId: string;
  newCollection(as: 'owner'): Promise<string>;
  newDraft(): Promise<string>;
  newDeck(): Promise<string>;
  newOutput(): Promise<string>;
  newJob(): Promise<string>;
  /** A job already failed (its event stream ends at once). */
  newEndedJob(): Promise<string>;
  newApiKey(): Promise<string>;
  newUserPair(): Promise<Record<string, string>>;
  /** The owner's webhook subscription, and one the admin proxy's delete removes. */
  webhook: string;
  spareWebhook: string;
  newWebhook(): Promise<string>;
}

type Inject = (method: string, url: string, headers: Record<string, string>, body?: unknown) => Promise<{ status: number; body: any }>;

export function injector(p: WalkPlatform, app: 'backend' | 'admin' = 'backend'): Inject {
  return async (method, url, headers, body) => {
    const res = await p[app].inject({
      method: method as 'GET',
      url,
      headers,
      ...(body !== undefined ? { payload: body as object } : {}),
    });
    let parsed: unknown = res.body;
    try {
      parsed = JSON.parse(res.body);
    } catch {
      /* not JSON (files, streams) */
    }
    return { status: res.statusCode, body: parsed };
  };
}

export async function makeFixtures(p: WalkPlatform): Promise<Fixtures> {
  const api = injector(p);
  const must = async (method: string, url: string, headers: Record<string, string>, body?: unknown) => {
    const r = await api(method, url, headers, body);
    if (r.status >= 300) throw new Error(`fixture ${method} ${url}: ${r.status} ${JSON.stringify(r.body)}`);
    return r.body.data ?? r.body;
  };
  const owner = { authorization: `Bearer ${await userToken('walk-owner')}` };
  const other = { authorization: `Bearer ${await userToken('walk-other')}` };
  const service = { 'x-api-key': SERVICE_KEY };
  const ownerId = (await must('GET', '/api/me', owner)).id as string;
  const otherId = (await must('GET', '/api/me', other)).id as string;
  const operatorUserId = (await must('GET', '/api/me', { authorization: `Bearer ${await userToken('walk-operator-acts-for')}` }))
    .id as string;
  const wallet = privateKeyToAccount(ANVIL_PRIVATE_KEYS[3]).address;

  const newCollection = async (h: Record<string, string>, title: string) =>
    (await must('POST', '/nft/collections', h, { title, editions: 100, data: sampleData() })).collection.id as string;
  const deploy = async (id: string, h: Record<string, string>) =>
    (await must('POST', `/nft/collections/${id}/deploy`, h, { max_supply: 100, royalty_bps: 500, royalty_receiver: wallet }))
      .contract_address as string;

  const collection = await newCollection(owner, 'Walk owned');
  const deployedAddress = await deploy(collection, owner);
  const minted = await must('POST', `/nft/collections/${collection}/mint`, owner, { recipient: wallet });
  const platformCollection = await newCollection(service, 'Walk platform');
  const platformAddress = await deploy(platformCollection, service);
  const draftCollection = await newCollection(owner, 'Walk draft');
  const newDeck = async () => (await must('POST', '/decks', owner, { collection_id: collection, name: 'walk deck' })).id as string;
  const deck = await newDeck();
  const newOutput = async () => (await must('POST', '/outputs', owner, { collection_id: collection, deck_id: deck })).id as string;
  const output = await newOutput();
  const newJob = async () => (await must('POST', `/collections/${collection}/generations`, owner, { variables: {} })).jobId as string;
  const job = await newJob();
  const newApiKey = async () => (await must('POST', '/api/keys', owner, { name: 'walk' })).id as string;
  const apiKey = await newApiKey();
  // A receiver name that does not resolve here is accepted (its connections are checked when made).
  const newWebhook = async () =>
    (await must('POST', '/api/webhooks', owner, { url: 'https://hooks.example.com/walk', events: ['token.minted'] })).id as string;
  const webhook = await newWebhook();
  const spareWebhook = await newWebhook();
  const workflows = (await must('GET', '/api/workflows', owner)) as Array<{ id: string; name: string }>;
  const upload = await must('POST', '/upload-base64', owner, {
    base64Data: 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==',
    mimeType: 'image/png',
  });
  let pairs = 0;
  const f: Fixtures = {
    headers: { operator: service, owner, other, anonymous: {} },
    ownerId,
    otherId,
    collection,
    deployedAddress,
    platformCollection,
    platformAddress,
    draftCollection,
    deployTarget: draftCollection,
    deck,
    mintedDeck: minted.deckId as string,
    output,
    job,
    apiKey,
    workflowName: workflows[0]!.name,
    workflowId: workflows[0]!.id,
    file: upload.path as string,
    wallet,
    mergePair: { primary_user_id: ownerId, secondary_user_id: otherId },
    operatorUserId,
    resolveToken: await userToken('walk-resolve'),
    newCollection: () => newCollection(owner, 'Walk fresh'),
    newDraft: () => newCollection(owner, 'Walk fresh draft'),
    newDeck,
    newOutput,
    newJob,
    async newEndedJob() {
      const id = await newJob();
      await must('POST', `/api/jobs/${id}/failed`, service, { error: 'ended for the walk' });
      return id;
    },
    newApiKey,
    webhook,
    spareWebhook,
    newWebhook,
    async newUserPair() {
      // Two throwaway users, so a merge never touches the walk's owner and other.
      pairs += 1;
      const a = (await must('GET', '/api/me', { authorization: `Bearer ${await userToken(`walk-merge-a${pairs}`)}` })).id;
      const b = (await must('GET', '/api/me', { authorization: `Bearer ${await userToken(`walk-merge-b${pairs}`)}` })).id;
      f.mergePair = { primary_user_id: a, secondary_user_id: b };
      return {};
    },
  };
  return f;
}

/** The value of a path parameter for an operation, from its path (overridable per entry). */
export function defaultParam(f: Fixtures, path: string, name: string): string {
  if (name === 'collectionId') return f.collection;
  if (name === 'tokenId') return '1';
  if (name === 'deckId') return path.startsWith('/nft/decks/') ? f.mintedDeck : f.deck;
  if (name === 'jobId') return f.job;
  if (name === 'contract') return f.deployedAddress;
  if (name === 'function') return 'name';
  if (name === 'appId') return f.deployedAddress;
  if (name === 'name') return f.workflowName;
  if (name === '*') return f.file;
  if (name === 'id') {
    if (path.startsWith('/outputs/')) return f.output;
    if (path.startsWith('/decks/')) return f.deck;
    if (path.startsWith('/api/jobs/')) return f.job;
    if (path.startsWith('/api/keys/')) return f.apiKey;
    if (path.startsWith('/api/webhooks/')) return f.webhook;
    if (path.startsWith('/workflows/')) return f.workflowId;
    if (path.startsWith('/api/owner-tokens/')) return f.wallet;
    return f.collection; // /nft/collections/{id}, /collections/{id}, /api/collections/{id}, /generator/v2/{id}
  }
  throw new Error(`no default for path parameter {${name}} of ${path}: give the entry params`);
}
