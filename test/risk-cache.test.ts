import { describe, expect, it } from 'vitest';
import { manualClock } from '../infra/clock.js';
import { RefreshingCache } from '../pipelines/risk/refreshing-cache.js';

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

describe("the check path's per-organization cache", () => {
  it('reads once for checks that arrive together, then answers from memory', async () => {
    const clock = manualClock(0);
    const src = gatedLoad();
    const cache = new RefreshingCache(clock, 5_000, src.load, () => {});
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
    const cache = new RefreshingCache(clock, 5_000, src.load, () => {});
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
    const cache = new RefreshingCache(clock, 5_000, async () => (fail ? Promise.reject(new Error('chdb down')) : src.load()), (_k, err) => errors.push(err));
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
});
