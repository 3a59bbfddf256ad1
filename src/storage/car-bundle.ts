/**
 * Content-addressed bundles (docs/permanence.md): UnixFS directories built by
 * `ipfs-unixfs-importer` and written as one CARv1 file by `@ipld/car`, and the reverse — a stored
 * CAR read back, every block checked against its CID, paths resolved by `ipfs-unixfs-exporter`.
 * No CID is computed here by hand: the libraries do it (CIDv1, raw leaves, 256 KiB chunks,
 * balanced DAG, HAMT sharding above the importer's 256 KiB directory threshold).
 */
import { CarBlockIterator, CarWriter } from '@ipld/car';
import { exporter, type UnixFSEntry } from 'ipfs-unixfs-exporter';
import { importer, type ImporterOptions } from 'ipfs-unixfs-importer';
import { CID } from 'multiformats/cid';
import { identity } from 'multiformats/hashes/identity';
import { sha256 } from 'multiformats/hashes/sha2';

export interface BundleFile {
  /** Slash-separated path inside the directory, no leading slash. */
  path: string;
  bytes: Uint8Array;
}

interface Block {
  cid: CID;
  bytes: Uint8Array;
}

const IMPORT_OPTIONS: Partial<ImporterOptions> = { cidVersion: 1, rawLeaves: true, wrapWithDirectory: true };

async function collect(bytes: Uint8Array | Iterable<Uint8Array> | AsyncIterable<Uint8Array>): Promise<Uint8Array> {
  if (bytes instanceof Uint8Array) return bytes;
  const parts: Uint8Array[] = [];
  for await (const part of bytes) parts.push(part);
  return Buffer.concat(parts);
}

/** The blocks of one build, by CID string (a block written twice is kept once). */
class BlockMap {
  readonly blocks = new Map<string, Block>();
  async put(cid: CID, bytes: Uint8Array | Iterable<Uint8Array> | AsyncIterable<Uint8Array>): Promise<CID> {
    this.blocks.set(cid.toString(), { cid, bytes: await collect(bytes) });
    return cid;
  }
  *get(cid: CID): Generator<Uint8Array> {
    const block = this.blocks.get(cid.toString());
    if (!block) throw new BlockNotFound(cid.toString());
    yield block.bytes;
  }
  has(cid: CID): boolean {
    return this.blocks.has(cid.toString());
  }
}

export class BlockNotFound extends Error {
  constructor(cid: string) {
    super(`block ${cid} is not in this bundle`);
    this.name = 'BlockNotFound';
  }
}

/** One UnixFS directory of `files`; its root CID. */
export async function importDirectory(files: BundleFile[], into = new BlockMap()): Promise<{ root: CID; store: BlockMap }> {
  const sorted = [...files].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  let root: CID | undefined;
  // The wrapping directory is the last entry the importer yields.
  for await (const entry of importer(
    sorted.map((f) => ({ path: f.path, content: f.bytes })),
    into,
    IMPORT_OPTIONS,
  ))
    root = entry.cid;
  if (!root) throw new Error('empty bundle');
  return { root, store: into };
}

export interface BuiltBundle {
  root: string;
  /** The `images/` directory's own CID (what the metadata's `ipfs://` image URLs name). */
  imagesCid: string;
  car: Buffer;
  blockCount: number;
}

/**
 * Builds the images directory first (its CID is what the metadata names), then the whole bundle
 * — `images/…` again plus the files `rest(imagesCid)` gives — in one directory, and checks that
 * the root's `images` link is that same CID. The CAR has the root as its only root; blocks are
 * written in CID order, so the same bundle gives the same bytes.
 */
