/**
 * The read-back check after a pin (docs/permanence.md "Pinning"): the root's block and a sample of
 * paths — index.html, contract.json, the first token's document and image, the last token's
 * document — are read FROM THE TARGET and compared byte for byte with our CAR (read by the
 * bundle reader, every block checked against its CID). Any difference names the path.
 */
import type { CarBundle } from '../car-bundle.ts';
import { PinTargetError, type PinTarget } from './types.ts';

/** The paths the check reads: fixed files, then the first and last token by id. */
export async function samplePaths(bundle: CarBundle, root: string): Promise<string[]> {
  const paths = ['index.html', 'contract.json'];
  const listing = async (dir: string) => {
    const r = await bundle.resolve(root, dir);
    return r.kind === 'directory' ? r.entries : [];
  };
  const ids = (await listing('metadata'))
    .filter((n) => /^\d+$/.test(n))
    .map(Number)
    .sort((a, b) => a - b);
  if (ids.length > 0) {
    const first = ids[0]!;
    const last = ids[ids.length - 1]!;
    paths.push(`metadata/${first}`);
    const image = (await listing('images')).find((n) => n.startsWith(`${first}.`));
    if (image) paths.push(`images/${image}`);
    if (last !== first) paths.push(`metadata/${last}`);
  }
  return paths;
}

const same = (a: Uint8Array, b: Uint8Array) => Buffer.compare(Buffer.from(a), Buffer.from(b)) === 0;

/** Throws a PinTargetError naming the first path the target does not answer with our bytes; else the paths checked. */
export async function checkPinned(target: PinTarget, bundle: CarBundle, root: string, signal?: AbortSignal): Promise<string[]> {
  const rootBlock = bundle.block(root);
  if (!rootBlock) throw new PinTargetError(`our CAR does not hold its root ${root}`);
  const theirs = await target.fetchBlock(root, signal ? { signal } : {}).catch((err: Error) => {
    throw new PinTargetError(`the root ${root} does not resolve from ${target.label}: ${err.message}`);
  });
  if (!same(theirs, rootBlock)) throw new PinTargetError(`${target.label} answered different bytes for the root block ${root}`);
  const paths = await samplePaths(bundle, root);
  for (const path of paths) {
    const ours = await bundle.resolve(root, path);
    if (ours.kind !== 'file') throw new PinTargetError(`our CAR has no file ${path}`);
    const got = await target.fetchPath(root, path, signal ? { signal } : {}).catch((err: Error) => {
      throw new PinTargetError(`${path} does not resolve from ${target.label}: ${err.message}`);
    });
    if (!same(got, ours.bytes)) {
      throw new PinTargetError(`${target.label} answered different bytes for ${path} (${got.length} bytes, ours ${ours.bytes.length})`);
    }
  }
  return ['', ...paths];
}
