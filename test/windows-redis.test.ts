import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, describe, expect, it } from 'vitest';
import { createRedisWindowStore } from '../infra/windows/redis/index.js';
import { windowStoreContract } from './contracts/windows.js';

const url = process.env.WEIR_TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';
const runPrefix = `test:${randomUUID()}:`;
let stores = 0;
const admin = new Redis(url);

// File-level, so it runs however the tests are filtered: idle entities would otherwise stay 100 days.
afterAll(async () => {
  const leftovers = await admin.keys(`${runPrefix}*`);
  if (leftovers.length > 0) await admin.unlink(...leftovers);
  await admin.quit();
});

windowStoreContract('redis', async (opts) =>
  createRedisWindowStore({ url, keyPrefix: `${runPrefix}${++stores}:`, ...opts }),
);

describe('redis window store: key layout', () => {

  it('keeps an entity in one hash and its expiry; event ids in hashes of its scope, expiring with their slot', async () => {
    const keyPrefix = `${runPrefix}layout:`;
    const store = createRedisWindowStore({ url, keyPrefix, idleTtlMs: 3_600_000 });
    try {
      await store.apply([
        { entity: { scope: 'acme', id: 'u1' }, updates: [{ kind: 'sum', series: 'n', bucket: 1, delta: 1, floor: 0 }], once: { id: 'e1', ttlMs: 86_400_000 } },
      ]);
      const keys = (await admin.keys(`${keyPrefix}*`)).sort();
      const slot = Math.floor(Date.now() / 21_600_000);
      // The slot's meta hash and the one bucket of its first generation (a first slot starts with one).
      const bucket = `${keyPrefix}i:{acme}:21600000:${slot}:1:0`;
      expect(keys).toEqual([`${keyPrefix}i:{acme}:21600000:${slot}`, bucket, `${keyPrefix}{acme:u1}`]);
      const ttl = await admin.pttl(`${keyPrefix}{acme:u1}`);
      expect(ttl).toBeGreaterThan(3_500_000);
      expect(ttl).toBeLessThanOrEqual(3_600_000);
      // Remembered for the window (24 h) after the end of the current six-hour slot.
      expect(await admin.pexpiretime(bucket)).toBe((slot + 1) * 21_600_000 + 86_400_000);
      expect(await admin.hlen(bucket)).toBe(1);
    } finally {
      await store.close();
    }
  });

  it('keeps one entry of a few bytes per event id, whether intake reserved it or not', async () => {
    const keyPrefix = `${runPrefix}ids:`;
    const store = createRedisWindowStore({ url, keyPrefix });
    const ttlMs = 86_400_000;
    const n = 20_000;
    try {
      const ids = Array.from({ length: n }, (_, i) => `event-${i}`);
      // Half arrive over HTTP (reserved, then applied by the pipeline), half straight from the topic.
      expect(await store.reserveIds('acme', ids.slice(0, n / 2), ttlMs)).toEqual(ids.slice(0, n / 2).map(() => 'new'));
      const applied = await store.apply(ids.map((id, i) => ({ entity: { scope: 'acme', id: `u${i % 100}` }, updates: [], once: { id, ttlMs } })));
      expect(applied.every(Boolean)).toBe(true);
      const keys = await admin.keys(`${keyPrefix}*`);
      expect(keys.every((k) => k.startsWith(`${keyPrefix}i:{acme}:`))).toBe(true);
      const buckets = keys.filter((k) => /\}:\d+:\d+:\d+:\d+$/.test(k));
      const fields = (await Promise.all(buckets.map((k) => admin.hlen(k)))).reduce((a, b) => a + b, 0);
      expect(fields).toBe(n);
      const values = await admin.hvals(buckets[0]!);
      expect(new Set(values)).toEqual(new Set(['1']));
    } finally {
      await store.close();
    }
  });

  it('opens generations of buckets as a first slot fills, with their counts kept across calls', async () => {
    const keyPrefix = `${runPrefix}generations:`;
    const store = createRedisWindowStore({ url, keyPrefix });
    const ttlMs = 86_400_000;
    try {
      const ids = Array.from({ length: 150 }, (_, i) => `gen-${i}`);
      // Calls of ten ids, so each generation's count must survive from one script call to the next.
      for (let i = 0; i < ids.length; i += 10) expect(await store.reserveIds('acme', ids.slice(i, i + 10), ttlMs)).toEqual(Array(10).fill('new'));
      const meta = `${keyPrefix}i:{acme}:21600000:${Math.floor(Date.now() / 21_600_000)}`;
      // 24 ids a bucket close a generation; the next has four times its buckets.
      expect(await admin.hgetall(meta)).toMatchObject({ g: '3', b1: '1', n1: '24', b2: '4', n2: '96', b3: '16', n3: '30' });
      expect(await store.reserveIds('acme', ids, ttlMs)).toEqual(ids.map(() => 'reserved'));
    } finally {
      await store.close();
    }
  });

  it('removes an emptied series from the hash', async () => {
    const keyPrefix = `${runPrefix}empty:`;
    const store = createRedisWindowStore({ url, keyPrefix });
    try {
      const entity = { scope: 'acme', id: 'u1' };
      await store.apply([{ entity, updates: [{ kind: 'sum', series: 'n', bucket: 1, delta: 1, floor: 0 }] }]);
      expect(await store.read(entity, [{ kind: 'sum', series: 'n', floor: 5 }])).toEqual([0]);
      expect(await admin.exists(`${keyPrefix}{acme:u1}`)).toBe(0);
    } finally {
      await store.close();
    }
  });

  it('moves queues of the earlier key layout once, keeping the earlier due time of an id in both', async () => {
    const keyPrefix = `${runPrefix}old-queues:`;
    // The layout before queues were tagged by organization alone: {q:<scope>:<queue>}.
    await admin.zadd(`${keyPrefix}{q:acme:dirty}`, 5, 'u1', 50, 'u2');
    await admin.zadd(`${keyPrefix}{q:acme:leases}`, 7, 'lease:u3');
    const store = createRedisWindowStore({ url, keyPrefix });
    try {
      await store.schedule('acme', 'dirty', [{ id: 'u2', dueAt: 60 }, { id: 'u4', dueAt: 6 }]);
      expect(await store.takeDue('acme', 'dirty', 100, 10)).toEqual(['u1', 'u4', 'u2']);
      expect(await store.takeDue('acme', 'leases', 100, 10)).toEqual(['lease:u3']);
      expect(await admin.exists(`${keyPrefix}{q:acme:dirty}`, `${keyPrefix}{q:acme:leases}`)).toBe(0);
    } finally {
      await store.close();
    }
  });
});
