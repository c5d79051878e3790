import { lru, type LRU } from 'tiny-lru';
import type { Clock } from './clock.js';

/**
 * What a stale entry does. `serve`: past `maxAgeMs` the known value still answers while one read
 * refreshes it in the background, for values read on a hot path whose staleness is the contract
 * (scoring weights, screening settings, rule definitions: a read in the request path each time an
 * entry expired made those paths' tail latency). `wait`: past `maxAgeMs` callers wait for a fresh
 * read, for values whose age is a bound someone relies on (a disabled principal's token refused
 * within a second, a deleted webhook registration no longer delivered to).
 */
export type WhenStale = 'serve' | 'wait';

export interface RefreshingCacheOptions<V> {
  clock: Clock;
  /** How old an entry may be before it is read again. */
  maxAgeMs: number;
  whenStale: WhenStale;
  /** Entries kept at most (default MAX_ENTRIES); beyond, the least recently used leaves first, so keys a caller makes up cannot grow memory without bound. */
  maxEntries?: number;
  /** Reads a key's value; `previous` is the value held (a load that finds nothing changed may answer it, keeping its identity). */
  load: (key: string, previous: V | undefined) => Promise<V>;
  /** Whether a loaded value is kept (default: every one); a lookup that found nothing may be left out so made-up keys are not cached. */
  keep?: (value: V) => boolean;
  /** A background refresh failed: the known value stays and the next get after it tries again. */
  onRefreshError?: (key: string, err: unknown) => void;
}

/** Organizations (or keys) a cache holds by default: a few MB at most for the values cached this way. */
export const MAX_ENTRIES = 10_000;

interface Entry<V> {
  at: number;
  value: V;
  /** Local writes of this key: a read that started before one is older than what it wrote. */
  writes: number;
}

/**
 * A per-key (mostly per-organization) cache of values kept in ClickHouse and read on every request:
 * one read at a time per key however many callers ask, local writes visible at once, staleness
 * named by each store that uses it.
 */
export class RefreshingCache<V> {
  private readonly entries: LRU<Entry<V>>;
  private readonly loading = new Map<string, Promise<V>>();

  constructor(private readonly opts: RefreshingCacheOptions<V>) {
    this.entries = lru<Entry<V>>(opts.maxEntries ?? MAX_ENTRIES);
  }

  async get(key: string): Promise<V> {
    const hit = this.entries.get(key);
    if (!hit) return this.refresh(key);
    if (this.opts.clock.now() - hit.at < this.opts.maxAgeMs) return hit.value;
    if (this.opts.whenStale === 'wait') return this.refresh(key);
    this.refresh(key).catch((err: unknown) => this.opts.onRefreshError?.(key, err));
    return hit.value;
  }

  /** Reads the value now (one read at a time per key) and keeps it. */
  refresh(key: string): Promise<V> {
    const pending = this.loading.get(key);
    if (pending) return pending;
    const at = this.opts.clock.now();
    const before = this.entries.get(key);
    const writes = before?.writes ?? 0;
    const p: Promise<V> = this.opts
      .load(key, before?.value)
      .then((value) => {
        // A delete since the read started: what it found may be what was deleted.
        if (this.loading.get(key) !== p) return value;
        const cur = this.entries.get(key);
        if (cur && cur.writes !== writes) return cur.value;
        if (this.opts.keep && !this.opts.keep(value)) this.entries.delete(key);
        else this.entries.set(key, { at, value, writes });
        return value;
      })
      .finally(() => {
        if (this.loading.get(key) === p) this.loading.delete(key);
      });
    this.loading.set(key, p);
    return p;
  }

  /** A value this process wrote: answered at once, and newer than any read under way. */
  set(key: string, value: V): void {
    this.entries.set(key, { at: this.opts.clock.now(), value, writes: (this.entries.get(key)?.writes ?? 0) + 1 });
  }

  /** Forgets a key: the next get reads it, and a read under way is not kept. */
  delete(key: string): void {
    this.entries.delete(key);
    this.loading.delete(key);
  }
}
