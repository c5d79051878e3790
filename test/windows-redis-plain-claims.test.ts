import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, describe, expect, it } from 'vitest';
import { idDigest, idSlots } from '../infra/windows/event-ids.js';
import { connectWindowRedis, createRedisWindowStore } from '../infra/windows/redis/index.js';
import { claimBucket } from '../infra/windows/redis/claim-layout.js';
import { parseRedisUrl } from '../infra/windows/redis/url.js';
import type { RedisClient } from '../infra/windows/redis/client.js';
import type { ApplyOptions, ApplyRequest, WindowStore } from '../infra/windows/types.js';
import { hasRedisServer, startRedisServer } from './support/redis-server.js';

/**
 * A consumer's apply on one Redis server (redis/plain-claims.ts): ids claimed by plain commands
 * naming the event's place in the log, updates applied above the partition's applied-through mark.
 * Each case is a way an event reaches the store twice; each must count it once.
 */

const url = process.env.WEIR_TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';
const runPrefix = `test:${randomUUID()}:`;
const admin = new Redis(url);
const DAY_MS = 86_400_000;

afterAll(async () => {
  const leftovers = await admin.keys(`${runPrefix}*`);
  if (leftovers.length > 0) await admin.unlink(...leftovers);
  await admin.quit();
});

const count = (entity: string, id: string): ApplyRequest => ({ entity: { scope: 'acme', id: entity }, updates: [{ kind: 'sum', series: 'n', bucket: 1, delta: 1, floor: 0 }], once: { id, ttlMs: DAY_MS } });
const from = (partition: number, offsets: number[]): ApplyOptions => ({ source: { topic: 'events', partition, offsets } });
const readCount = async (store: WindowStore, entity: string): Promise<number> =>
  (await store.read({ scope: 'acme', id: entity }, [{ kind: 'sum', series: 'n', floor: 0 }]))[0] ?? 0;

/**
 * A store whose update scripts (sent by sendCommand, as the claims are) each wait for
 * `before` first: a member stalled between its claims and its updates, or killed there when it throws.
 */
function stalledStore(keyPrefix: string, before: () => Promise<void>): WindowStore {
  const client = connectWindowRedis(parseRedisUrl(url), 1000);
  const stalled = new Proxy(client, {
    get(target, prop, receiver) {
      const value = Reflect.get(target, prop, receiver) as unknown;
      if (prop !== 'sendCommand' || typeof value !== 'function') return value;
      // Claims, pipelines and auto-pipelines send through here too; the framed update scripts are their own Command class.
      return async (command: object, ...rest: unknown[]) => {
        if (command.constructor.name === 'FramedCall') await before();
        return (value as (...a: unknown[]) => Promise<unknown>).call(target, command, ...rest);
      };
    },
  }) as RedisClient;
  return createRedisWindowStore({ url, keyPrefix, client: stalled });
}

/** A store of its own key prefix for one case, closed after it. */
async function withStore(name: string, use: (store: WindowStore, keyPrefix: string) => Promise<void>): Promise<void> {
  const keyPrefix = `${runPrefix}${name}:`;
  const store = createRedisWindowStore({ url, keyPrefix });
  try {
    await use(store, keyPrefix);
  } finally {
    await store.close();
  }
}

const killed = (): Promise<void> => Promise.reject(new Error('killed between claims and updates'));

