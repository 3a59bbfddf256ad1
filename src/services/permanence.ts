/**
 * Permanence (docs/permanence.md): a collection whose sale is closed is exported as one
 * content-addressed bundle — every token's image, ERC-721 document and receipt, the ERC-7572
 * collection document and a static viewer — written as a CARv1 file to storage; the backend's
 * small gateway serves a stored bundle at `/ipfs/<cid>/<path>`, every block checked against its CID.
 *
 * The build runs in the process that took the request (an in-process task recorded in
 * `collection_exports`: building → ready | failed). Authorization: `collection.export` (owner or
 * operator) from domain/policy.ts.
 */
import { AppError, conflict, invalid, notFound } from '../domain/errors.ts';
import { bundledTokenDocument, bundlePaths, extensionFor, saleClosed, type ViewerData } from '../domain/permanence.ts';
import { VIEWER_CSS, VIEWER_JS, viewerData, viewerIndexHtml } from '../domain/permanence-viewer.ts';
import { authorize, type Caller } from '../domain/policy.ts';
import type { TokenReceipt } from '../domain/receipt.ts';
import { buildBundle, CarBundle, parseCid, type BundleFile } from '../storage/car-bundle.ts';
import type { Storage } from '../storage/types.ts';

export interface ExportCollection {
  id: string;
  user_id: string | null;
  title: string;
  description: string;
  editions: number;
  tokens_minted: number;
  mint_status: string;
  contract_address: string | null;
  chain_id: number | null;
}

export interface ExportRecord {
  id: string;
  collection_id: string;
  status: string;
  closed_reason: string;
  root_cid: string | null;
  images_cid: string | null;
  car_key: string | null;
  car_bytes: number | null;
  token_count: number | null;
  error: string | null;
  created_at: Date;
  finished_at: Date | null;
}

export interface PermanenceStore {
  getCollection(id: string): Promise<ExportCollection>;
  mintedTokenIds(collectionId: string): Promise<number[]>;
  /** Undefined when the collection already has an export building (another request, another replica). */
  insertExport(row: { collectionId: string; closedReason: string; requestedBy: string | null }): Promise<ExportRecord | undefined>;
  latestExport(collectionId: string): Promise<ExportRecord | undefined>;
  finishExport(
    id: string,
    done: { rootCid: string; imagesCid: string; carKey: string; carBytes: number; tokenCount: number },
  ): Promise<void>;
  failExport(id: string, error: string): Promise<void>;
  readyExportByCid(cid: string): Promise<ExportRecord | undefined>;
}

export interface PermanenceDeps {
  store: PermanenceStore;
  /** The documents the backend serves (services/metadata-documents.ts): the exact bytes. */
  documents: {
    token(collectionId: string, tokenId: number): Promise<{ body: string }>;
    collection(collectionId: string): Promise<{ body: string }>;
  };
  receipts: { receipt(collectionId: string, tokenId: number): Promise<TokenReceipt> };
  storage?: Storage;
  /** The contract's mintActive() and on-chain sale end (unix seconds, 0 = none); absent without a chain. */
  readChain?: (chainId: number, address: string) => Promise<{ mintActive?: boolean; saleEnd?: bigint }>;
  /** Public base URL of this backend (the gateway URL in an export's answer). */
  publicBaseUrl: string;
  now?: () => number;
  log?: (err: unknown, message: string) => void;
  /** A `building` export no process here is building, older than this, is taken as interrupted (default 15 min). */
  staleAfterMs?: number;
}

/** What the export routes answer. */
export type ExportStatus = 'building' | 'ready' | 'failed';

export interface ExportView {
  id: string;
  collection_id: string;
  status: ExportStatus;
  closed_reason: string;
  root_cid: string | null;
  images_cid: string | null;
  car_url: string | null;
  gateway_url: string | null;
  car_bytes: number | null;
  token_count: number | null;
  error: string | null;
  created_at: string;
  finished_at: string | null;
}

const CONTENT_TYPES: Record<string, string> = {
  html: 'text/html; charset=utf-8',
  js: 'text/javascript; charset=utf-8',
  css: 'text/css; charset=utf-8',
  json: 'application/json',
  png: 'image/png',
  jpg: 'image/jpeg',
  jpeg: 'image/jpeg',
  webp: 'image/webp',
  gif: 'image/gif',
  svg: 'image/svg+xml',
  mp4: 'video/mp4',
  webm: 'video/webm',
  car: 'application/vnd.ipld.car',
};

/** The content type of a bundle path: by extension; `metadata/<id>` is JSON. */
export function contentTypeOfPath(path: string): string {
  const name = path.split('/').pop() ?? '';
  const ext = /\.([A-Za-z0-9]+)$/.exec(name)?.[1]?.toLowerCase();
  if (ext && CONTENT_TYPES[ext]) return CONTENT_TYPES[ext];
  if (/^metadata\/\d+$/.test(path)) return 'application/json';
  return 'application/octet-stream';
}

