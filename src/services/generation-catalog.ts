/**
 * The collections and workflows generations are built from, kept per process so that a submit is
 * one round trip (docs/jobs.md "Throughput").
 *
 * Invalidation: each entry carries the version it was read at (a digest of the fields a job is
 * built from), and the submit statement writes nothing unless both versions are still current
 * (db/generation-rows.ts). A
 * copy made stale by any process (this one, another replica, a worker, a direct SQL edit) is
 * therefore noticed at its next use, at commit time and on the database itself: the service reads
 * it again and submits again. No notification can be missed or arrive late, so no replica ever
 * builds a job from an old copy; the cost is one extra read per process after an update.
 * Bounded: the least recently used entries are dropped first.
 */
import type { CollectionForGeneration } from '../db/collections.ts';
import type { WorkflowForJob } from '../db/workflows.ts';

/** A small LRU map: a hit moves the key to the end; inserting past `max` drops the oldest. */
class Lru<V> {
  private readonly map = new Map<string, V>();
  constructor(private readonly max: number) {}
  get(key: string): V | undefined {
    const v = this.map.get(key);
    if (v !== undefined) {
      this.map.delete(key);
      this.map.set(key, v);
    }
    return v;
  }
  set(key: string, v: V) {
    this.map.delete(key);
    this.map.set(key, v);
    if (this.map.size > this.max) this.map.delete(this.map.keys().next().value!);
  }
  delete(key: string) {
    this.map.delete(key);
  }
}

export interface CatalogSource {
  collection(id: string): Promise<CollectionForGeneration>;
  workflow(idOrName: string): Promise<WorkflowForJob | null>;
}

export class GenerationCatalog {
  private readonly collections: Lru<CollectionForGeneration>;
  private readonly workflows: Lru<WorkflowForJob>;

  constructor(
    private readonly source: CatalogSource,
    max = { collections: 1000, workflows: 200 },
  ) {
    this.collections = new Lru(max.collections);
    this.workflows = new Lru(max.workflows);
  }

  /** The collection (404 when missing); `fresh` reads it again (the cached copy was stale). */
  async collection(id: string, fresh = false): Promise<CollectionForGeneration> {
    const hit = fresh ? undefined : this.collections.get(id);
    if (hit) return hit;
    return this.load(`c:${id}`, fresh, async () => {
      try {
        const row = await this.source.collection(id);
        this.collections.set(id, row);
        return row;
      } catch (err) {
        this.collections.delete(id);
        throw err;
      }
    });
  }

  /** The workflow by id or name, or null; `fresh` reads it again. Misses are not kept. */
  async workflow(idOrName: string, fresh = false): Promise<WorkflowForJob | null> {
    const hit = fresh ? undefined : this.workflows.get(idOrName);
    if (hit) return hit;
    return this.load(`w:${idOrName}`, fresh, async () => {
      const row = await this.source.workflow(idOrName);
      if (row) this.workflows.set(idOrName, row);
      else this.workflows.delete(idOrName);
      return row;
    });
  }

  /**
   * Concurrent misses of one key share one read (a burst of submits after a start). A fresh read
   * never joins one already under way: that one may have started before the update it must see.
   */
  private readonly loading = new Map<string, Promise<unknown>>();
  private load<T>(key: string, fresh: boolean, read: () => Promise<T>): Promise<T> {
    const pending = fresh ? undefined : this.loading.get(key);
    if (pending) return pending as Promise<T>;
    const p = read().finally(() => this.loading.delete(key));
    this.loading.set(key, p);
    return p;
  }
}
