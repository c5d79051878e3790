import type { ApplyRequest, EntityRef, Hold, IdState, Lease, SeriesRead, SeriesUpdate } from '../types.js';
import { SumSeries } from './sum-series.js';

/**
 * The in-process window state: plain maps and arithmetic, no I/O and no clock (every method that
 * changes state takes the instant `at` it runs at). The entity arithmetic (update, evict) is
 * shared with the LMDB store.
 */

/** Length-prefixed join: unambiguous for any strings (scope 'a:b' + id 'c' differs from 'a' + 'b:c'). */
export const keyOf = (...parts: string[]): string => parts.map((p) => `${p.length}:${p}`).join('');

export interface Entity {
  sums: Map<string, SumSeries>;
  maxes: Map<string, number>;
  touchedAt: number;
}

/** Ids with an expiry instant: short leases (claim/release). */
class ExpiringIds {
  readonly until = new Map<string, number>();

  claim(key: string, ttlMs: number, at: number): boolean {
    const exp = this.until.get(key);
    if (exp !== undefined && exp > at) return false;
    this.until.set(key, at + ttlMs);
    return true;
  }
}

/**
 * Event ids per scope, each with its expiry and whether an apply consumed it: one entry per event
 * id, shared by intake reservations and apply's once ids. Packed into one number (expiry * 2 +
 * applied) so an entry is a map slot and a double.
 */
class EventIds {
  readonly entries = new Map<string, number>();

  /** The id's state at `at`, or undefined when absent or expired. */
  state(key: string, at: number): 'reserved' | 'applied' | undefined {
    const v = this.entries.get(key);
    if (v === undefined || Math.floor(v / 2) <= at) return undefined;
    return v % 2 === 1 ? 'applied' : 'reserved';
  }

  /** Marks the id applied unless it already is; answers whether this call applied it. */
  apply(key: string, ttlMs: number, at: number): boolean {
    const s = this.state(key, at);
    if (s === 'applied') return false;
    const until = s === 'reserved' ? Math.floor(this.entries.get(key)! / 2) : at + ttlMs;
    this.entries.set(key, until * 2 + 1);
    return true;
  }

  reserve(key: string, ttlMs: number, at: number): IdState {
    const s = this.state(key, at);
    if (s) return s;
    this.entries.set(key, (at + ttlMs) * 2);
    return 'new';
  }

  unreserve(key: string): void {
    const v = this.entries.get(key);
    if (v !== undefined && v % 2 === 0) this.entries.delete(key);
  }
}

export interface StateOptions {
  idleTtlMs: number;
}

export class WindowState {
  private readonly entities = new Map<string, Entity>();
  private readonly onces = new EventIds();
  private readonly claims = new ExpiringIds();
  private readonly queues = new Map<string, Map<string, number>>();
  private readonly values = new Map<string, string>();
  private readonly holds = new Map<string, Hold>();

  constructor(private readonly opts: StateOptions) {}

  apply(requests: ApplyRequest[], at: number): boolean[] {
    return requests.map((r) => {
      if (r.once && !this.onces.apply(keyOf(r.entity.scope, r.once.id), r.once.ttlMs, at)) return false;
      const key = keyOf(r.entity.scope, r.entity.id);
      const e = this.live(key, at) ?? { sums: new Map(), maxes: new Map(), touchedAt: at };
      for (const u of r.updates) update(e, u);
      e.touchedAt = at;
      this.entities.set(key, e);
      return true;
    });
  }

  read(entity: EntityRef, reads: SeriesRead[], at: number): (number | null)[] {
    const e = this.live(keyOf(entity.scope, entity.id), at);
    return reads.map((r) => {
      if (r.kind === 'max') return e?.maxes.get(r.series) ?? null;
      return e ? readSum(e, r) : r.kind === 'sum' ? 0 : null;
    });
  }

  reserveIds(scope: string, ids: string[], ttlMs: number, at: number): IdState[] {
    return ids.map((id) => this.onces.reserve(keyOf(scope, id), ttlMs, at));
  }

  unreserveIds(scope: string, ids: string[]): void {
    for (const id of ids) this.onces.unreserve(keyOf(scope, id));
  }

  claim(scope: string, namespace: string, ids: string[], ttlMs: number, at: number): boolean[] {
    return ids.map((id) => this.claims.claim(keyOf(scope, namespace, id), ttlMs, at));
  }

  release(scope: string, namespace: string, ids: string[]): void {
    for (const id of ids) this.claims.until.delete(keyOf(scope, namespace, id));
  }

