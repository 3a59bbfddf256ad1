/**
 * In-memory WorkQueue: the embedded default when no REDIS_URL is configured. Same contract as the
 * BullMQ one, within one process: priority order, concurrency per worker, retries with
 * exponential backoff, idempotent add by jobId. Nothing survives a restart.
 */
import {
  assertConcurrency,
  clampProgress,
  errorMessage,
  normalizeAddOptions,
  type AddOptions,
  type JobHandler,
  type JobState,
  type ProcessOptions,
  type QueueEvent,
  type WorkQueue,
  type WorkerHandle,
} from './types.ts';

interface Entry<T> {
  id: string;
  payload: T;
  priority: number;
  seq: number;
  attempts: number;
  backoffMs: number;
  attempt: number; // tries started so far
  state: 'waiting' | 'delayed' | 'active' | 'completed' | 'failed';
}

/** Binary heap of ready jobs: higher priority first, then older first. */
class ReadyHeap<T> {
  private items: Entry<T>[] = [];
  get size(): number {
    return this.items.length;
  }
  private before(a: Entry<T>, b: Entry<T>): boolean {
    return a.priority !== b.priority ? a.priority > b.priority : a.seq < b.seq;
  }
  push(e: Entry<T>): void {
    const items = this.items;
    items.push(e);
    let i = items.length - 1;
    while (i > 0) {
      const p = (i - 1) >> 1;
      if (!this.before(items[i]!, items[p]!)) break;
      [items[i], items[p]] = [items[p]!, items[i]!];
      i = p;
    }
  }
  pop(): Entry<T> | undefined {
    const items = this.items;
    const top = items[0];
    const last = items.pop();
    if (items.length > 0 && last) {
      items[0] = last;
      let i = 0;
      for (;;) {
        const l = 2 * i + 1,
          r = l + 1;
        let m = i;
        if (l < items.length && this.before(items[l]!, items[m]!)) m = l;
        if (r < items.length && this.before(items[r]!, items[m]!)) m = r;
        if (m === i) break;
        [items[i], items[m]] = [items[m]!, items[i]!];
        i = m;
      }
    }
    return top;
  }
}

export interface InProcessQueueOptions {
  /** Finished jobs remembered for getState and dedup; the oldest are forgotten beyond this. */
  keepFinished?: number;
}

interface WorkerSlot<T> {
  handler: JobHandler<T>;
  concurrency: number;
  active: Set<Promise<void>>;
  closed: boolean;
}

export class InProcessQueue<T> implements WorkQueue<T> {
  readonly name: string;
  private readonly jobs = new Map<string, Entry<T>>();
  private readonly ready = new ReadyHeap<T>();
  private readonly finished: string[] = [];
  private readonly timers = new Set<NodeJS.Timeout>();
  private readonly workers: WorkerSlot<T>[] = [];
  private readonly listeners = new Set<(e: QueueEvent) => void>();
  private readonly keepFinished: number;
  private seq = 0;
  private closed = false;

  constructor(name: string, opts: InProcessQueueOptions = {}) {
    this.name = name;
    this.keepFinished = opts.keepFinished ?? 10_000;
  }

  async add(jobId: string, payload: T, opts?: AddOptions): Promise<void> {
    if (this.closed) throw new Error(`queue ${this.name} is closed`);
    const o = normalizeAddOptions(jobId, opts);
    if (this.jobs.has(jobId)) return;
    const e: Entry<T> = { id: jobId, payload, ...o, seq: this.seq++, attempt: 0, state: 'waiting' };
    this.jobs.set(jobId, e);
    this.ready.push(e);
    queueMicrotask(() => this.dispatch());
  }

  async getState(jobId: string): Promise<JobState> {
    const e = this.jobs.get(jobId);
    if (!e) return 'unknown';
    return e.state === 'delayed' ? 'waiting' : e.state;
  }

  async subscribe(listener: (e: QueueEvent) => void): Promise<() => void> {
    this.listeners.add(listener);
    return () => void this.listeners.delete(listener);
  }

  process(handler: JobHandler<T>, opts: ProcessOptions): WorkerHandle {
    if (this.closed) throw new Error(`queue ${this.name} is closed`);
    assertConcurrency(opts);
    const w: WorkerSlot<T> = { handler, concurrency: opts.concurrency, active: new Set(), closed: false };
    this.workers.push(w);
    queueMicrotask(() => this.dispatch());
    return {
      close: async () => {
        w.closed = true;
        await Promise.allSettled([...w.active]);
        const i = this.workers.indexOf(w);
        if (i >= 0) this.workers.splice(i, 1);
      },
    };
  }

  async ping(): Promise<void> {
    if (this.closed) throw new Error(`queue ${this.name} is closed`);
  }

  async close(): Promise<void> {
    this.closed = true;
    for (const t of this.timers) clearTimeout(t);
    this.timers.clear();
    for (const w of this.workers) w.closed = true;
    await Promise.allSettled(this.workers.flatMap((w) => [...w.active]));
    this.workers.length = 0;
    this.listeners.clear();
  }

  private emit(e: QueueEvent): void {
    for (const l of this.listeners) {
      try {
        l(e);
      } catch {
        // a listener's bug must not break job processing
      }
    }
  }

  /** Hands ready jobs to workers with free slots, round-robin so one worker does not hog the queue. */
  private dispatch(): void {
    let progressed = true;
    while (progressed && this.ready.size > 0) {
      progressed = false;
      for (const w of this.workers) {
        if (w.closed || w.active.size >= w.concurrency) continue;
        const e = this.ready.pop();
        if (!e) return;
        this.run(w, e);
        progressed = true;
      }
    }
  }

  private run(w: WorkerSlot<T>, e: Entry<T>): void {
    e.state = 'active';
    e.attempt++;
    this.emit({ type: 'active', jobId: e.id });
    const attempt = e.attempt;
    const p = (async () => {
      try {
        const result = await w.handler({
          id: e.id,
          payload: e.payload,
          attempt,
          reportProgress: async (pct) => {
            if (e.state === 'active' && e.attempt === attempt) this.emit({ type: 'progress', jobId: e.id, progress: clampProgress(pct) });
          },
        });
        e.state = 'completed';
        this.remember(e.id);
        this.emit({ type: 'completed', jobId: e.id, result });
      } catch (err) {
        const final = e.attempt >= e.attempts || this.closed;
        if (final) {
          e.state = 'failed';
          this.remember(e.id);
          this.emit({ type: 'failed', jobId: e.id, error: errorMessage(err) });
        } else {
          e.state = 'delayed';
          const t = setTimeout(
            () => {
              this.timers.delete(t);
              e.state = 'waiting';
              this.ready.push(e);
              this.dispatch();
            },
            e.backoffMs * 2 ** (e.attempt - 1),
          );
          this.timers.add(t);
        }
      }
    })();
    w.active.add(p);
    void p.finally(() => {
      w.active.delete(p);
      this.dispatch();
    });
  }

  private remember(id: string): void {
    this.finished.push(id);
    while (this.finished.length > this.keepFinished) this.jobs.delete(this.finished.shift()!);
  }
}
