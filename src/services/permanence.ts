/**
 * Permanence (docs/permanence.md): a collection whose sale is closed is exported as one
 * content-addressed bundle — every token's image, ERC-721 document and receipt, the ERC-7572
 * collection document and a static viewer — written as a CARv1 file to storage; the backend's
 * small gateway serves a stored bundle at `/ipfs/<cid>/<path>`, every block checked against its CID.
 *
 * The build runs in the process that took the request (an in-process task recorded in
 * `collection_exports`: building → ready | failed). With a pin target configured, a ready export
 * is then pinned there and read back (pin_status: pinning → pinned | failed; docs/permanence.md
 * "Pinning"). Authorization: `collection.export` (owner or operator) from domain/policy.ts.
 */
import { AppError, conflict, invalid, notFound } from '../domain/errors.ts';
import { bundledTokenDocument, bundlePaths, extensionFor, type ViewerData } from '../domain/permanence.ts';
import { VIEWER_CSS, VIEWER_JS, viewerData, viewerIndexHtml } from '../domain/permanence-viewer.ts';
import { authorize, type Caller } from '../domain/policy.ts';
import type { TokenReceipt } from '../domain/receipt.ts';
import { buildBundle, CarBundle, parseCid, type BundleFile } from '../storage/car-bundle.ts';
import { checkPinned, type PinTarget } from '../storage/pinning/index.ts';
import type { Storage } from '../storage/types.ts';
import { closedReason, type SaleClosedDeps, saleClosedDeps } from './sale-closed.ts';

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
  frozen_at?: Date | null;
  frozen_root_cid?: string | null;
  frozen_tx_hash?: string | null;
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
  pin_status: string;
  pin_target: string | null;
  pin_error: string | null;
  pin_started_at: Date | null;
  pinned_at: Date | null;
}

export interface PermanenceStore {
  getCollection(id: string): Promise<ExportCollection>;
  mintedTokenIds(collectionId: string): Promise<number[]>;
  /** Undefined when the collection already has an export building (another request, another replica). */
  insertExport(row: { collectionId: string; closedReason: string; requestedBy: string | null }): Promise<ExportRecord | undefined>;
  latestExport(collectionId: string): Promise<ExportRecord | undefined>;
  finishExport(
    id: string,
    done: { rootCid: string; imagesCid: string; carKey: string; carBytes: number; tokenCount: number; pinTarget?: string },
  ): Promise<boolean>;
  failExport(id: string, error: string): Promise<void>;
  readyExportByCid(cid: string): Promise<ExportRecord | undefined>;
  /** `pinning` from none/failed (or a stale `pinning`) in one statement; undefined when not claimed. */
  claimPin(id: string, target: string, staleBefore: Date): Promise<ExportRecord | undefined>;
  finishPin(id: string, outcome: { pinned: true } | { pinned: false; error: string }): Promise<void>;
  /** Heartbeats of the exports this process is building or pinning. */
  touchExports(ids: string[]): Promise<void>;
  /** `building` and `pinning` exports whose heartbeat is older than `staleMs`, taken over (db/exports.ts). */
  takeOverStaleExports(staleMs: number, limit: number): Promise<ExportRecord[]>;
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
  readChain?: SaleClosedDeps['readChain'];
  /** Public base URL of this backend (the gateway URL in an export's answer). */
  publicBaseUrl: string;
  now?: () => number;
  log?: (err: unknown, message: string) => void;
  /** How often this process marks its builds and pins as alive (default 5 s). */
  heartbeatMs?: number;
  /** A build or pin whose heartbeat is older than this lost its process and is taken over (default 30 s). */
  staleAfterMs?: number;
  /** Where ready exports are pinned (IPFS_PIN_TARGET); absent: they are not. */
  pinTarget?: PinTarget;
  /** The longest one pin (upload, service, read-back) may take (IPFS_PIN_TIMEOUT_MS, default 10 min). */
  pinTimeoutMs?: number;
}

export type ExportStatus = 'building' | 'ready' | 'failed';
export type PinStatus = 'none' | 'pinning' | 'pinned' | 'failed';

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
  pin_status: PinStatus;
  pin_target: string | null;
  pin_error: string | null;
  pinned_at: string | null;
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

/** CARs one process reads whole into memory for `?format=car` at once (each as large as its bundle). */
const MAX_CARS_IN_FLIGHT = 2;