export async function buildBundle(
  images: BundleFile[],
  rest: (imagesCid: string) => BundleFile[] | Promise<BundleFile[]>,
): Promise<BuiltBundle> {
  const imagesDir = await importDirectory(images);
  const imagesCid = imagesDir.root.toString();
  const files = [...images.map((f) => ({ path: `images/${f.path}`, bytes: f.bytes })), ...(await rest(imagesCid))];
  const { root, store } = await importDirectory(files);
  const linked = await exporter(`${root}/images`, store);
  if (linked.cid.toString() !== imagesCid) {
    throw new Error(
      `the bundle's images directory is ${linked.cid}, not ${imagesCid}: the importer did not build the same directory twice`,
    );
  }
  const { writer, out } = CarWriter.create([root]);
  const chunks: Uint8Array[] = [];
  const reading = (async () => {
    for await (const chunk of out) chunks.push(chunk);
  })();
  const ordered = [...store.blocks.values()].sort((a, b) => (a.cid.toString() < b.cid.toString() ? -1 : 1));
  for (const block of ordered) await writer.put(block);
  await writer.close();
  await reading;
  return { root: root.toString(), imagesCid, car: Buffer.concat(chunks), blockCount: ordered.length };
}

export class BadBlock extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'BadBlock';
  }
}

/** Hashes `bytes` with the CID's own hash function and compares; only sha2-256 and identity are known. */
export async function verifyBlock(cid: CID, bytes: Uint8Array): Promise<void> {
  const code = cid.multihash.code;
  let digest: Uint8Array;
  if (code === sha256.code) digest = (await sha256.digest(bytes)).digest;
  else if (code === identity.code) digest = identity.digest(bytes).digest;
  else throw new BadBlock(`block ${cid}: hash function 0x${code.toString(16)} is not supported`);
  if (Buffer.compare(Buffer.from(digest), Buffer.from(cid.multihash.digest)) !== 0) {
    throw new BadBlock(`block ${cid}: its bytes do not hash to its CID`);
  }
}

export type ResolvedPath =
  | { kind: 'file'; cid: string; bytes: Buffer }
  | { kind: 'directory'; cid: string; entries: string[] }
  | { kind: 'missing' };

/** A stored CAR, read once: every block verified against its CID, then paths resolved by the exporter. */
export class CarBundle {
  private constructor(
    readonly roots: string[],
    private readonly store: BlockMap,
  ) {}

  /** Reads and verifies every block (a block that does not match its CID fails the whole CAR). */
  static async open(car: Uint8Array): Promise<CarBundle> {
    const iterator = await CarBlockIterator.fromBytes(car);
    const roots = (await iterator.getRoots()).map((r) => r.toString());
    const store = new BlockMap();
    for await (const { cid, bytes } of iterator) {
      const parsed = CID.decode(cid.bytes);
      await verifyBlock(parsed, bytes);
      await store.put(parsed, bytes);
    }
    return new CarBundle(roots, store);
  }

  has(cid: string): boolean {
    return this.store.blocks.has(cid);
  }

  /** A block's bytes (checked against its CID when opened), if the bundle holds it. */
  block(cid: string): Uint8Array | undefined {
    return this.store.blocks.get(cid)?.bytes;
  }

  /** `<cid>/<path>` (path may be empty): a file's bytes, a directory's entry names, or missing. */
  async resolve(cid: string, path: string): Promise<ResolvedPath> {
    let entry: UnixFSEntry;
    try {
      entry = await exporter(path ? `${cid}/${path}` : cid, this.store);
    } catch (err) {
      const name = (err as { name?: string }).name;
      // A path that names nothing (NotFoundError), or a link to a block the bundle does not hold.
      if (err instanceof BlockNotFound || name === 'NotFoundError' || name === 'BadPathError') {
        return { kind: 'missing' };
      }
      throw err;
    }
    if (entry.type === 'directory') {
      const entries: string[] = [];
      for await (const child of entry.entries()) entries.push(child.name);
      return { kind: 'directory', cid: entry.cid.toString(), entries };
    }
    if (entry.type === 'file' || entry.type === 'raw' || entry.type === 'identity') {
      const parts: Uint8Array[] = [];
      for await (const part of entry.content()) parts.push(part);
      return { kind: 'file', cid: entry.cid.toString(), bytes: Buffer.concat(parts) };
    }
    return { kind: 'missing' };
  }
}

/** A CID string as the gateway route takes it, or null when it is not one. */
export function parseCid(text: string): string | null {
  try {
    return CID.parse(text).toString();
  } catch {
    return null;
  }
}
