/**
 * WorkQueue on BullMQ (Redis). Jobs survive process restarts; a worker process that dies
 * mid-job loses its lock, and another worker's stalled check moves the job back to waiting.
 * See docs/generation.md for the priority mapping and stall settings.
 */
import { Queue, QueueEvents, WaitingError, Worker, type Job } from 'bullmq';
import { Redis } from 'ioredis';
import { endpointOf, type OutageLog, stderrOutageLog, trackOutage } from '../logging/dependency-outage.ts';
import {
  MAX_PRIORITY,
  assertConcurrency,
  clampProgress,
  normalizeAddOptions,
  type AddOptions,
  type JobHandler,
  type JobState,
  type ProcessOptions,
  type QueueEvent,
  type WorkQueue,
  type WorkerHandle,
} from './types.ts';

export interface BullMqQueueOptions {
  redisUrl: string;
  /** Redis key prefix; tests use a unique one per run. Default `atelier`. */
  prefix?: string;
  /**
   * How long a worker's job lock lasts without renewal (renewed every half). Default 2.5 s: a worker
   * killed mid-step has its step taken by another worker within this plus up to two
   * stalledIntervalMs (BullMQ marks a lockless active job stalled on one check, moves it on the
   * next): under 5 s (docs/operations.md "A worker killed mid-step").
   */
  lockDurationMs?: number;
  /** How often each worker looks for stalled jobs (lock expired while active). Default 1 s. */
  stalledIntervalMs?: number;
  /** Stalls tolerated before a job is failed instead of re-queued. Default 1. */
  maxStalledCount?: number;
  /** Finished jobs kept for getState and dedup. Default 7 days / 50,000 jobs. */
  keepFinished?: { ageSeconds: number; count: number };
  /** Seconds a worker blocks waiting for a job when idle; also bounds how long close() waits. Default 5. */
  drainDelaySeconds?: number;
  /** Where a Redis outage's start and end are logged, once each (default: a JSON line on stderr). */
  outageLog?: OutageLog;
}

/** 1..100 (higher first) → BullMQ 1..100 (lower first). Every job gets a priority, so ordering is uniform. */
export function toBullPriority(priority: number): number {
  return MAX_PRIORITY + 1 - priority;
}

const JOB_NAME = 'step';

export class BullMqQueue<T> implements WorkQueue<T> {
  readonly name: string;
  private readonly opts: Required<Omit<BullMqQueueOptions, 'redisUrl' | 'outageLog'>> & { redisUrl: string };
  /** Redis's state as this queue sees it: an outage is logged when it starts and when it ends. */
  private readonly outage: ReturnType<typeof trackOutage>;
  private readonly queue: Queue;
  private readonly workers = new Set<Worker>();
  private events: QueueEvents | undefined;
  private eventsReady: Promise<QueueEvents> | undefined;
  private readonly listeners = new Set<(e: QueueEvent) => void>();

  constructor(name: string, opts: BullMqQueueOptions) {
    this.name = name;
    this.opts = {
      prefix: 'atelier',
      // BullMQ's 30 s + 30 s left a dead worker's step idle for up to a minute, 15 s + 5 s for
      // 19.5 s (topology test): a dead worker's step is taken over within 5 s.
      lockDurationMs: 2_500,
      stalledIntervalMs: 1_000,
      maxStalledCount: 1,
      keepFinished: { ageSeconds: 7 * 24 * 3600, count: 50_000 },
      drainDelaySeconds: 5,
      ...opts,
    };
    this.queue = new Queue(name, { connection: this.connection(), prefix: this.opts.prefix });
    this.outage = trackOutage('Redis', endpointOf(opts.redisUrl), opts.outageLog ?? stderrOutageLog);
    // Connection errors are retried by ioredis (without a listener Node would crash on 'error');
    // the first one of an outage is logged with its cause, and the reconnection ends it.
    this.queue.on('error', (err) => this.onRedisError(err));
  }

  private probe: NodeJS.Timeout | undefined;
  private closing = false;

  /** An outage starts (logged once); a probe every second ends it at the first answer from Redis. */
  private onRedisError(err: unknown) {
    if (this.closing) return;
    this.outage.failed(err);
    if (this.probe) return;
    let inFlight = false;
    this.probe = setInterval(() => {
      if (inFlight) return;
      inFlight = true;
      Promise.race([this.ping(), new Promise((_, reject) => setTimeout(() => reject(new Error('timeout')), 900).unref())])
        .then(() => {
          clearInterval(this.probe);
          this.probe = undefined;
          this.outage.recovered();
        })
        .catch(() => undefined)
        .finally(() => (inFlight = false));
    }, 1000);
    this.probe.unref();
  }

  private connection() {
    // BullMQ requires maxRetriesPerRequest null for its blocking connections.
    return { url: this.opts.redisUrl, maxRetriesPerRequest: null };
  }

  async add(jobId: string, payload: T, opts?: AddOptions): Promise<void> {
    const o = normalizeAddOptions(jobId, opts);
    const keep = { age: this.opts.keepFinished.ageSeconds, count: this.opts.keepFinished.count };
    // BullMQ ignores an add whose jobId exists (it emits "duplicated"): that is our dedup.
    await this.queue.add(JOB_NAME, payload, {
      jobId,
      priority: toBullPriority(o.priority),
      attempts: o.attempts,
      backoff: { type: 'exponential', delay: o.backoffMs },
      removeOnComplete: keep,
      removeOnFail: keep,
    });
  }