/** Token reads in flight at once while building. */
const BUILD_CONCURRENCY = 8;
/** Opened CARs kept in memory for the gateway. */
const OPEN_BUNDLES = 4;

export function createPermanenceService(deps: PermanenceDeps) {
  const { store } = deps;
  const now = deps.now ?? (() => Math.floor(Date.now() / 1000));
  const staleAfterMs = deps.staleAfterMs ?? 15 * 60_000;
  /** Export ids this process is building. */
  const running = new Map<string, Promise<void>>();
  const open = new Map<string, Promise<CarBundle>>();

  const needStorage = () => {
    if (!deps.storage) throw new AppError('unavailable', 'exports need storage: this backend has none configured');
    return deps.storage;
  };

  const view = (r: ExportRecord): ExportView => ({
    id: r.id,
    collection_id: r.collection_id,
    status: r.status as ExportStatus,
    closed_reason: r.closed_reason,
    root_cid: r.root_cid,
    images_cid: r.images_cid,
    car_url: r.status === 'ready' && r.car_key && deps.storage ? deps.storage.publicUrl(r.car_key) : null,
    gateway_url: r.status === 'ready' && r.root_cid ? `${deps.publicBaseUrl.replace(/\/$/, '')}/ipfs/${r.root_cid}/` : null,
    car_bytes: r.car_bytes,
    token_count: r.token_count,
    error: r.error,
    created_at: r.created_at.toISOString(),
    finished_at: r.finished_at ? r.finished_at.toISOString() : null,
  });

  async function closedReason(c: ExportCollection) {
    const deployed = Boolean(c.contract_address && c.chain_id !== null);
    let chainFacts: { mintActive?: boolean; saleEnd?: bigint } = {};
    const soldOut = c.editions > 0 && c.tokens_minted >= c.editions;
    if (!soldOut && deployed && deps.readChain) {
      try {
        chainFacts = await deps.readChain(c.chain_id!, c.contract_address!);
      } catch (err) {
        deps.log?.(err, `export: reading the sale state of ${c.contract_address} failed`);
      }
    }
    const decision = saleClosed({
      editions: c.editions,
      tokens_minted: c.tokens_minted,
      mint_status: c.mint_status,
      deployed,
      ...chainFacts,
      now: now(),
    });
    if ('open' in decision) throw conflict(decision.open, { code: 'SALE_OPEN' });
    return decision.closed;
  }

  async function tokenFiles(c: ExportCollection, tokenId: number, storage: Storage) {
    const served = await deps.documents.token(c.id, tokenId);
    const image = (JSON.parse(served.body) as { image?: unknown }).image;
    if (typeof image !== 'string' || image === '') throw new Error(`token ${tokenId} has no image yet`);
    const key = storage.keyFromUrl(image);
    if (!key) throw new Error(`token ${tokenId}'s image ${image} is not in this platform's storage`);
    const object = await storage.get(key);
    if (!object) throw new Error(`token ${tokenId}'s image ${key} is missing from storage`);
    const receipt = await deps.receipts.receipt(c.id, tokenId);
    return { tokenId, served: served.body, image: object.bytes, ext: extensionFor(object.contentType, key), receipt };
  }

  async function build(exportId: string, c: ExportCollection, storage: Storage) {
    const ids = await store.mintedTokenIds(c.id);
    if (ids.length === 0) throw new Error('the collection has no minted tokens');
    const tokens: Awaited<ReturnType<typeof tokenFiles>>[] = [];
    for (let i = 0; i < ids.length; i += BUILD_CONCURRENCY) {
      tokens.push(...(await Promise.all(ids.slice(i, i + BUILD_CONCURRENCY).map((id) => tokenFiles(c, id, storage)))));
    }
    const contract = await deps.documents.collection(c.id);
    const enc = (s: string) => Buffer.from(s, 'utf8');
    const images: BundleFile[] = tokens.map((t) => ({ path: `${t.tokenId}.${t.ext}`, bytes: t.image }));
    const data: ViewerData = {
      collection: { name: c.title, description: c.description, chain_id: c.chain_id, address: c.contract_address },
      tokens: tokens.map((t) => {
        const doc = JSON.parse(t.served) as { name?: unknown; attributes?: unknown };
        return {
          token_id: t.tokenId,
          name: typeof doc.name === 'string' ? doc.name : `#${t.tokenId}`,
          attributes: Array.isArray(doc.attributes) ? doc.attributes : [],
          image: bundlePaths.image(t.tokenId, t.ext),
          metadata: bundlePaths.metadata(t.tokenId),
          receipt: bundlePaths.receipt(t.tokenId),
        };
      }),
    };
    const built = await buildBundle(images, (imagesCid) => [
      ...tokens.flatMap((t) => [
        { path: bundlePaths.metadata(t.tokenId), bytes: enc(bundledTokenDocument(t.served, imagesCid, t.tokenId, t.ext)) },
        // The bytes GET /collections/:id/tokens/:tokenId/receipt sends (Fastify serializes the object with JSON.stringify).
        { path: bundlePaths.receipt(t.tokenId), bytes: enc(JSON.stringify(t.receipt)) },
      ]),
      { path: bundlePaths.contract, bytes: enc(contract.body) },
      { path: bundlePaths.index, bytes: enc(viewerIndexHtml(c.title)) },
      { path: bundlePaths.viewerJs, bytes: enc(VIEWER_JS) },
      { path: bundlePaths.viewerCss, bytes: enc(VIEWER_CSS) },
      { path: bundlePaths.data, bytes: enc(viewerData(data)) },
    ]);
    const carKey = `exports/${c.id}/${exportId}.car`;
    await storage.put(carKey, built.car, CONTENT_TYPES.car!);
    await store.finishExport(exportId, {
      rootCid: built.root,
      imagesCid: built.imagesCid,
      carKey,
      carBytes: built.car.length,
      tokenCount: tokens.length,
    });
  }

  function start(exportId: string, c: ExportCollection, storage: Storage) {
    const task = build(exportId, c, storage)
      .catch(async (err: unknown) => {
        deps.log?.(err, `export ${exportId} of collection ${c.id} failed`);
        await store.failExport(exportId, err instanceof Error ? err.message : String(err)).catch(() => undefined);
      })
      .finally(() => running.delete(exportId));
    running.set(exportId, task);
  }

  async function openBundle(carKey: string): Promise<CarBundle> {
    const hit = open.get(carKey);
    if (hit) return hit;
    const opening = (async () => {
      const object = await needStorage().get(carKey);
      if (!object) throw new AppError('not_found', `the stored bundle ${carKey} is missing`);
      return CarBundle.open(object.bytes);
    })();
    open.set(carKey, opening);
    opening.catch(() => open.delete(carKey));
    while (open.size > OPEN_BUNDLES) open.delete(open.keys().next().value as string);
    return opening;
  }

  return {
    /** POST /nft/collections/:id/export: 202 with the export record; the build runs in the background. */
    async request(caller: Caller, collectionId: string): Promise<ExportView> {
      const c = await store.getCollection(collectionId);
      authorize(caller, 'collection.export', { ownerId: c.user_id });
      const storage = needStorage();
      const latest = await store.latestExport(c.id);
      if (latest?.status === 'building') {
        const stale = !running.has(latest.id) && Date.now() - latest.created_at.getTime() > staleAfterMs;
        if (!stale) return view(latest);
        await store.failExport(latest.id, 'interrupted: the process building it stopped');
      }
      const reason = await closedReason(c);
      const row = await store.insertExport({
        collectionId: c.id,
        closedReason: reason,
        requestedBy: 'userId' in caller ? caller.userId : null,
      });
      if (!row) {
        // Another request got there first: answer its export.
        const building = await store.latestExport(c.id);
        if (!building) throw new AppError('conflict', 'an export of this collection started and ended meanwhile: ask again');
        return view(building);
      }
      start(row.id, c, storage);
      return view(row);
    },

    /** GET /nft/collections/:id/export: the newest export. */
    async latest(caller: Caller, collectionId: string): Promise<ExportView> {
      const c = await store.getCollection(collectionId);
      authorize(caller, 'collection.export', { ownerId: c.user_id });
      const row = await store.latestExport(c.id);
      if (!row) throw notFound(`export of collection ${c.id}`);
      return view(row);
    },

    /** Waits for this process's builds (tests, shutdown). */
    async settle(): Promise<void> {
      await Promise.all([...running.values()]);
    },

    /**
     * GET /ipfs/<cid>/<path>: the file at `path` in a stored bundle whose root (or images
     * directory) is `cid`. 400 for a string that is not a CID, 404 for a CID no ready export has
     * or a path it does not hold.
     */
    async gateway(
      cidText: string,
      path: string,
    ): Promise<{ kind: 'file'; bytes: Buffer; contentType: string; cid: string } | { kind: 'directory'; cid: string; entries: string[] }> {
      const cid = parseCid(cidText);
      if (!cid) throw invalid(`params.cid: ${JSON.stringify(cidText.slice(0, 100))} is not a CID`);
      const row = await store.readyExportByCid(cid);
      if (!row?.car_key) throw notFound(`content ${cid}`);
      const clean = path.split('/').filter((s) => s !== '');
      if (clean.some((s) => s === '.' || s === '..')) throw invalid('path: dot segments are not allowed');
      const bundle = await openBundle(row.car_key);
      const resolved = await bundle.resolve(cid, clean.join('/'));
      if (resolved.kind === 'missing') throw notFound(`/ipfs/${cid}/${clean.join('/')}`);
      if (resolved.kind === 'directory') return resolved;
      return { kind: 'file', bytes: resolved.bytes, contentType: contentTypeOfPath(clean.join('/')), cid: resolved.cid };
    },
  };
}

export type PermanenceService = ReturnType<typeof createPermanenceService>;
