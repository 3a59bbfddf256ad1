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
import { bundledTokenDocument, bundlePaths, extensionFor, saleClosed, type ViewerData } from '../domain/permanence.ts';
import { VIEWER_CSS, VIEWER_JS, viewerData, viewerIndexHtml } from '../domain/permanence-viewer.ts';
import { authorize, type Caller } from '../domain/policy.ts';
import type { TokenReceipt } from '../domain/receipt.ts';
import { buildBundle, CarBundle, parseCid, type BundleFile } from '../storage/car-bundle.ts';
import { checkPinned, type PinTarget } from '../storage/pinning/index.ts';
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
  /** The newest ready export (freezing points the contract at it). */
  latestReadyExport(collectionId: string): Promise<ExportRecord | undefined>;
  /** Marks the collection frozen with its `collection.frozen` event, once; undefined when it already was (db/exports.ts). */
  recordFrozen(w: {
    collectionId: string;
    rootCid: string;
    baseUri: string;
    contractUri: string;
    txHash: string | null;
  }): Promise<{ frozen_at: Date | null } | undefined>;
}

/** The three calls that freeze a contract's metadata at a bundle, in order. */
export type FreezeAction = 'setBaseURI' | 'setContractURI' | 'freezeMetadata';

/**
 * The contract side of freezing: reads, and the platform wallet's admin actions through the
 * chain-admin send path (services/chain-admin.ts runPlatformAdminAction: simulate, tx sender, receipt).
 */
export interface FreezeChain {
  owner(chainId: number, address: string): Promise<string>;
  platformWallet(chainId: number): string;
  metadataFrozen(chainId: number, address: string): Promise<boolean>;
  tokenURI(chainId: number, address: string, tokenId: number): Promise<string>;
  contractURI(chainId: number, address: string): Promise<string>;
  send(chainId: number, address: string, action: FreezeAction, value: string | true): Promise<{ txHash: string }>;
  /** The calldata of an action, for the owner to send (eth_sendTransaction). */
  encode(action: FreezeAction, value: string | true): string;
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
  /** Where ready exports are pinned (IPFS_PIN_TARGET); absent: they are not. */
  pinTarget?: PinTarget;
  /** The longest one pin (upload, service, read-back) may take (IPFS_PIN_TIMEOUT_MS, default 10 min). */
  pinTimeoutMs?: number;
  /** Freezing's chain side; absent without a chain (503). */
  freezeChain?: FreezeChain;
  /** The collection's documents changed (cached ones are dropped, on every replica). */
  onFrozen?: (collectionId: string) => void;
}

/** What POST /nft/collections/:id/freeze answers. */
export interface FreezeView {
  collection_id: string;
  chain_id: number;
  contract_address: string;
  root_cid: string;
  base_uri: string;
  contract_uri: string;
  frozen_at: string | null;
  /** freezeMetadata()'s transaction when the platform sent it; null when the owner did. */
  tx_hash: string | null;
  /** The platform's transactions of this request, in order; empty when the chain was already frozen. */
  transactions: Array<{ action: FreezeAction; tx_hash: string }>;
}

/** The URIs a contract frozen at bundle `root` holds (docs/permanence.md "Freezing"). */
export const frozenUris = (root: string) => ({ baseUri: `ipfs://${root}/metadata/`, contractUri: `ipfs://${root}/contract.json` });

const FREEZE_SIGNATURES: Record<FreezeAction, string> = {
  setBaseURI: 'setBaseURI(string)',
  setContractURI: 'setContractURI(string)',
  freezeMetadata: 'freezeMetadata()',
};