export function createPermanenceService(deps: PermanenceDeps) {
  const { store } = deps;
  const saleDeps = saleClosedDeps(deps);
  const heartbeatMs = deps.heartbeatMs ?? 5_000;
  const staleAfterMs = deps.staleAfterMs ?? 30_000;
  const pinTimeoutMs = deps.pinTimeoutMs ?? 10 * 60_000;
  /** Export ids this process is building. */
  let carsInFlight = 0;
  const running = new Map<string, Promise<void>>();
  /** Export ids this process is pinning. */
  const pinning = new Map<string, Promise<void>>();
  const open = new Map<string, Promise<CarBundle>>();
  let beat: NodeJS.Timeout | undefined;

  /** While this process builds or pins anything, its rows' heartbeats say so (docs/permanence.md "Crashes"). */
  function keepAlive() {
    if (beat) return;
    beat = setInterval(() => {
      const ids = [...running.keys(), ...pinning.keys()];
      if (ids.length === 0) {
        clearInterval(beat);
        beat = undefined;
        return;
      }
      store.touchExports(ids).catch((err: unknown) => deps.log?.(err, 'export heartbeat failed'));
    }, heartbeatMs);
    beat.unref();
  }

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
    pin_status: r.pin_status as PinStatus,
    pin_target: r.pin_target,
    pin_error: r.pin_error,
    pinned_at: r.pinned_at ? r.pinned_at.toISOString() : null,
  });

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
    // Ready and `pinning` in one write when a target is configured, so no reader sees a ready export "not pinned" meanwhile.
    const finished = await store.finishExport(exportId, {
      rootCid: built.root,
      imagesCid: built.imagesCid,
      carKey,
      carBytes: built.car.length,
      tokenCount: tokens.length,
      ...(deps.pinTarget ? { pinTarget: deps.pinTarget.label } : {}),
    });
    if (finished && deps.pinTarget) startPin(exportId, c.title, built.root, carKey, built.car);
  }

  /**
   * Pins the stored CAR on the target, then reads the root and the sample paths back from the
   * target and compares them with the CAR (storage/pinning/check.ts): `pinned` only then.
   */
  async function pin(target: PinTarget, title: string, root: string, carKey: string, car?: Uint8Array) {
    const signal = AbortSignal.timeout(pinTimeoutMs);
    const bytes = car ?? (await needStorage().get(carKey))?.bytes;
    if (!bytes) throw new Error(`the stored bundle ${carKey} is missing`);
    const bundle = await CarBundle.open(bytes);
    if (!bundle.roots.includes(root)) throw new Error(`the stored bundle's root is ${bundle.roots.join(', ')}, not ${root}`);
    await target.pin(bytes, root, { name: `${title} (${root})`.slice(0, 255), signal });
    await checkPinned(target, bundle, root, signal);
  }

  function startPin(exportId: string, title: string, root: string, carKey: string, car?: Uint8Array) {
    const target = deps.pinTarget!;
    const task = pin(target, title, root, carKey, car)
      .then(
        () => store.finishPin(exportId, { pinned: true }),
        async (err: unknown) => {
          deps.log?.(err, `pinning export ${exportId} on ${target.label} failed`);
          const message =
            err instanceof Error ? (err.name === 'TimeoutError' ? `timed out after ${pinTimeoutMs} ms` : err.message) : String(err);
          await store.finishPin(exportId, { pinned: false, error: message });
        },
      )
      .catch((err: unknown) => deps.log?.(err, `recording the pin of export ${exportId} failed`))
      .finally(() => pinning.delete(exportId));
    pinning.set(exportId, task);
    keepAlive();
  }

  function start(exportId: string, c: ExportCollection, storage: Storage) {
    const task = build(exportId, c, storage)
      .catch(async (err: unknown) => {
        deps.log?.(err, `export ${exportId} of collection ${c.id} failed`);
        await store.failExport(exportId, err instanceof Error ? err.message : String(err)).catch(() => undefined);
      })
      .finally(() => running.delete(exportId));
    running.set(exportId, task);
    keepAlive();
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
      // The contract points at its bundle for good: another export would only be a different root.
      if (c.frozen_at) {
        throw conflict(`collection ${c.id} is frozen at ipfs://${c.frozen_root_cid}/: its bundle can no longer change`, {
          code: 'ALREADY_FROZEN',
          root_cid: c.frozen_root_cid,
        });
      }
      const storage = needStorage();
      const latest = await store.latestExport(c.id);
      // One build at a time: a build whose process died is taken over by resumeStale(), not restarted here.
      if (latest?.status === 'building') return view(latest);
      const reason = await closedReason(saleDeps, c);
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

    /**
     * POST /nft/collections/:id/export/pin: pins the newest export again (after a failed pin, or
     * one made before a target was configured). 202 with the export record, `pinning`.
     */
    async repin(caller: Caller, collectionId: string): Promise<ExportView> {
      const c = await store.getCollection(collectionId);
      authorize(caller, 'collection.export', { ownerId: c.user_id });
      const target = deps.pinTarget;
      if (!target) throw new AppError('unavailable', 'no pin target is configured on this backend (IPFS_PIN_TARGET)');
      // A frozen collection's bundle is the one its contract names, whatever was exported since.
      const latest = c.frozen_root_cid ? await store.readyExportByCid(c.frozen_root_cid) : await store.latestExport(c.id);
      if (!latest) throw notFound(`export of collection ${c.id}`);
      if (latest.status !== 'ready' || !latest.root_cid || !latest.car_key) {
        throw conflict(`the newest export is ${latest.status}, not ready: pin it once it is ready`, { code: 'EXPORT_NOT_READY' });
      }
      if (latest.pin_status === 'pinned') {
        throw conflict(`the export is pinned already (${latest.pin_target}, ${latest.pinned_at?.toISOString()})`, {
          code: 'ALREADY_PINNED',
        });
      }
      if (latest.pin_status === 'pinning' && pinning.has(latest.id)) return view(latest);
      // A `pinning` row whose heartbeat stopped lost its process.
      const claimed = await store.claimPin(latest.id, target.label, new Date(Date.now() - staleAfterMs));
      if (!claimed) return view((await store.latestExport(c.id)) ?? latest);
      startPin(claimed.id, c.title, latest.root_cid, latest.car_key);
      return view(claimed);
    },

    /**
     * Builds and pins whose process died (kill -9) are taken over here and run again: the same
     * bundle, so the same root CID (docs/permanence.md "Crashes"). Every backend runs this every
     * few seconds; each stale row goes to one process. Returns how many it took.
     */
    async resumeStale(): Promise<number> {
      const rows = await store.takeOverStaleExports(staleAfterMs, 4);
      for (const row of rows) {
        if (running.has(row.id) || pinning.has(row.id)) continue;
        const c = await store.getCollection(row.collection_id);
        if (row.status === 'building') {
          deps.log?.(undefined, `export ${row.id} of collection ${c.id}: its process stopped; building it again`);
          start(row.id, c, needStorage());
        } else if (deps.pinTarget && row.root_cid && row.car_key) {
          deps.log?.(undefined, `pin of export ${row.id}: its process stopped; pinning it again`);
          startPin(row.id, c.title, row.root_cid, row.car_key);
        } else {
          await store.finishPin(row.id, {
            pinned: false,
            error: 'interrupted, and this backend has no pin target configured to resume it',
          });
        }
      }
      return rows.length;
    },

    /** Waits for this process's builds and pins (tests, shutdown). */
    async settle(): Promise<void> {
      await Promise.all([...running.values()]);
      await Promise.all([...pinning.values()]);
    },

    /**
     * GET /ipfs/<cid>?format=car | format=raw (docs/permanence.md "Pinning"): the stored CAR of a
     * ready export by its root, or the raw block of a root or images directory — what an IPFS
     * service fetching the bundle from this backend (a pin's origin) asks for.
     */
    async verbatim(cidText: string, format: 'car' | 'raw'): Promise<{ bytes: Uint8Array; cid: string }> {
      const cid = parseCid(cidText);
      if (!cid) throw invalid(`params.cid: ${JSON.stringify(cidText.slice(0, 100))} is not a CID`);
      const row = await store.readyExportByCid(cid);
      if (!row?.car_key) throw notFound(`content ${cid}`);
      if (format === 'car') {
        if (row.root_cid !== cid) throw notFound(`a CAR of ${cid} (only a bundle's root is served as a CAR)`);
        // A whole CAR is read into memory: a few reads at a time per process, so a burst of public
        // requests cannot load many at once (slow readers still hold theirs until sent).
        if (carsInFlight >= MAX_CARS_IN_FLIGHT) {
          throw new AppError('unavailable', `busy: ${MAX_CARS_IN_FLIGHT} CARs are being sent; retry in a few seconds`);
        }
        carsInFlight++;
        try {
          const object = await needStorage().get(row.car_key);
          if (!object) throw notFound(`content ${cid}`);
          return { bytes: object.bytes, cid };
        } finally {
          carsInFlight--;
        }
      }
      const block = (await openBundle(row.car_key)).block(cid);
      if (!block) throw notFound(`block ${cid}`);
      return { bytes: block, cid };
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
