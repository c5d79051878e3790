import { randomUUID } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import { addressKey, FixedWindows } from '../api/http/rate-limit.js';
import { SharedWindows } from '../api/http/shared-windows.js';
import { createMemoryWindowStore } from '../infra/windows/memory/index.js';
import { createRedisWindowStore } from '../infra/windows/redis/index.js';
import type { WindowStore } from '../infra/windows/types.js';
import { requireAddress, shouldRun } from './support/infra.js';

describe('addressKey', () => {
  it('keeps IPv4 addresses, also when mapped into IPv6', () => {
    expect(addressKey('203.0.113.7')).toBe('203.0.113.7');
    expect(addressKey('::ffff:203.0.113.7')).toBe('203.0.113.7');
  });

  it('counts an IPv6 caller per /56, however its address is written', () => {
    expect(addressKey('2001:db8:abcd:12ff:1::1')).toBe('2001:db8:abcd:1200::/56');
    expect(addressKey('2001:0db8:abcd:1234:ffff:ffff:ffff:ffff')).toBe('2001:db8:abcd:1200::/56');
    expect(addressKey('2001:db8:abcd:1300::1')).not.toBe(addressKey('2001:db8:abcd:1200::1'));
    expect(addressKey('::1')).toBe('0:0:0:0::/56');
  });
});

describe('FixedWindows', () => {
  it('counts per caller within a window and starts again in the next', () => {
    const w = new FixedWindows(1000);
    expect(w.hit('a', 10_100).count).toBe(1);
    expect(w.hit('a', 10_900).count).toBe(2);
    expect(w.hit('b', 10_900).count).toBe(1);
    const next = w.hit('a', 11_000);
    expect(next).toEqual({ start: 11_000, count: 1 });
  });
});

describe('FixedWindows, bounded', () => {
  it('holds at most maxEntries callers, forgetting the one whose window started first', () => {
    const w = new FixedWindows(60_000, 3);
    for (let i = 0; i < 1000; i++) w.hit(`random-${i}`, 10_000);
    expect(w.size).toBe(3);
    w.hit('a', 10_000);
    w.hit('a', 10_000);
    expect(w.hit('a', 10_000).count).toBe(3);
    expect(w.size).toBe(3);
  });
});

/** Two API processes (two SharedWindows on one store), and one restarted, count one caller together. */
function sharedWindowsCases(name: string, makeStore: () => Promise<WindowStore>) {
  describe(`SharedWindows on ${name}`, () => {
    const stores: WindowStore[] = [];
    afterAll(async () => {
      for (const s of stores) await s.close();
    });
    const windowsOn = (store: WindowStore, scope: string) => new SharedWindows({ store, scope, windowMs: 60_000, syncMs: 100, maxEntries: 1000 });
    const scope = `rate:test:${randomUUID()}`;
    const t0 = Math.floor(Date.now() / 60_000) * 60_000; // the start of a window: the test never crosses one

    it('counts one caller across processes, and after a restart', async () => {
      const store = await makeStore();
      stores.push(store);
      const a = windowsOn(store, scope);
      const b = windowsOn(store, scope);
      for (let i = 1; i <= 7; i++) expect(a.hit('k1', t0 + i).count).toBe(i);
      await a.flush(t0 + 8);
      expect(b.hit('k1', t0 + 9).count).toBe(1); // b has not synced yet: it counts what it saw
      await b.flush(t0 + 10);
      expect(b.hit('k1', t0 + 11).count).toBe(9);
      await b.flush(t0 + 12);
      await a.flush(t0 + 13);
      expect(a.hit('k1', t0 + 14).count).toBe(10);
      await a.flush(t0 + 15);
      const restarted = windowsOn(store, scope);
      restarted.hit('k1', t0 + 16);
      await restarted.flush(t0 + 17);
      expect(restarted.hit('k1', t0 + 18).count).toBe(12);
      // Another caller, and the next window, start from zero.
      expect(restarted.hit('k2', t0 + 19).count).toBe(1);
      expect(restarted.hit('k1', t0 + 60_000).count).toBe(1);
    });
  });
}

sharedWindowsCases('the memory window store', () => createMemoryWindowStore());
describe.runIf(shouldRun('redisUrl'))('redis', () => {
  sharedWindowsCases('Redis', async () => createRedisWindowStore({ url: requireAddress('redisUrl'), keyPrefix: `test:${randomUUID()}:`, idleTtlMs: 120_000 }));
});
describe.runIf(shouldRun('redisClusterUrl'))('redis cluster', () => {
  sharedWindowsCases('a Redis Cluster', async () => createRedisWindowStore({ url: requireAddress('redisClusterUrl'), keyPrefix: `test:${randomUUID()}:`, idleTtlMs: 120_000 }));
});

describe('SharedWindows when the store fails', () => {
  it('keeps counting in process and sends the counts once the store answers again', async () => {
    const store = await createMemoryWindowStore();
    let down = true;
    const flaky: WindowStore = {
      ...store,
      apply: (r) => (down ? Promise.reject(new Error('store down')) : store.apply(r)),
    };
    const t0 = Math.floor(Date.now() / 60_000) * 60_000;
    const w = new SharedWindows({ store: flaky, scope: 'rate:flaky', windowMs: 60_000, syncMs: 100, maxEntries: 10 });
    w.hit('k', t0);
    w.hit('k', t0 + 1);
    await w.flush(t0 + 2);
    expect(w.hit('k', t0 + 3).count).toBe(3);
    down = false;
    await w.flush(t0 + 4);
    expect(await store.read({ scope: 'rate:flaky', id: 'k' }, [{ kind: 'sum', series: 'requests', floor: t0 / 60_000 }])).toEqual([3]);
    expect(w.hit('k', t0 + 5).count).toBe(4);
    await store.close();
  });
});