/** What the export routes answer. */
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
  const now = deps.now ?? (() => Math.floor(Date.now() / 1000));
  const staleAfterMs = deps.staleAfterMs ?? 15 * 60_000;
  const pinTimeoutMs = deps.pinTimeoutMs ?? 10 * 60_000;
  /** Export ids this process is building. */
  let carsInFlight = 0;
  const running = new Map<string, Promise<void>>();
  /** Export ids this process is pinning. */
  const pinning = new Map<string, Promise<void>>();
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
    pin_status: r.pin_status as PinStatus,
    pin_target: r.pin_target,
    pin_error: r.pin_error,
    pinned_at: r.pinned_at ? r.pinned_at.toISOString() : null,
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
      // The contract points at its bundle for good: another export would only be a different root.
      if (c.frozen_at) {
        throw conflict(`collection ${c.id} is frozen at ipfs://${c.frozen_root_cid}/: its bundle can no longer change`, {
          code: 'ALREADY_FROZEN',
          root_cid: c.frozen_root_cid,
        });
      }
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
      // A `pinning` row older than the longest pin lost its process.
      const claimed = await store.claimPin(latest.id, target.label, new Date(Date.now() - pinTimeoutMs - 60_000));
      if (!claimed) return view((await store.latestExport(c.id)) ?? latest);
      startPin(claimed.id, c.title, latest.root_cid, latest.car_key);
      return view(claimed);
    },

    /**
     * POST /nft/collections/:id/freeze (docs/permanence.md "Freezing"): points the contract's
     * baseURI and contractURI at the newest ready export and calls freezeMetadata(), waiting for
     * each receipt; then records the collection frozen (with its `collection.frozen` event). A
     * creator-owned contract gets 409 OWNER_MUST_SIGN with the three calls; once the chain shows
     * the contract frozen at this bundle, a later request records it.
     */
    async freeze(caller: Caller, collectionId: string): Promise<FreezeView> {
      const c = await store.getCollection(collectionId);
      authorize(caller, 'collection.freeze', { ownerId: c.user_id });
      if (c.frozen_at) {
        throw conflict(
          `collection ${c.id} is already frozen at ipfs://${c.frozen_root_cid}/ (since ${c.frozen_at.toISOString()}): its metadata can never change again`,
          { code: 'ALREADY_FROZEN', root_cid: c.frozen_root_cid },
        );
      }
      if (!c.contract_address || c.chain_id === null) {
        throw conflict(`collection ${c.id} is not deployed: there is no contract to freeze`, { code: 'NOT_DEPLOYED' });
      }
      const ch = deps.freezeChain;
      if (!ch) throw new AppError('unavailable', 'freezing needs a chain: this backend has none configured');
      const chainId = c.chain_id;
      const address = c.contract_address;
      const read = async <T>(what: string, fn: () => Promise<T>) => {
        try {
          return await fn();
        } catch (err) {
          throw new AppError('upstream', `reading ${what} of ${address}: ${(err as Error).message.split('\n')[0]}`);
        }
      };
      const record = async (root: string, txHash: string | null, transactions: FreezeView['transactions']): Promise<FreezeView> => {
        const { baseUri, contractUri } = frozenUris(root);
        const row = await store.recordFrozen({ collectionId: c.id, rootCid: root, baseUri, contractUri, txHash });
        if (!row) throw conflict(`collection ${c.id} was frozen meanwhile by another request`, { code: 'ALREADY_FROZEN', root_cid: root });
        deps.onFrozen?.(c.id);
        return {
          collection_id: c.id,
          chain_id: chainId,
          contract_address: address,
          root_cid: root,
          base_uri: baseUri,
          contract_uri: contractUri,
          frozen_at: row.frozen_at ? row.frozen_at.toISOString() : null,
          tx_hash: txHash,
          transactions,
        };
      };

      if (await read('metadataFrozen()', () => ch.metadataFrozen(chainId, address))) {
        // Frozen on chain but not here: the owner sent the calls, or a request stopped after
        // freezeMetadata() was mined. Recorded when the chain points at a ready export of this
        // collection — whichever one it is (a newer export may exist since).
        const [first] = await store.mintedTokenIds(c.id);
        const [tokenUri, onChainContractUri] = await Promise.all([
          first === undefined ? Promise.resolve(null) : read(`tokenURI(${first})`, () => ch.tokenURI(chainId, address, first)),
          read('contractURI()', () => ch.contractURI(chainId, address)),
        ]);
        const named = /^ipfs:\/\/([^/]+)\/contract\.json$/.exec(onChainContractUri)?.[1];
        const bundle = named ? await store.readyExportByCid(named) : undefined;
        const ours = bundle && bundle.collection_id === c.id && bundle.root_cid === named ? named : undefined;
        const expectedToken = ours && first !== undefined ? `${frozenUris(ours).baseUri}${first}` : null;
        if (!ours || tokenUri !== expectedToken) {
          throw conflict(
            `the metadata of ${address} is already frozen on chain, but not at a bundle of this collection: ` +
              `tokenURI(${first}) is ${tokenUri}, contractURI() is ${onChainContractUri}; it can never change again`,
            { code: 'ALREADY_FROZEN', token_uri: tokenUri, contract_uri: onChainContractUri },
          );
        }
        return record(ours, null, []);
      }

      const exp = await store.latestReadyExport(c.id);
      if (!exp?.root_cid) {
        const newest = await store.latestExport(c.id);
        throw conflict(
          `collection ${c.id} has no ready export${newest ? ` (its newest export is ${newest.status}${newest.error ? `: ${newest.error}` : ''})` : ''}: ` +
            `export it first (POST /nft/collections/${c.id}/export) and freeze once GET …/export says ready`,
          { code: 'NOT_EXPORTED' },
        );
      }
      await closedReason(c);
      // A bundle made before later mints would freeze their tokens at paths it does not hold.
      const minted = await store.mintedTokenIds(c.id);
      if (exp.token_count !== minted.length) {
        throw conflict(
          `the newest export holds ${exp.token_count ?? 0} tokens but ${minted.length} are minted: export again ` +
            `(POST /nft/collections/${c.id}/export) and freeze once it is ready`,
          { code: 'EXPORT_STALE' },
        );
      }
      // With a pin target, the contract points only at a bundle an IPFS service holds (docs/permanence.md "Freezing").
      if (deps.pinTarget && exp.pin_status !== 'pinned') {
        throw conflict(
          `the export ${exp.root_cid} is not pinned yet (pin_status ${exp.pin_status}${exp.pin_error ? `: ${exp.pin_error}` : ''}): ` +
            `freeze once GET …/export says pinned (POST …/export/pin retries a failed pin)`,
          { code: 'NOT_PINNED' },
        );
      }
      const root = exp.root_cid;
      const { baseUri, contractUri } = frozenUris(root);

      const owner = await read('owner()', () => ch.owner(chainId, address));
      const wallet = ch.platformWallet(chainId);
      const steps: Array<[FreezeAction, string | true]> = [
        ['setBaseURI', baseUri],
        ['setContractURI', contractUri],
        ['freezeMetadata', true],
      ];
      if (owner.toLowerCase() !== wallet.toLowerCase()) {
        // The creator signs them, in this order, from the owner wallet (eth_sendTransaction).
        throw new AppError(
          'conflict',
          `collection ${address} is owned by ${owner}, not by the platform wallet ${wallet}: the owner sends the three calls in "calls", in order, ` +
            `from their own wallet; then POST this again to record the freeze (docs/permanence.md "Freezing")`,
          {
            code: 'OWNER_MUST_SIGN',
            owner,
            platformWallet: wallet,
            root_cid: root,
            calls: steps.map(([action, value]) => ({
              chainId,
              from: owner,
              to: address,
              data: ch.encode(action, value),
              value: '0x0',
              function: FREEZE_SIGNATURES[action],
              description:
                action === 'setBaseURI'
                  ? `point every token at the bundle: ${baseUri}<tokenId>`
                  : action === 'setContractURI'
                    ? `point the collection document at the bundle: ${contractUri}`
                    : 'freeze both URIs for good (one BatchMetadataUpdate over every token)',
            })),
          },
        );
      }
      const transactions: FreezeView['transactions'] = [];
      for (const [action, value] of steps) {
        try {
          const { txHash } = await ch.send(chainId, address, action, value);
          transactions.push({ action, tx_hash: txHash });
        } catch (err) {
          // A concurrent request froze it between the read above and this send.
          const revert = err instanceof AppError ? (err.extra?.revert as { name?: string } | undefined) : undefined;
          if (revert?.name === 'MetadataIsFrozen') {
            throw conflict(
              `the metadata of ${address} was frozen meanwhile (another request): ${err instanceof Error ? err.message : ''}`,
              {
                code: 'ALREADY_FROZEN',
                root_cid: root,
              },
            );
          }
          throw err;
        }
      }
      return record(root, transactions[2]!.tx_hash, transactions);
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
