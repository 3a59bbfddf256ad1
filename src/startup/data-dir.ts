/**
 * The data directory holds the database (PGlite), the chain state, the service key and uploaded
 * files: owner-only, like ~/.ssh (docs/security.md "The data directory"). And one platform per data directory: two
 * processes on one PGlite directory or one anvil state file corrupt each other (docs/security.md "Safe start-up").
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/** Files and directories created from now on are owner-only (PGlite's and anvil's included). */
export function restrictUmask(): void {
  process.umask(0o077);
}

/**
 * Creates `dir` (0700) and makes everything already under it owner-only: directories 0700,
 * files 0600. Symbolic links are left alone (their targets may be anywhere).
 */
export function secureDataDir(dir: string): void {
  fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
  const walk = (p: string) => {
    const st = fs.lstatSync(p);
    if (st.isSymbolicLink()) return;
    if (st.isDirectory()) {
      if ((st.mode & 0o777) !== 0o700) fs.chmodSync(p, 0o700);
      for (const name of fs.readdirSync(p)) walk(path.join(p, name));
    } else if ((st.mode & 0o077) !== 0) {
      fs.chmodSync(p, st.mode & 0o700);
    }
  };
  walk(dir);
}

export interface LockOwner {
  pid: number;
  command: string;
  hostname: string;
  startedAt: string;
}

export class DataDirLockedError extends Error {
  constructor(
    readonly dir: string,
    readonly owner: LockOwner,
  ) {
    super(
      `DATA_DIR ${dir} is in use by another Atelier (atelier ${owner.command}, pid ${owner.pid}, started ${owner.startedAt}); ` +
        'stop that one first, or give this one its own DATA_DIR',
    );
    this.name = 'DataDirLockedError';
  }
}

export const LOCK_FILE = 'atelier.lock';

/** Whether `pid` is a running process (on Linux, one that looks like Node running Atelier). */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
  // A pid reused by an unrelated program after a crash must not hold the directory forever.
  try {
    const cmdline = fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8');
    return /node|atelier|tsx/.test(cmdline);
  } catch {
    return true; // no /proc: trust the signal check
  }
}

/**
 * Takes the data directory's lock file (created exclusively). A lock left by a process that is
 * gone (kill -9, a crash) is taken over; a live one refuses with a message naming its pid.
 * Returns the release function (also run on process exit).
 */
export function lockDataDir(dir: string, command: string): () => void {
  const file = path.join(dir, LOCK_FILE);
  const me: LockOwner = { pid: process.pid, command, hostname: os.hostname(), startedAt: new Date().toISOString() };
  for (let attempt = 0; attempt < 3; attempt++) {
    try {
      fs.writeFileSync(file, `${JSON.stringify(me)}\n`, { flag: 'wx', mode: 0o600 });
      let released = false;
      const release = () => {
        if (released) return;
        released = true;
        process.removeListener('exit', release);
        try {
          const current = JSON.parse(fs.readFileSync(file, 'utf8')) as LockOwner;
          if (current.pid === process.pid) fs.rmSync(file, { force: true });
        } catch {
          // already gone
        }
      };
      process.on('exit', release);
      return release;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    }
    let owner: LockOwner | undefined;
    try {
      owner = JSON.parse(fs.readFileSync(file, 'utf8')) as LockOwner;
    } catch {
      owner = undefined; // half-written or unreadable: treat as stale
    }
    if (owner && owner.pid !== process.pid && owner.hostname === me.hostname && alive(owner.pid)) {
      throw new DataDirLockedError(dir, owner);
    }
    // Stale (its process is gone): remove and try again.
    fs.rmSync(file, { force: true });
  }
  throw new Error(`could not take the lock ${file}`);
}
