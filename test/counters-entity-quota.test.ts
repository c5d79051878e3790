import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, describe, expect, it } from 'vitest';
import { createEntityQuota } from '../api/counters/entity-quota.js';
import { createMemoryWindowStore } from '../infra/windows/memory/index.js';
import { createRedisWindowStore } from '../infra/windows/redis/index.js';
import type { WindowStore } from '../infra/windows/types.js';
import { realInfra, shouldRun } from './support/infra.js';
import { clusterAdmin } from './support/redis-cluster.js';

const keyPrefix = `test:${randomUUID()}:`;
const stores: [string, boolean, () => Promise<WindowStore> | WindowStore][] = [
  ['memory', true, () => createMemoryWindowStore({})],
  ['redis', shouldRun('redisUrl'), () => createRedisWindowStore({ url: realInfra.redisUrl ?? '', keyPrefix })],
  ['Redis Cluster', shouldRun('redisClusterUrl'), () => createRedisWindowStore({ url: realInfra.redisClusterUrl ?? '', keyPrefix })],
];

// Claims live 100 days: remove what the Redis run left.
afterAll(async () => {
  if (!shouldRun('redisUrl')) return;
  const admin = new Redis(realInfra.redisUrl ?? '');
  const leftovers = await admin.keys(`${keyPrefix}*`);
  if (leftovers.length > 0) await admin.unlink(...leftovers);
  await admin.quit();
});
afterAll(async () => {
  if (!shouldRun('redisClusterUrl')) return;
  const admin = clusterAdmin(realInfra.redisClusterUrl ?? '');
  await admin.unlinkAll(keyPrefix);
  await admin.quit();
});

describe.each(stores)('entity quota on the %s window store', (_name, run, make) => {
  it.runIf(run)('admits new entities up to the limit, counts each once, and keeps organizations apart', async () => {
    const windows = await make();
    try {
      const org = `org-${randomUUID()}`;
      const quota = createEntityQuota(windows, 3);
      const now = Date.UTC(2030, 0, 1);
      expect(await quota.refused(org, ['a', 'b', 'a'], now)).toEqual(new Set());
      expect(await quota.refused(org, ['a', 'c', 'd', 'e'], now)).toEqual(new Set(['d', 'e']));
      expect(await quota.refused(org, ['b', 'c'], now)).toEqual(new Set());
      expect(await quota.refused(org, ['d'], now)).toEqual(new Set(['d']));
      expect(await quota.refused(`${org}-other`, ['d'], now)).toEqual(new Set());
    } finally {
      await windows.close();
    }
  });
});

describe('entity quota: entities counted lately', () => {
  it('claims an entity once per process while it recurs, and another process still counts it once', async () => {
    const store = await createMemoryWindowStore({});
    const claimed: string[][] = [];
    const windows: WindowStore = {
      ...store,
      claim: (scope, namespace, ids, ttlMs, options) => {
        claimed.push(ids);
        return store.claim(scope, namespace, ids, ttlMs, options);
      },
    };
    try {
      const now = Date.UTC(2030, 0, 1);
      const quota = createEntityQuota(windows, 2);
      expect(await quota.refused('org', ['a', 'b'], now)).toEqual(new Set());
      expect(await quota.refused('org', ['a', 'b'], now)).toEqual(new Set());
      expect(await quota.refused('org', ['b', 'c'], now)).toEqual(new Set(['c']));
      // The refused entity was not counted: it is asked about again, and refused again.
      expect(await quota.refused('org', ['c'], now)).toEqual(new Set(['c']));
      expect(claimed).toEqual([['a', 'b'], ['c'], ['c']]);
      // A second API process knows nothing yet: it claims, finds a and b held, and counts neither again.
      const other = createEntityQuota(windows, 2);
      expect(await other.refused('org', ['a', 'b'], now)).toEqual(new Set());
      expect(await other.refused('org', ['a', 'b'], now)).toEqual(new Set());
      expect(claimed.slice(3)).toEqual([['a', 'b']]);
    } finally {
      await store.close();
    }
  });
});
