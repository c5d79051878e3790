import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectWindowRedis, createRedisWindowStore } from '../infra/windows/redis/index.js';
import type { RedisClient } from '../infra/windows/redis/client.js';
import { parseRedisUrl } from '../infra/windows/redis/url.js';
import type { ApplyRequest, WindowStore } from '../infra/windows/types.js';
import { windowStoreContract } from './contracts/windows.js';
import { requireAddress, shouldRun } from './support/infra.js';
import { clusterAdmin, type ClusterAdmin } from './support/redis-cluster.js';

/**
 * The window store on a real Redis Cluster of three masters (infra/scripts/redis-cluster.sh): the
 * whole contract, and the steps of an apply with an event id (cluster-apply.ts) cut short at each
 * point, as a crash would. The scripts run with `#!lua`, so any key outside one slot is an error.
 */
describe.runIf(shouldRun('redisClusterUrl'))('redis window store on a Redis Cluster', () => {
  const runPrefix = `test:${randomUUID()}:`;
  let url: string;
  let cluster: ClusterAdmin;
  let stores = 0;
  const keysOf = (prefix: string): Promise<string[]> => cluster.keys(`${prefix}*`);

  beforeAll(() => {
    url = requireAddress('redisClusterUrl');
    cluster = clusterAdmin(url);
  });
  afterAll(async () => {
    await cluster.unlinkAll(runPrefix);
    await cluster.quit();
  });

  windowStoreContract('redis cluster', async (opts) => createRedisWindowStore({ url, keyPrefix: `${runPrefix}${++stores}:`, ...opts }));

  const ttlMs = 86_400_000;
  const count = (entity: string, id: string, scope = 'acme'): ApplyRequest => ({
    entity: { scope, id: entity },
    updates: [{ kind: 'sum', series: 'n', bucket: 1, delta: 1, floor: 0 }],
    once: { id, ttlMs },
  });
  const readCount = async (store: WindowStore, entity: string): Promise<number | null> =>
    (await store.read({ scope: 'acme', id: entity }, [{ kind: 'sum', series: 'n', floor: 0 }]))[0]!;

  /** A store whose process dies at `command`: that call and every later one fail, the earlier ones went through. */
  function dyingAt(keyPrefix: string, command: string): WindowStore {
    const client = connectWindowRedis(parseRedisUrl(url), 1000);
    let dead = false;
    const dying = new Proxy(client, {
      get(target, prop, receiver) {
        const value = Reflect.get(target, prop, receiver) as unknown;
        if (typeof value !== 'function' || prop === 'quit' || prop === 'disconnect') return value;
        return (...args: unknown[]) => {
          if (prop === command) dead = true;
          if (dead && typeof prop === 'string' && (prop.startsWith('weirWindow') || prop === 'hdel')) return Promise.reject(new Error(`killed at ${command}`));
          return (value as (...a: unknown[]) => unknown).apply(target, args);
        };
      },
    }) as RedisClient;
    return createRedisWindowStore({ url, keyPrefix, client: dying });
  }

  describe('an apply with an event id cut short at each step', () => {
    for (const [step, command, again] of [
      ['after claiming the id for the entity', 'weirWindowApplyEntity', true],
      ['after the update, before the id is marked applied', 'weirWindowOnceCommit', false],
      ['after the id is marked applied, before the marker is dropped', 'hdel', false],
    ] as const) {
      it(`counts the event once when it is delivered again: ${step}`, async () => {
        const keyPrefix = `${runPrefix}crash:${command}:`;
        const dying = dyingAt(keyPrefix, command);
        await expect(dying.apply([count('u1', 'e1')])).rejects.toThrow(`killed at ${command}`);
        await dying.close();

        const store = createRedisWindowStore({ url, keyPrefix });
        try {
          // Until the redelivery, intake sees the id as taken but not applied.
          if (command !== 'hdel') expect(await store.reserveIds('acme', ['e1'], ttlMs)).toEqual(['reserved']);
          // The same event with another entity is the same event: not counted while the first is in flight.
          expect(await store.apply([count('u2', 'e1')])).toEqual([false]);
          expect(await store.apply([count('u1', 'e1')])).toEqual([again]);
          expect(await store.apply([count('u1', 'e1'), count('u2', 'e1')])).toEqual([false, false]);
          expect(await readCount(store, 'u1')).toBe(1);
          expect(await readCount(store, 'u2')).toBe(0);
          expect(await store.reserveIds('acme', ['e1'], ttlMs)).toEqual(['applied']);
          // The redelivery finished the steps and dropped the marker; one left by a crash after the
          // id was marked applied (the redelivery then stops at the id) expires with the id.
          const markers = (await keysOf(keyPrefix)).filter((k) => k.startsWith(`${keyPrefix}o:`));
          if (command !== 'hdel') expect(markers).toEqual([]);
          else expect(await cluster.client.pexpiretime(markers[0]!)).toBeGreaterThan(Date.now() + ttlMs);
        } finally {
          await store.close();
        }
      });
    }
  });

  it('counts an event id once per organization when one call carries it for two entities', async () => {
    const store = createRedisWindowStore({ url, keyPrefix: `${runPrefix}race:` });
    try {
      expect(await store.apply([count('u1', 'e1'), count('u2', 'e1'), count('u1', 'e1', 'other-org')])).toEqual([true, false, true]);
      expect(await readCount(store, 'u1')).toBe(1);
      expect(await readCount(store, 'u2')).toBe(0);
    } finally {
      await store.close();
    }
  });

  it('keeps the order of the chunks of one slot when a command is sent again late, as after a MOVED redirection', async () => {
    // One entity, 300 requests: the entity step goes out in several chunks. The first is held back
    // as a redirection holds a command; the ids repeat, so a later chunk run first would take them.
    const client = connectWindowRedis(parseRedisUrl(url), 1000);
    let held = false;
    const late = new Proxy(client, {
      get(target, prop, receiver) {
        const value = Reflect.get(target, prop, receiver) as unknown;
        if (prop !== 'weirWindowApplyEntity' || typeof value !== 'function') return value;
        return async (...args: unknown[]) => {
          if (!held) {
            held = true;
            await new Promise((r) => setTimeout(r, 100));
          }
          return (value as (...a: unknown[]) => Promise<unknown>).apply(target, args);
        };
      },
    }) as RedisClient;
    const store = createRedisWindowStore({ url, keyPrefix: `${runPrefix}late:`, client: late });
    try {
      const requests = Array.from({ length: 300 }, (_, i) => count('u1', `late-${i % 150}`));
      expect(await store.apply(requests)).toEqual(requests.map((_, i) => i < 150));
      expect(held).toBe(true);
      expect(await readCount(store, 'u1')).toBe(150);
    } finally {
      await store.close();
    }
  });

  it('keeps one entry of a few bytes per event id, spread over the masters by entity', async () => {
    const keyPrefix = `${runPrefix}ids:`;
    const store = createRedisWindowStore({ url, keyPrefix });
    const n = 2_000;
    try {
      const ids = Array.from({ length: n }, (_, i) => `event-${i}`);
      expect(await store.reserveIds('acme', ids.slice(0, n / 2), ttlMs)).toEqual(ids.slice(0, n / 2).map(() => 'new'));
      const applied = await store.apply(ids.map((id, i) => count(`u${i % 100}`, id)));
      expect(applied.every(Boolean)).toBe(true);
      const keys = await keysOf(keyPrefix);
      const buckets = keys.filter((k) => /^.*j:\{acme\}:\d+:\d+:\d+$/.test(k));
      // Each bucket holds its two marks (o, l) beside its ids (scripts.ts IDS).
      const fields = (await Promise.all(buckets.map((k) => cluster.client.hlen(k)))).reduce((a, b) => a + b - 2, 0);
      expect(fields).toBe(n);
      const values = new Set((await Promise.all(buckets.map((k) => cluster.client.hvals(k)))).flat().filter((v) => v.includes(',')));
      expect(values).toEqual(new Set([`${Math.floor(Date.now() / 21_600_000)},1`]));
      // Entities and ids only: the markers of the steps are gone.
      expect(keys.filter((k) => !k.startsWith(`${keyPrefix}j:`) && !k.startsWith(`${keyPrefix}{acme:`))).toEqual([]);
      const perMaster = await Promise.all(cluster.client.nodes('master').map((node) => node.keys(`${keyPrefix}{acme:*`)));
      expect(perMaster.every((k) => k.length > 0)).toBe(true);
    } finally {
      await store.close();
    }
  });
});
