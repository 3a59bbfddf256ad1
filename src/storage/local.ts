/**
 * Local storage: files under `<dataDir>/files/`, served by the backend at `GET /files/<key>`.
 * `put` writes to a temporary file renamed into place, so a reader never sees half a file;
 * `putNew` writes a fresh key in place (nobody can read a key before it is handed out).
 */
import { randomBytes } from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import { contentTypeForKey } from './mime.ts';
import { assertValidKey, encodeKey, keyFromUrlWithBase, type Storage, type StoredObject } from './types.ts';

export interface LocalStorageOptions {
  /** Directory that holds the files (`<dataDir>/files`). */
  root: string;
  /**
   * Public base URL of the files route, e.g. `http://127.0.0.1:3000/files`; a function when the
   * port is known only after listening (tests on ephemeral ports).
   */
  baseUrl: string | (() => string);
}

export class LocalStorage implements Storage {
  readonly kind = 'local' as const;
  private readonly root: string;
  private readonly base: () => string;

  constructor(opts: LocalStorageOptions) {
    this.root = path.resolve(opts.root);
    const base = opts.baseUrl;
    this.base = typeof base === 'function' ? () => base().replace(/\/+$/, '') : () => base.replace(/\/+$/, '');
  }

  /** The file path of a key; refuses anything that would resolve outside the root. */
  private fileOf(key: string): string {
    assertValidKey(key);
    const file = path.resolve(this.root, ...key.split('/'));
    if (!file.startsWith(this.root + path.sep)) throw new Error(`storage key escapes the root: ${key}`);
    return file;
  }

  async put(key: string, bytes: Buffer, _contentType: string) {
    const file = this.fileOf(key);
    const tmp = `${file}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`;
    try {
      await fs.writeFile(tmp, bytes, { mode: 0o644 });
    } catch (err) {
      // The directory is made only when missing, not before every write.
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
      await fs.mkdir(path.dirname(file), { recursive: true });
      await fs.writeFile(tmp, bytes, { mode: 0o644 });
    }
    await fs.rename(tmp, file);
    return { key, url: this.publicUrl(key) };
  }

  async putNew(key: string, bytes: Buffer, _contentType: string) {
    const file = this.fileOf(key);
    // Exclusive create: one open, one write, one close; an existing file is an error, not overwritten.
    try {
      await fs.writeFile(file, bytes, { mode: 0o644, flag: 'wx' });
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
      await fs.mkdir(path.dirname(file), { recursive: true });
      await fs.writeFile(file, bytes, { mode: 0o644, flag: 'wx' });
    }
    return { key, url: this.publicUrl(key) };
  }

  async get(key: string): Promise<StoredObject | null> {
    const file = this.fileOf(key);
    try {
      const bytes = await fs.readFile(file);
      return { bytes, contentType: contentTypeForKey(key) };
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (code === 'ENOENT' || code === 'EISDIR' || code === 'ENOTDIR') return null;
      throw err;
    }
  }

  async delete(key: string) {
    await fs.rm(this.fileOf(key), { force: true });
  }

  publicUrl(key: string): string {
    assertValidKey(key);
    return `${this.base()}/${encodeKey(key)}`;
  }

  keyFromUrl(url: string): string | null {
    return keyFromUrlWithBase(url, this.base());
  }
}
