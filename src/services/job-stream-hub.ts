/**
 * Fan-out of job events to SSE streams (docs/jobs.md "SSE stream"). One reader per job, however
 * many streams watch it: a notification (a job_history insert, NOTIFY at commit, from any process
 * on the database) wakes the reader, which reads the new entries once, from the oldest cursor among
 * its streams, and hands each stream the entries after its own Last-Event-ID. The database load
 * grows with the number of jobs that change, not with the number of streams.
 *
 * A slow safety read per watched job covers a notification lost with its connection (the listener
 * also wakes every job when it reconnects).
 */
import { TERMINAL_JOB_STATUSES } from '../domain/content-statuses.ts';

export const JOB_HISTORY_CHANNEL = 'atelier_job_history';

interface HistoryEntry {
  id: number;
}

export interface JobStreamSnapshot<J, H extends HistoryEntry> {
  job: J | null;
  history: H[];
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
  /** The job, and its history after `afterId` (at most `limit` entries, oldest first). */
  snapshot(jobId: string, afterId: number, limit: number): Promise<JobStreamSnapshot<J, H>>;
  /** LISTEN on a channel (src/db/client.ts `Database.listen`). */
  listen(channel: string, onPayload: (payload: string) => void, onReconnect?: () => void): Promise<() => Promise<void>>;
  statusOf(job: J): string;
  log?: { warn(obj: object, msg: string): void };
}

const PAGE = 1000;

export function createJobStreamHub<J, H extends HistoryEntry>(ports: JobStreamHubPorts<J, H>, opts: { safetyReadMs?: number } = {}) {
  const safetyReadMs = opts.safetyReadMs ?? 60_000;
  interface Watch {
    subs: Set<JobStreamSubscriber<J, H>>;
    reading: boolean;
    again: boolean;
    timer?: NodeJS.Timeout;
  }
  const watched = new Map<string, Watch>();
  let listening: Promise<() => Promise<void>> | undefined;

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

  async function read(jobId: string, w: Watch): Promise<void> {
    w.reading = true;
    try {
      do {
        w.again = false;
        if (w.subs.size === 0) break;
        let from = Number.POSITIVE_INFINITY;
        for (const s of w.subs) from = Math.min(from, s.lastId);
        const { job, history } = await ports.snapshot(jobId, from, PAGE);
        for (const s of [...w.subs]) {
          if (!job) {
            s.end();
            continue;
          }
          const fresh = history.filter((h) => h.id > s.lastId);
          if (fresh.length > 0) s.lastId = fresh[fresh.length - 1]!.id;
          const ended = TERMINAL_JOB_STATUSES.includes(ports.statusOf(job)) && history.length < PAGE;
          if (fresh.length > 0 || ended) s.deliver(fresh, job);
          if (ended) s.end();
        }
        // A full page: more entries are waiting.
        if (history.length >= PAGE) w.again = true;
      } while (w.again);
    } catch (err) {
      ports.log?.warn({ err, jobId }, 'job stream read failed');
    } finally {
      w.reading = false;
      if (w.subs.size > 0) schedule(jobId, w);
    }
  }

  /** Reads the job's new entries for its streams now (coalesced with a read in flight). */
  function wake(jobId: string): void {
    const w = watched.get(jobId);
    if (!w) return;
    if (w.reading) {
      w.again = true;
      return;
    }
    void read(jobId, w);
  }

  return {
    /**
     * Adds a stream (after its own snapshot set `lastId`); it is read for at once, so nothing
     * committed between its snapshot and this call is missed.
     */
    async subscribe(jobId: string, sub: JobStreamSubscriber<J, H>): Promise<() => void> {
      await ensureListening();
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
      for (const w of watched.values()) clearTimeout(w.timer);
      watched.clear();
      const stop = await listening;
      listening = undefined;
      await stop?.();
    },
  };
}

export type JobStreamHub<J, H extends HistoryEntry> = ReturnType<typeof createJobStreamHub<J, H>>;
