import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { createMemoryWindowStore } from '../infra/windows/memory/index.js';
import { createRedisWindowStore } from '../infra/windows/redis/index.js';
import type { ApplyRequest, WindowStore } from '../infra/windows/types.js';
import { realInfra, shouldRun } from './support/infra.js';

/**
 * A sum delta that could overflow a running total is refused before anything is written, so the
 * once id stays unclaimed and the entity untouched: Redis's HINCRBYFLOAT would otherwise fail in
 * the middle of the script with the id already claimed (half an event applied, the rest lost).
 */
const stores: [string, boolean, () => WindowStore | Promise<WindowStore>][] = [
  ['memory', true, () => createMemoryWindowStore({})],
  ['redis', shouldRun('redisUrl'), () => createRedisWindowStore({ url: realInfra.redisUrl ?? '', keyPrefix: `test:${randomUUID()}:` })],
  ['Redis Cluster', shouldRun('redisClusterUrl'), () => createRedisWindowStore({ url: realInfra.redisClusterUrl ?? '', keyPrefix: `test:${randomUUID()}:` })],
];

describe.each(stores)('%s window store: bounded sums', (_name, run, make) => {
  it.runIf(run)('refuses a delta that could overflow, before claiming its once id', async () => {
    const store = await make();
    try {
      const entity = { scope: 'acme', id: `u-${randomUUID()}` };
      const event = (delta: number): ApplyRequest => ({
        entity,
        updates: [
          { kind: 'sum', series: 'n', bucket: 1, delta: 1, floor: 0 },
          { kind: 'sum', series: 'amt', bucket: 1, delta, floor: 0 },
        ],
        once: { id: 'e1', ttlMs: 60_000 },
      });
      await expect(store.apply([event(1e308)])).rejects.toThrow(/sum update delta must be a finite number of at most 1000000000000000/);
      await expect(store.apply([event(-Infinity)])).rejects.toThrow(/sum update delta/);
      expect(await store.read(entity, [{ kind: 'sum', series: 'n', floor: 0 }, { kind: 'sum', series: 'amt', floor: 0 }])).toEqual([0, 0]);
      expect(await store.apply([event(1e15)])).toEqual([true]);
      expect(await store.apply([event(1e15)])).toEqual([false]);
      expect(await store.read(entity, [{ kind: 'sum', series: 'n', floor: 0 }, { kind: 'sum', series: 'amt', floor: 0 }])).toEqual([1, 1e15]);
      await store.deleteEntity(entity);
    } finally {
      await store.close();
    }
  });
});
