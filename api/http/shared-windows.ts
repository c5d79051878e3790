import type { Logger } from 'pino';
import type { WindowStore } from '../../infra/windows/types.js';
import { FixedWindows, type RequestWindows, type WindowCount } from './rate-limit.js';

/** How often a process shares its request counts: with the store's round trip, the error bound of a limit across processes (README). */
export const RATE_SYNC_MS = 100;
/** Callers a limiter holds counts for at once. */
export const MAX_CALLERS = 100_000;

/**
 * Request windows of any length for one limiter (`scope`, e.g. `rate:edge`): shared through the
 * window store when there is one, else counted in this process.
 */
export function requestWindows(opts: { store?: WindowStore; scope: string; log?: Logger }): (windowMs: number) => RequestWindows {
  return (windowMs) =>
    opts.store
      ? new SharedWindows({ store: opts.store, scope: `${opts.scope}:${windowMs}`, windowMs, syncMs: RATE_SYNC_MS, maxEntries: MAX_CALLERS, log: opts.log })
      : new FixedWindows(windowMs, MAX_CALLERS);
}

export interface SharedWindowsOptions {
  store: WindowStore;
  /** The window store scope the counts live under, e.g. `rate:edge:60000`. */
  scope: string;
  windowMs: number;
  /** How often this process adds its counts to the store and reads the totals back. */
  syncMs: number;
  /** Callers counted at once; beyond it the oldest is forgotten (its count restarts). */
  maxEntries: number;
  log?: Logger;
}

/** One caller's window in this process: what the store said, what is on its way there, and what is not yet sent. */
interface Tally {
  start: number;
  /** The store's total for the window at the last sync (every process's requests, ours included). */
  shared: number;
  /** Counted here and being added to the store by the sync in flight. */
  sending: number;
  /** Counted here since the last sync began. */
  pending: number;
}

const SERIES = 'requests';

/**
 * Fixed-window request counts shared by every process through the window store, without a store
 * round trip on the request path: a request is counted in process at once, and every `syncMs`
 * (on the next request after that) one `apply` adds each caller's new requests to the store and
 * one `read` per caller brings back the total of all processes. A caller's count is that total
 * plus what this process counted since; what other processes counted since their last sync is
 * not seen yet, so with P processes a limit L per window admits at most L plus the requests the
 * other P - 1 processes take in one sync interval (and one store round trip). A restarted process
 * reads the totals on its first sync, so day limits survive a restart. When the store cannot be
 * reached the counts stay local (each process enforces the limit alone) and are sent when it can.
 */
export class SharedWindows implements RequestWindows {
  private readonly tallies = new Map<string, Tally>();
  private lastSync = Number.NEGATIVE_INFINITY;
  private syncing: Promise<void> | undefined;

  constructor(private readonly opts: SharedWindowsOptions) {}

  /** Counts one request of `id` at `now`; the count covers every process, as of the last sync. */
  hit(id: string, now: number): WindowCount {
    const start = Math.floor(now / this.opts.windowMs) * this.opts.windowMs;
    let t = this.tallies.get(id);
    if (!t || t.start !== start) {
      // The map's first entry is the caller whose window started longest ago: the one to forget.
      if (!t && this.tallies.size >= this.opts.maxEntries) this.tallies.delete(this.tallies.keys().next().value!);
      t = { start, shared: 0, sending: 0, pending: 0 };
      this.tallies.delete(id); // re-inserted last, so the map stays ordered by window start
      this.tallies.set(id, t);
    }
    t.pending++;
    if (!this.syncing && now - this.lastSync >= this.opts.syncMs) {
      this.lastSync = now;
      this.syncing = this.sync(now).finally(() => (this.syncing = undefined));
    }
    return { start, count: t.shared + t.sending + t.pending };
  }

  /** Sends the counts of the current window and reads the totals back; resolves when done (tests await it). */
  async flush(now: number): Promise<void> {
    await this.syncing;
    await this.sync(now);
  }

  private async sync(now: number): Promise<void> {
    const { store, scope, windowMs } = this.opts;
    const start = Math.floor(now / windowMs) * windowMs;
    const bucket = start / windowMs;
    const live: [string, Tally][] = [];
    for (const [id, t] of this.tallies) {
      if (t.start === start) live.push([id, t]);
      else this.tallies.delete(id); // a past window's counts no longer limit anyone
    }
    if (live.length === 0) return;
    for (const [, t] of live) {
      t.sending = t.pending;
      t.pending = 0;
    }
    let applied = false;
    try {
      const sent = live.filter(([, t]) => t.sending > 0);
      if (sent.length > 0) {
        await store.apply(sent.map(([id, t]) => ({ entity: { scope, id }, updates: [{ kind: 'sum', series: SERIES, bucket, delta: t.sending, floor: bucket }] })));
      }
      applied = true;
      const totals = await store.readMany(live.map(([id]) => ({ entity: { scope, id }, reads: [{ kind: 'sum', series: SERIES, floor: bucket }] })));
      live.forEach(([, t], i) => {
        t.shared = Math.max(t.shared + t.sending, totals[i]![0] ?? 0);
        t.sending = 0;
      });
    } catch (err) {
      // Counts the store took are not sent again; the others go with the next sync.
      for (const [, t] of live) {
        if (applied) t.shared += t.sending;
        else t.pending += t.sending;
        t.sending = 0;
      }
      this.opts.log?.warn({ err, scope }, 'rate counts not shared this time: the window store did not answer');
    }
  }
}