  async getState(jobId: string): Promise<JobState> {
    const s = await this.queue.getJobState(jobId);
    switch (s) {
      case 'completed':
      case 'failed':
      case 'active':
      case 'unknown':
        return s;
      default:
        return 'waiting'; // waiting, prioritized, delayed (backoff), waiting-children
    }
  }

  process(handler: JobHandler<T>, opts: ProcessOptions): WorkerHandle {
    assertConcurrency(opts);
    // Jobs running in this worker, for handBack() (graceful shutdown past its grace period).
    const active = new Set<{ job: Job; token: string | undefined; abort: AbortController; committed: boolean; handedBack: boolean }>();
    const worker = new Worker(
      this.name,
      async (job: Job, token?: string) => {
        const entry = { job, token, abort: new AbortController(), committed: false, handedBack: false };
        active.add(entry);
        try {
          const result = await handler({
            id: job.id!,
            payload: job.data as T,
            attempt: job.attemptsMade + 1,
            reportProgress: (pct) => job.updateProgress(clampProgress(pct)),
            signal: entry.abort.signal,
            commit: () => {
              if (entry.handedBack) return false;
              entry.committed = true;
              return true;
            },
          });
          if (entry.handedBack) throw new WaitingError();
          return result;
        } catch (err) {
          // Handed back: the job is waiting again; BullMQ must not count a failure.
          if (entry.handedBack) throw new WaitingError();
          throw err;
        } finally {
          active.delete(entry);
        }
      },
      {
        connection: this.connection(),
        prefix: this.opts.prefix,
        concurrency: opts.concurrency,
        lockDuration: this.opts.lockDurationMs,
        stalledInterval: this.opts.stalledIntervalMs,
        maxStalledCount: this.opts.maxStalledCount,
        drainDelay: this.opts.drainDelaySeconds,
      },
    );
    worker.on('error', (err) => this.onRedisError(err)); // see the queue's error listener
    // A lock this worker could not renew (event loop blocked past lockDuration, Redis away): the
    // step may already run elsewhere, so this run stops and commits nothing (no two results).
    worker.on('lockRenewalFailed', (jobIds: string[]) => {
      for (const entry of active) {
        if (!jobIds.includes(entry.job.id!) || entry.committed || entry.handedBack) continue;
        entry.handedBack = true;
        entry.abort.abort(new Error('job lock lost: another worker may run this step'));
      }
    });
    this.workers.add(worker);
    return {
      close: async () => {
        this.workers.delete(worker);
        await worker.close();
      },
      handBack: async () => {
        let n = 0;
        for (const entry of [...active]) {
          if (entry.committed || entry.handedBack) continue;
          entry.handedBack = true;
          // Waiting again first (lock released), then the handler stops: no window where the job is nobody's.
          await entry.job.moveToWait(entry.token).catch(() => undefined);
          entry.abort.abort(new Error('handed back to the queue: the worker is shutting down'));
          n++;
        }
        return n;
      },
    };
  }

  async subscribe(listener: (e: QueueEvent) => void): Promise<() => void> {
    if (!this.eventsReady) {
      this.eventsReady = this.startEvents();
    }
    await this.eventsReady;
    this.listeners.add(listener);
    return () => void this.listeners.delete(listener);
  }

  private async startEvents(): Promise<QueueEvents> {
    // QueueEvents reads from "$" by default, resolved whenever its first XREAD runs, so events
    // between subscribe() and that read would be lost. Start from the stream's current last id.
    const redis = new Redis(this.opts.redisUrl, { maxRetriesPerRequest: 3 });
    let lastEventId = '0-0';
    try {
      const last = await redis.xrevrange(this.queue.toKey('events'), '+', '-', 'COUNT', 1);
      if (last[0]) lastEventId = last[0][0];
    } finally {
      redis.disconnect();
    }
    const ev = new QueueEvents(this.name, { connection: this.connection(), prefix: this.opts.prefix, lastEventId });
    ev.on('error', () => {});
    const emit = (e: QueueEvent) => {
      for (const l of this.listeners) {
        try {
          l(e);
        } catch {
          // a listener's bug must not stop the event stream
        }
      }
    };
    ev.on('active', ({ jobId }) => emit({ type: 'active', jobId }));
    ev.on('progress', ({ jobId, data }) => emit({ type: 'progress', jobId, progress: typeof data === 'number' ? data : 0 }));
    ev.on('completed', ({ jobId, returnvalue }) => emit({ type: 'completed', jobId, result: returnvalue }));
    // QueueEvents "failed" fires only when the job lands in the failed set, i.e. after its last attempt.
    ev.on('failed', ({ jobId, failedReason }) => emit({ type: 'failed', jobId, error: failedReason }));
    this.events = ev;
    await ev.waitUntilReady();
    return ev;
  }

  async ping(): Promise<void> {
    // One Redis round trip (a read of the queue's meta hash); hangs while Redis is down, which
    // the readiness check's timeout reports.
    await this.queue.isPaused();
  }

  async close(): Promise<void> {
    this.closing = true;
    clearInterval(this.probe);
    const workers = [...this.workers];
    this.workers.clear();
    await Promise.allSettled(workers.map((w) => w.close()));
    this.listeners.clear();
    if (this.events) await this.events.close();
    await this.queue.close();
  }

  /** Deletes every key of this queue (tests and `atelier` maintenance only). */
  async obliterate(): Promise<void> {
    await this.queue.obliterate({ force: true });
  }
}