describe('redis window store: a consumer apply claims ids without a script', () => {
  it('claims a new id with one HSETNX in the newest claim slot, naming the event place in the log, and marks the partition applied through its last offset', async () => {
    await withStore('layout', async (store, keyPrefix) => {
      expect(await store.apply([count('u1', 'e1'), count('u2', 'e2')], from(3, [40, 41]))).toEqual([true, true]);
      const slot = Math.floor(Date.now() / DAY_MS);
      const digest = idDigest('e1');
      const claims = `${keyPrefix}k:{acme}:${DAY_MS}:${slot}:${claimBucket(digest)}`;
      expect((await admin.hgetBuffer(claims, digest.subarray(4)))?.toString()).toMatch(/^events,3,40,\d+$/);
      // Searched while it is the newest slot or the one before: it expires at the end of the next.
      expect(await admin.pexpiretime(claims)).toBe((slot + 2) * DAY_MS);
      expect(await admin.get(`${keyPrefix}p:events:3`)).toBe('41');
      // Nothing in today's layout of ids, and a scope that had none there never searches it.
      expect(await admin.keys(`${keyPrefix}j:*`)).toEqual([]);
      expect(await admin.get(`${keyPrefix}k:{acme}:${DAY_MS}:since`)).toBe('0');
      expect(await readCount(store, 'u1')).toBe(1);
    });
  });

  it('keeps a partition mark per topic as the log names it: a deployment of another Kafka namespace on the same Redis applies its own offsets', async () => {
    const keyPrefix = `${runPrefix}namespaces:`;
    const blue = createRedisWindowStore({ url, keyPrefix, logNamespace: 'blue' });
    const green = createRedisWindowStore({ url, keyPrefix, logNamespace: 'green' });
    try {
      expect(await blue.apply([count('b1', 'blue-1')], from(0, [500]))).toEqual([true]);
      expect(await green.apply([count('g1', 'green-1')], from(0, [10]))).toEqual([true]);
      expect(await admin.get(`${keyPrefix}p:blue.events:0`)).toBe('500');
      expect(await admin.get(`${keyPrefix}p:green.events:0`)).toBe('10');
    } finally {
      await blue.close();
      await green.close();
    }
  });

  it('counts a slice once when it is delivered again after a crash between its claims and its updates, and again after its updates', async () => {
    const keyPrefix = `${runPrefix}crash:`;
    const slice = [count('u1', 'r1'), count('u1', 'r2'), count('u2', 'r3')];
    const dying = stalledStore(keyPrefix, killed);
    await expect(dying.apply(slice, from(0, [7, 8, 9]))).rejects.toThrow('killed');
    await dying.close();
    const store = createRedisWindowStore({ url, keyPrefix });
    try {
      expect(await readCount(store, 'u1')).toBe(0);
      expect(await store.apply(slice, from(0, [7, 8, 9]))).toEqual([true, true, true]);
      // Applied, not committed: delivered once more.
      expect(await store.apply(slice, from(0, [7, 8, 9]))).toEqual([false, false, false]);
      expect(await readCount(store, 'u1')).toBe(2);
      expect(await readCount(store, 'u2')).toBe(1);
    } finally {
      await store.close();
    }
  });

  it('counts an event sent twice under two entities on two partitions once, whichever comes first, across a crash between claim and update', async () => {
    const keyPrefix = `${runPrefix}partitions:`;
    const store = createRedisWindowStore({ url, keyPrefix });
    const dying = stalledStore(keyPrefix, killed);
    try {
      expect(await store.apply([count('u1', 'dup')], from(0, [5]))).toEqual([true]);
      expect(await store.apply([count('u2', 'dup')], from(1, [9]))).toEqual([false]);
      // Partition 0's member claims dup2 and dies; partition 1's copy finds the claim and skips it;
      // partition 0's redelivery applies it.
      await expect(dying.apply([count('u1', 'dup2')], from(0, [6]))).rejects.toThrow('killed');
      expect(await store.apply([count('u2', 'dup2')], from(1, [10]))).toEqual([false]);
      expect(await store.apply([count('u1', 'dup2')], from(0, [6]))).toEqual([true]);
      expect(await readCount(store, 'u1')).toBe(2);
      expect(await readCount(store, 'u2')).toBe(0);
    } finally {
      await store.close();
      await dying.close();
    }
  });

  it('counts a zombie member late slice once, whether its updates land after the new owner or before', async () => {
    const keyPrefix = `${runPrefix}zombie:`;
    let stalled!: () => void;
    let release!: () => void;
    const claimed = new Promise<void>((r) => (stalled = r));
    const gate = new Promise<void>((r) => (release = r));
    const zombie = stalledStore(keyPrefix, () => (stalled(), gate));
    const owner = createRedisWindowStore({ url, keyPrefix });
    try {
      const slice = [count('u1', 'z1'), count('u1', 'z2')];
      // The zombie claims both ids first, then stalls before its updates (a session timed out).
      const late = zombie.apply(slice, from(2, [100, 101]));
      await claimed;
      expect(await owner.apply(slice, from(2, [100, 101]))).toEqual([true, true]);
      release();
      expect(await late).toEqual([false, false]);
      // A late slice reaching past the owner's mark applies only what is new; the owner then skips it.
      expect(await owner.apply([count('u1', 'z3')], from(2, [102]))).toEqual([true]);
      expect(await zombie.apply([count('u1', 'z2'), count('u1', 'z3'), count('u1', 'z4')], from(2, [101, 102, 103]))).toEqual([false, false, true]);
      expect(await owner.apply([count('u1', 'z4')], from(2, [103]))).toEqual([false]);
      expect(await readCount(owner, 'u1')).toBe(4);
    } finally {
      await owner.close();
      await zombie.close();
    }
  });

  it('never passes the mark over a chunk whose script did not run: the redelivery counts every event once', async () => {
    const keyPrefix = `${runPrefix}chunks:`;
    // 250 requests make three scripts; the first fails, the later ones must not move the mark past it.
    const slice = Array.from({ length: 250 }, (_, i) => count('u1', `c${i}`));
    const offsets = slice.map((_, i) => 1000 + i);
    let calls = 0;
    const failingFirst = stalledStore(keyPrefix, () => (calls++ === 0 ? killed() : Promise.resolve()));
    const store = createRedisWindowStore({ url, keyPrefix });
    try {
      await expect(failingFirst.apply(slice, from(4, offsets))).rejects.toThrow('killed');
      expect(calls).toBeGreaterThan(1);
      expect((await store.apply(slice, from(4, offsets))).filter(Boolean).length).toBeGreaterThan(0);
      expect(await readCount(store, 'u1')).toBe(250);
    } finally {
      await store.close();
      await failingFirst.close();
    }
  });

  it('counts a claim in the slot before as long as it is in the window, and no longer', async () => {
    await withStore('window', async (store, keyPrefix) => {
      const before = Math.floor(Date.now() / DAY_MS) - 1;
      const claimIn = async (id: string, second: number): Promise<void> => {
        const digest = idDigest(id);
        await admin.hset(`${keyPrefix}k:{acme}:${DAY_MS}:${before}:${claimBucket(digest)}`, digest.subarray(4), `events,9,1,${second}`);
      };
      // Claimed on another partition at the start of the slot before (more than a day ago), and in its last second.
      await claimIn('gone', 0);
      await claimIn('kept', DAY_MS / 1000 - 1);
      expect(await store.reserveIds('acme', ['gone', 'kept'], DAY_MS)).toEqual(['new', 'applied']);
      await store.unreserveIds('acme', ['gone'], DAY_MS);
      expect(await store.apply([count('u1', 'gone'), count('u1', 'kept')], from(0, [1, 2]))).toEqual([true, false]);
      expect(await readCount(store, 'u1')).toBe(1);
    });
  });

  it('applies an id once when a call repeats it, even at one offset (a message of two requests)', async () => {
    await withStore('repeat', async (store) => {
      expect(await store.apply([count('u1', 'twice'), count('u2', 'twice'), count('u1', 'once')], from(0, [3, 3, 4]))).toEqual([true, false, true]);
      expect(await readCount(store, 'u2')).toBe(0);
    });
  });

  it('keeps organizations apart: one event id counts once in each, in one call and across calls', async () => {
    await withStore('tenants', async (store) => {
      const other = (entity: string, id: string): ApplyRequest => ({ ...count(entity, id), entity: { scope: 'globex', id: entity } });
      expect(await store.apply([count('u1', 'shared'), other('u1', 'shared')], from(0, [1, 2]))).toEqual([true, true]);
      expect(await store.apply([other('u2', 'later'), count('u2', 'later')], from(0, [3, 4]))).toEqual([true, true]);
      expect(await store.apply([other('u1', 'shared')], from(1, [1]))).toEqual([false]);
      expect(await readCount(store, 'u1')).toBe(1);
      expect((await store.read({ scope: 'globex', id: 'u1' }, [{ kind: 'sum', series: 'n', floor: 0 }]))[0]).toBe(1);
    });
  });

  it('applies an id intake reserved, and answers intake applied once a consumer claimed it', async () => {
    await withStore('intake', async (store) => {
      expect(await store.reserveIds('acme', ['i1', 'i2'], DAY_MS)).toEqual(['new', 'new']);
      expect(await store.apply([count('u1', 'i1')], from(0, [1]))).toEqual([true]);
      expect(await store.reserveIds('acme', ['i1', 'i2', 'i3'], DAY_MS)).toEqual(['applied', 'reserved', 'new']);
      await store.unreserveIds('acme', ['i1', 'i2'], DAY_MS);
      expect(await store.reserveIds('acme', ['i1'], DAY_MS)).toEqual(['applied']);
      expect(await store.apply([count('u1', 'i1')], from(0, [1]))).toEqual([false]);
      expect(await readCount(store, 'u1')).toBe(1);
    });
  });

  it('still finds ids applied in today layout before the scope first claim (an upgrade), for as long as they live there', async () => {
    await withStore('upgrade', async (store, keyPrefix) => {
      // Applied by the earlier code, which had no source.
      expect(await store.apply([count('u1', 'old')])).toEqual([true]);
      expect(await store.apply([count('u2', 'old'), count('u2', 'new')], from(0, [1, 2]))).toEqual([false, true]);
      expect(Number(await admin.get(`${keyPrefix}k:{acme}:${DAY_MS}:since`))).toBe(idSlots(DAY_MS, Date.now()).expireAt);
      // Another process reads the same record.
      const other = createRedisWindowStore({ url, keyPrefix });
      expect(await other.apply([count('u3', 'old')], from(1, [1]))).toEqual([false]);
      await other.close();
      expect(await readCount(store, 'u1')).toBe(1);
      expect(await readCount(store, 'u2')).toBe(1);
    });
  });

  it.runIf(hasRedisServer())('fails an apply Redis stops answering with every command of it handled, the earlier layout searched too (no unhandled rejection)', async () => {
    const server = await startRedisServer();
    const store = createRedisWindowStore({ url: server.url, keyPrefix: 'hung:', commandTimeoutMs: 200 });
    const unhandled: unknown[] = [];
    const onUnhandled = (reason: unknown): number => unhandled.push(reason);
    process.on('unhandledRejection', onUnhandled);
    try {
      // An id in today's layout, and a first claim that records it: the claims below search that layout too.
      expect(await store.apply([count('u1', 'old')])).toEqual([true]);
      expect(await store.apply([count('u2', 'old')], from(0, [1]))).toEqual([false]);
      server.pause();
      await expect(store.apply([count('u3', 'a'), count('u4', 'b')], from(0, [2, 3]))).rejects.toThrow(/timed out/);
      // Past every command's timeout: a rejection nobody awaited would have been reported by now.
      await new Promise((resolve) => setTimeout(resolve, 600));
      expect(unhandled).toEqual([]);
    } finally {
      process.off('unhandledRejection', onUnhandled);
      await server.kill();
      await store.close();
    }
  });
});
