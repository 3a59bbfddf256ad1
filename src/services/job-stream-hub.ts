/**
 * Fan-out of job events to SSE streams (docs/jobs.md "SSE stream"). One reader per job, however
 * many streams watch it: a notification (a job_history insert, NOTIFY at commit, from any process
 * on the database) wakes the job, its new entries are read once, from the oldest cursor among its
 * streams, and each stream gets the entries after its own Last-Event-ID. The jobs woken in one
 * event-loop turn are read together (two statements, however many jobs), so the database load
 * grows with the bursts of changes, not with the number of jobs that change at once, nor with the
 * number of streams.
 *
 * A slow safety read per watched job covers a notification lost with its connection (the listener
 * also wakes every job when it reconnects).
 */
import { TERMINAL_JOB_STATUSES } from '../domain/content-statuses.ts';

export const JOB_HISTORY_CHANNEL = 'atelier_job_history';

interface HistoryEntry {
  id: number;
}

export interface JobStreamSnapshots<J, H extends HistoryEntry> {
  /** The jobs found (a vanished one is absent). */
  jobs: Map<string, J>;
  /** Their entries after each one's cursor, oldest first, at most `limit` in all. */
  history: Array<H & { job_id: string }>;
}

export interface JobStreamSubscriber<J, H extends HistoryEntry> {
  /** Entries up to this id were sent (Last-Event-ID, then the snapshot's last entry). */
  lastId: number;
  /** New entries (after lastId, in order) and the job as read with them. */
  deliver(history: H[], job: J): void;
  /** The job ended (or vanished): the stream closes. */
  end(): void;
}

export interface JobStreamHubPorts<J, H extends HistoryEntry> {
  /** Each job, then the history after its cursor (at most `limit` entries in all, oldest first). */
  snapshots(cursors: Array<{ jobId: string; afterId: number }>, limit: number): Promise<JobStreamSnapshots<J, H & { job_id: string }>>;
  /** LISTEN on a channel (src/db/client.ts `Database.listen`). */
  listen(channel: string, onPayload: (payload: string) => void, onReconnect?: () => void): Promise<() => Promise<void>>;
  statusOf(job: J): string;
  log?: { warn(obj: object, msg: string): void };
}

export function createJobStreamHub<J, H extends HistoryEntry>(
  ports: JobStreamHubPorts<J, H>,
  opts: {
    /** How often a watched job is read again even without a notification (60 s). */
    safetyReadMs?: number;
    /** Entries per read (1,000). */
    page?: number;
  } = {},
) {
  const safetyReadMs = opts.safetyReadMs ?? 60_000;
  const PAGE = opts.page ?? 1000;
  interface Watch {
    subs: Set<JobStreamSubscriber<J, H>>;
    /** In the read under way (a wake meanwhile sets `again`). */
    reading: boolean;
    again: boolean;
    timer?: NodeJS.Timeout;
  }
  const watched = new Map<string, Watch>();
  /** Jobs to read at the end of this turn. */
  const due = new Set<string>();
  let flushing = false;
  let listening: Promise<() => Promise<void>> | undefined;
  /** After close() no stream is added and no LISTEN is opened (it would outlive the process's database). */
  let closed = false;

  const ensureListening = () => {
    listening ??= ports
      .listen(
        JOB_HISTORY_CHANNEL,
        (jobId) => wake(jobId),
        () => {
          for (const id of watched.keys()) wake(id);
        },
      )
      .catch((err: unknown) => {
        // Without notifications the safety reads still deliver, slowly; try again on the next stream.
        ports.log?.warn({ err }, 'job stream notifications unavailable');
        listening = undefined;
        return async () => undefined;
      });
    return listening;
  };

  const schedule = (jobId: string, w: Watch) => {
    clearTimeout(w.timer);
    w.timer = setTimeout(() => wake(jobId), safetyReadMs);
    w.timer.unref?.();
  };

  /** Reads every job woken this turn (one batched read) and hands each stream its entries. */
  async function read(): Promise<void> {
    flushing = false;
    const batch: Array<[string, Watch]> = [];
    for (const jobId of due) {
      const w = watched.get(jobId);
      if (w && w.subs.size > 0 && !w.reading) batch.push([jobId, w]);
    }
    due.clear();
    if (batch.length === 0) return;
    const cursors = batch.map(([jobId, w]) => {
      w.reading = true;
      w.again = false;
      let from = Number.POSITIVE_INFINITY;
      for (const s of w.subs) from = Math.min(from, s.lastId);
      return { jobId, afterId: from };
    });
    try {
      const { jobs, history } = await ports.snapshots(cursors, PAGE);
      // A full page: the entries after it are read next (each job's entries here are its oldest).
      const cut = history.length >= PAGE;
      const byJob = new Map<string, H[]>();
      for (const h of history) {
        const list = byJob.get(h.job_id);
        if (list) list.push(h);
        else byJob.set(h.job_id, [h]);
      }
      for (const [jobId, w] of batch) {
        const job = jobs.get(jobId);
        const entries = byJob.get(jobId) ?? [];
        for (const s of [...w.subs]) {
          if (!job) {
            s.end();
            continue;
          }
          const fresh = entries.filter((h) => h.id > s.lastId);
          if (fresh.length > 0) s.lastId = fresh[fresh.length - 1]!.id;
          const ended = TERMINAL_JOB_STATUSES.includes(ports.statusOf(job)) && !cut;
          if (fresh.length > 0 || ended) s.deliver(fresh, job);
          if (ended) s.end();
        }
        if (cut) w.again = true;
      }
    } catch (err) {
      ports.log?.warn({ err, jobs: cursors.map((c) => c.jobId) }, 'job stream read failed');
    } finally {
      for (const [jobId, w] of batch) {
        w.reading = false;
        if (w.subs.size === 0) continue;
        schedule(jobId, w);
        if (w.again) wake(jobId);
      }
    }
  }

  /** Reads the job's new entries for its streams at the end of this turn (after a read in flight). */
  function wake(jobId: string): void {
    const w = watched.get(jobId);
    if (!w) return;
    if (w.reading) {
      w.again = true;
      return;
    }
    due.add(jobId);
    if (!flushing) {
      flushing = true;
      setImmediate(() => void read());
    }
  }

  return {
    /**
     * Adds a stream (after its own snapshot set `lastId`); it is read for at once, so nothing
     * committed between its snapshot and this call is missed.
     */
    async subscribe(jobId: string, sub: JobStreamSubscriber<J, H>): Promise<() => void> {
      // A stream that arrives while the process shuts down ends at once: a LISTEN opened now would
      // never be stopped (seen: a test's process kept reconnecting to its dropped database).
      if (!closed) await ensureListening();
      if (closed) {
        sub.end();
        return () => undefined;
      }
      let w = watched.get(jobId);
      if (!w) {
        w = { subs: new Set(), reading: false, again: false };
        watched.set(jobId, w);
      }
      w.subs.add(sub);
      wake(jobId);
      const watch = w;
      return () => {
        watch.subs.delete(sub);
        if (watch.subs.size === 0 && watched.get(jobId) === watch) {
          clearTimeout(watch.timer);
          watched.delete(jobId);
        }
      };
    },
    wake,
    /** Jobs with at least one stream (for metrics and tests). */
    watchedJobs: () => watched.size,
    async close(): Promise<void> {
      closed = true;
      for (const w of watched.values()) clearTimeout(w.timer);
      watched.clear();
      due.clear();
      const stop = await listening;
      listening = undefined;
      await stop?.();
    },
  };
}

export type JobStreamHub<J, H extends HistoryEntry> = ReturnType<typeof createJobStreamHub<J, H>>;
