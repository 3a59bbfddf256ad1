/**
 * The block store the IPFS fakes share (test/fakes/kubo-rpc-fake.ts,
 * test/fakes/pinning-service-fake.ts): a CAR is parsed with `@ipld/car`, every block's sha2-256
 * recomputed here with node:crypto and compared with its CID (a mismatch refuses the whole CAR, as
 * an IPFS node does), then kept by CID; a DAG is complete when every dag-pb link from its root
 * leads to a stored block; files are read by path with `ipfs-unixfs-exporter`. `alter(path)`
 * makes the fake answer that path with one byte changed (a target that serves other bytes).
 */
import { createHash } from 'node:crypto';
import { CarBlockIterator } from '@ipld/car';
import * as dagPb from '@ipld/dag-pb';
import { exporter } from 'ipfs-unixfs-exporter';
import { CID } from 'multiformats/cid';

const SHA2_256 = 0x12;
const RAW = 0x55;

export class FakeBlocks {
  readonly blocks = new Map<string, Uint8Array>();
  private readonly altered = new Set<string>();
  private readonly alteredEverywhere = new Set<string>();

  /** Imports a CAR; answers its roots. Throws when a block does not hash to its CID. */
  async importCar(car: Uint8Array): Promise<CID[]> {
    const iterator = await CarBlockIterator.fromBytes(car);
    const roots = await iterator.getRoots();
    const incoming: [string, Uint8Array][] = [];
    for await (const { cid, bytes } of iterator) {
      if (cid.multihash.code !== SHA2_256) throw new Error(`block ${cid}: unsupported hash 0x${cid.multihash.code.toString(16)}`);
      const digest = createHash('sha256').update(bytes).digest();
      if (!digest.equals(Buffer.from(cid.multihash.digest))) throw new Error(`block ${cid} does not match its hash`);
      incoming.push([cid.toV1().toString(), bytes]);
    }
    for (const [k, v] of incoming) this.blocks.set(k, v);
    return roots.map((r) => CID.asCID(r) ?? CID.decode(r.bytes));
  }

  has(cid: CID | string): boolean {
    return this.blocks.has(CID.parse(cid.toString()).toV1().toString());
  }

  /** The first missing block under `root`, or undefined when the DAG is complete. */
  missingUnder(root: CID): string | undefined {
    const stack = [root];
    const seen = new Set<string>();
    while (stack.length > 0) {
      const cid = stack.pop()!;
      const key = cid.toV1().toString();
      if (seen.has(key)) continue;
      seen.add(key);
      const bytes = this.blocks.get(key);
      if (!bytes) return key;
      if (cid.code === RAW) continue;
      if (cid.code !== dagPb.code) return `${key} (codec 0x${cid.code.toString(16)} not understood)`;
      for (const link of dagPb.decode(bytes).Links) stack.push(link.Hash);
    }
    return undefined;
  }

  block(cid: string): Uint8Array | undefined {
    try {
      return this.blocks.get(CID.parse(cid).toV1().toString());
    } catch {
      return undefined;
    }
  }

  /** From now on, answers for `<root>/<path>` have their first byte flipped. */
  alter(root: string, path: string): void {
    this.altered.add(`${root}/${path}`);
  }

  /** The same for `path` under any root (when the root is not known yet). */
  alterEverywhere(path: string): void {
    this.alteredEverywhere.add(path);
  }

  alterNothing(): void {
    this.altered.clear();
    this.alteredEverywhere.clear();
  }

  /** A file by `<cid>/<path>`: its bytes, or an error like the node's (`NotFound`, a directory, a missing block). */
  async cat(ipfsPath: string): Promise<{ ok: true; bytes: Buffer } | { ok: false; message: string }> {
    const clean = ipfsPath.replace(/^\/?ipfs\//, '').replace(/\/+$/, '');
    const store = {
      get: (cid: CID) => {
        const bytes = this.blocks.get(cid.toV1().toString());
        if (!bytes) throw Object.assign(new Error(`block ${cid} not found`), { name: 'NotFoundError' });
        return (function* () {
          yield bytes;
        })();
      },
    };
    let entry: Awaited<ReturnType<typeof exporter>>;
    try {
      entry = await exporter(clean, store as never);
    } catch (err) {
      return { ok: false, message: (err as Error).message };
    }
    if (entry.type === 'directory') return { ok: false, message: 'this dag node is a directory' };
    if (entry.type === 'object') return { ok: false, message: 'this dag node is not a UnixFS file' };
    const parts: Uint8Array[] = [];
    for await (const part of entry.content()) parts.push(part as Uint8Array);
    const bytes = Buffer.concat(parts);
    const under = clean.slice(clean.indexOf('/') + 1);
    const tampered = this.altered.has(clean) || (clean.includes('/') && this.alteredEverywhere.has(under));
    if (tampered && bytes.length > 0) bytes[0] = bytes[0]! ^ 0xff;
    return { ok: true, bytes };
  }
}
