/**
 * PGlite's file system on a data directory, owner-only (docs/security.md "The data directory").
 * Emscripten's FS.open chmods every file it creates to the mode Postgres asked for (0666 and the
 * like) with an explicit chmod, which the process umask does not filter: a fresh data directory
 * came out world-writable until the next start's permission pass. Here every chmod PGlite makes
 * keeps only the owner's bits.
 */
import type { PGlite } from '@electric-sql/pglite';
import { NodeFS } from '@electric-sql/pglite/nodefs';

type SetAttr = (arg: unknown, node: unknown, attr: unknown, chmod: (p: unknown, mode: number) => void, ...rest: unknown[]) => void;
type EmscriptenModule = { NODEFS: { doSetAttr: SetAttr } };

export class PrivateNodeFS extends NodeFS {
  override async init(pg: PGlite, opts: Parameters<NodeFS['init']>[1]) {
    const { emscriptenOpts } = await super.init(pg, opts);
    const ownerOnly = (mod: EmscriptenModule) => {
      const setAttr = mod.NODEFS.doSetAttr;
      mod.NODEFS.doSetAttr = (arg, node, attr, chmod, ...rest) => setAttr(arg, node, attr, (p, mode) => chmod(p, mode & 0o700), ...rest);
    };
    // First, before the data directory is mounted.
    return { emscriptenOpts: { ...emscriptenOpts, preRun: [ownerOnly, ...(emscriptenOpts.preRun ?? [])] } };
  }
}
