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

  it('puts all keys of an entity in one hash slot and sets their expiry', async () => {
    const keyPrefix = `${runPrefix}layout:`;
    const store = createRedisWindowStore({ url, keyPrefix, idleTtlMs: 3_600_000 });
    try {
      await store.apply([
        { entity: { scope: 'acme', id: 'u1' }, updates: [{ kind: 'sum', series: 'n', bucket: 1, delta: 1, floor: 0 }], once: { id: 'e1', ttlMs: 60_000 } },
      ]);
      // Redis Cluster hashes only the first {...} of a key: both keys hash {acme:u1}.
      const keys = (await admin.keys(`${keyPrefix}*`)).sort();
      expect(keys).toEqual([`${keyPrefix}{acme:u1}`, `${keyPrefix}{acme:u1}:once:e1`]);
      const ttl = await admin.pttl(`${keyPrefix}{acme:u1}`);
      expect(ttl).toBeGreaterThan(3_500_000);
      expect(ttl).toBeLessThanOrEqual(3_600_000);
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
});
