import { describe, expect, it } from 'vitest';
import { manualClock } from '../infra/clock.js';
import { RefreshingCache, type RefreshingCacheOptions } from '../infra/refreshing-cache.js';

/** A load that answers when the test says so, counting the loads started. */
function gatedLoad() {
  const pending: ((v: string) => void)[] = [];
  let version = 0;
  return {
    load: () => new Promise<string>((resolve) => pending.push(resolve)),
    started: () => pending.length,
    answer: () => pending.shift()!(`v${++version}`),
  };
}

const settle = () => new Promise((r) => setImmediate(r));

/** A cache of 5-second entries on `clock`, serving stale values unless told otherwise. */
const cacheOf = (clock: RefreshingCacheOptions<string>['clock'], load: RefreshingCacheOptions<string>['load'], more: Partial<RefreshingCacheOptions<string>> = {}) =>
  new RefreshingCache<string>({ clock, maxAgeMs: 5_000, whenStale: 'serve', load, ...more });

describe("the per-organization refreshing cache", () => {
  it('reads once for checks that arrive together, then answers from memory', async () => {
    const clock = manualClock(0);
    const src = gatedLoad();
    const cache = cacheOf(clock, src.load);
    const first = Promise.all([cache.get('org'), cache.get('org'), cache.get('org')]);
    expect(src.started()).toBe(1);
    src.answer();
    expect(await first).toEqual(['v1', 'v1', 'v1']);
    clock.advance(4_999);
    expect(await cache.get('org')).toBe('v1');
    expect(src.started()).toBe(0);
  });

  it('answers an expired value at once while one background read refreshes it', async () => {
    const clock = manualClock(0);
    const src = gatedLoad();
    const cache = cacheOf(clock, src.load);
    const first = cache.get('org');
    src.answer();
    await first;
    clock.advance(5_000);
    // Neither check waits for the read under way, and they start one read between them.
    expect(await cache.get('org')).toBe('v1');
    expect(await cache.get('org')).toBe('v1');
    expect(src.started()).toBe(1);
    src.answer();
    await settle();
    expect(await cache.get('org')).toBe('v2');
    expect(src.started()).toBe(0);
  });

  it('keeps a value set during a read over what the read found, and the old value when a refresh fails', async () => {
    const clock = manualClock(0);
    const errors: unknown[] = [];
    let fail = false;
    const src = gatedLoad();
    const cache = cacheOf(clock, async () => (fail ? Promise.reject(new Error('chdb down')) : src.load()), { onRefreshError: (_k, err) => errors.push(err) });
    const reading = cache.get('org');
    cache.set('org', 'written');
    src.answer();
    expect(await reading).toBe('written');
    expect(await cache.get('org')).toBe('written');
    clock.advance(5_000);
    fail = true;
    expect(await cache.get('org')).toBe('written');
    await settle();
    expect(errors).toHaveLength(1);
    expect(await cache.get('org')).toBe('written');
  });

  it('makes callers wait for a fresh read past the age when told to wait', async () => {
    const clock = manualClock(0);
    const src = gatedLoad();
    const cache = cacheOf(clock, src.load, { whenStale: 'wait' });
    const first = cache.get('org');
    src.answer();
    expect(await first).toBe('v1');
    clock.advance(5_000);
    const second = cache.get('org');
    expect(src.started()).toBe(1);
    src.answer();
    expect(await second).toBe('v2');
  });

  it('forgets a deleted key, and does not keep what a read under way at the delete found', async () => {
    const clock = manualClock(0);
    const src = gatedLoad();
    const cache = cacheOf(clock, src.load);
    const reading = cache.get('org');
    cache.delete('org');
    src.answer();
    expect(await reading).toBe('v1');
    const next = cache.get('org');
    expect(src.started()).toBe(1);
    src.answer();
    expect(await next).toBe('v2');
  });

  it('holds at most maxEntries, dropping the least recently used, and leaves out values keep refuses', async () => {
    const clock = manualClock(0);
    let loads = 0;
    const cache = cacheOf(clock, async (key) => `${key}:${++loads}`, { maxEntries: 2, keep: (v) => !v.startsWith('missing') });
    await cache.get('a');
    await cache.get('b');
    await cache.get('a'); // a is now the most recently used
    await cache.get('c'); // b leaves
    expect(loads).toBe(3);
    expect(await cache.get('a')).toBe('a:1');
    expect(await cache.get('b')).toBe('b:4');
    await cache.get('missing');
    await cache.get('missing');
    expect(loads).toBe(6);
  });

  it('passes the held value to a refresh, so an unchanged read can keep its identity', async () => {
    const clock = manualClock(0);
    const seen: (string | undefined)[] = [];
    const cache = cacheOf(clock, async (_k, previous) => (seen.push(previous), previous ?? 'first'));
    await cache.get('org');
    clock.advance(5_000);
    await cache.get('org');
    await settle();
    expect(seen).toEqual([undefined, 'first']);
  });
});