  /** The compare-and-set of WindowStore.hold at instant `at`. */
  hold(scope: string, namespace: string, id: string, request: { holder: string; token: string; ttlMs: number }, at: number): { won: boolean; hold: Hold } {
    const key = keyOf(scope, namespace, id);
    const cur = this.readHold(scope, namespace, id, at);
    if (cur && cur.holder !== request.holder) return { won: false, hold: cur };
    const hold = { holder: request.holder, token: cur?.token ?? request.token, expiresAt: at + request.ttlMs };
    this.holds.set(key, hold);
    return { won: true, hold: { ...hold } };
  }

  readHold(scope: string, namespace: string, id: string, at: number): Hold | null {
    const key = keyOf(scope, namespace, id);
    const h = this.holds.get(key);
    if (h && h.expiresAt <= at) this.holds.delete(key);
    return h && h.expiresAt > at ? { ...h } : null;
  }

  dropHold(scope: string, namespace: string, id: string, holder: string, at: number): boolean {
    if (this.readHold(scope, namespace, id, at)?.holder !== holder) return false;
    return this.holds.delete(keyOf(scope, namespace, id));
  }

  schedule(scope: string, queue: string, entries: { id: string; dueAt: number }[]): void {
    const key = keyOf(scope, queue);
    const q = this.queues.get(key) ?? new Map<string, number>();
    for (const { id, dueAt } of entries) {
      const cur = q.get(id);
      if (cur === undefined || dueAt < cur) q.set(id, dueAt);
    }
    if (q.size > 0) this.queues.set(key, q);
  }

  /** Earliest due first, ties by id: the order a Redis sorted set answers in. */
  takeDue(scope: string, queue: string, now: number, limit: number, lease?: Lease): string[] {
    const key = keyOf(scope, queue);
    const q = this.queues.get(key);
    if (!q) return [];
    const due = [...q].filter(([, dueAt]) => dueAt <= now);
    due.sort(([a, x], [b, y]) => x - y || (a < b ? -1 : a > b ? 1 : 0));
    const taken = due.slice(0, limit).map(([id]) => id);
    for (const id of taken) q.delete(id);
    if (q.size === 0) this.queues.delete(key);
    if (lease) this.schedule(scope, lease.queue, taken.map((id) => ({ id: lease.prefix + id, dueAt: lease.dueAt })));
    return taken;
  }

  unschedule(scope: string, queue: string, ids: string[]): void {
    const key = keyOf(scope, queue);
    const q = this.queues.get(key);
    if (!q) return;
    for (const id of ids) q.delete(id);
    if (q.size === 0) this.queues.delete(key);
  }

  putValues(scope: string, namespace: string, entries: { id: string; value: string }[]): void {
    for (const e of entries) this.values.set(keyOf(scope, namespace, e.id), e.value);
  }

  getValues(scope: string, namespace: string, ids: string[]): (string | null)[] {
    return ids.map((id) => this.values.get(keyOf(scope, namespace, id)) ?? null);
  }

  deleteValues(scope: string, namespace: string, ids: string[]): void {
    for (const id of ids) this.values.delete(keyOf(scope, namespace, id));
  }

  deleteEntity(entity: EntityRef): void {
    this.entities.delete(keyOf(entity.scope, entity.id));
  }

  /** The entity, unless it has been idle longer than the idle TTL (then it is dropped, as Redis expires it). */
  private live(key: string, at: number): Entity | undefined {
    const e = this.entities.get(key);
    if (e && at - e.touchedAt > this.opts.idleTtlMs) {
      this.entities.delete(key);
      return undefined;
    }
    return e;
  }
}

export function update(e: Entity, u: SeriesUpdate): void {
  if (u.kind === 'max') {
    const cur = e.maxes.get(u.series);
    if (cur === undefined || u.value > cur) e.maxes.set(u.series, u.value);
    return;
  }
  evict(e, u.series, u.floor);
  if (u.bucket < u.floor) return;
  let s = e.sums.get(u.series);
  if (!s) {
    s = new SumSeries();
    e.sums.set(u.series, s);
  }
  s.add(u.bucket, u.delta);
}

/** A sum or lowest read of a live entity (shared with the LMDB store). */
export function readSum(e: Entity, r: Exclude<SeriesRead, { kind: 'max' }>): number | null {
  evict(e, r.series, r.floor);
  const s = e.sums.get(r.series);
  return r.kind === 'sum' ? (s?.total ?? 0) : (s?.lowest ?? null);
}

export function evict(e: Entity, series: string, floor: number): void {
  const s = e.sums.get(series);
  if (!s) return;
  s.evict(floor);
  // An empty series starts again from an exact zero.
  if (s.empty) e.sums.delete(series);
}
