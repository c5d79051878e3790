import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRedisWindowStore } from '../infra/windows/redis/index.js';
import type { SeriesRead, SeriesUpdate, WindowStore } from '../infra/windows/types.js';
import { hasRedisServer, startRedisServer } from './support/redis-server.js';

/**
 * Lowest reads of the Redis store are answered by the client from an HSCAN, not by a scan in Lua
 * (infra/windows/redis/lowest-read.ts). On a redis-server of the test's own, so that its command
 * counts are this test's only.
 */
describe.skipIf(!hasRedisServer())('redis window store: lowest reads found by the client', () => {
  let server: Awaited<ReturnType<typeof startRedisServer>>;
  let admin: Redis;
  let store: WindowStore;
  beforeAll(async () => {
    server = await startRedisServer();
    admin = new Redis(server.url);
    store = createRedisWindowStore({ url: server.url, keyPrefix: 't:' });
  });
  afterAll(async () => {
    await store?.close();
    admin?.disconnect();
    await server?.kill();
  });

  const sum = (series: string, bucket: number): SeriesUpdate => ({ kind: 'sum', series, bucket, delta: 1, floor: 0 });
  const lowest = (series: string, floor: number): SeriesRead => ({ kind: 'lowest', series, floor });
  const calls = async (command: string): Promise<number> => Number(/calls=(\d+)/.exec((await admin.info('commandstats')).split('\n').find((l) => l.startsWith(`cmdstat_${command}:`)) ?? '')?.[1] ?? 0);

  it('reads the lowest bucket of a small hash without HGETALL (no scan in Lua)', async () => {
    const entity = { scope: 'acme', id: 'small' };
    await store.apply([{ entity, updates: [sum('a', 3), sum('a', 9), sum('b', 5)] }]);
    const before = await calls('hgetall');
    expect(await store.read(entity, [lowest('a', 4), lowest('b', 0)])).toEqual([9, 5]);
    expect(await calls('hgetall')).toBe(before);
  });

  it('answers as a scan of the whole hash does, on random hashes, floors and series', async () => {
    // The series names as stored (escaped: a counter's series holds a ':').
    const series = { a: 'a', b: 'b', 'amt:x1': 'amt%3ax1' } as const;
    const names = Object.keys(series) as (keyof typeof series)[];
    // What READ answered before it left the scan to the client: the lowest bucket >= floor among the hash's fields.
    const oracle = `local all, p, floor, low = redis.call('HGETALL', KEYS[1]), ARGV[1] .. ':', tonumber(ARGV[2]), nil
for i = 1, #all, 2 do
  if string.sub(all[i], 1, #p) == p then
    local b = tonumber(string.sub(all[i], #p + 1))
    if b and b >= floor and (not low or b < low) then low = b end
  end
end
return low and string.format('%d', low) or false`;
    let seed = 31;
    const random = (n: number): number => {
      seed = (seed * 1_103_515_245 + 12_345) % 2_147_483_648;
      return seed % n;
    };
    for (let round = 0; round < 40; round++) {
      const entity = { scope: 'acme', id: `r${round}` };
      const updates = names.flatMap((s) => Array.from({ length: random(40) }, () => sum(s, random(200))));
      if (updates.length > 0) await store.apply([{ entity, updates }]);
      const reads = names.map((s) => lowest(s, random(220)));
      const expected = await Promise.all(reads.map(async (r) => {
        const v = (await admin.eval(oracle, 1, `t:{acme:r${round}}`, series[r.series as keyof typeof series], String(r.kind === 'lowest' ? r.floor : 0))) as string | null;
        return v === null ? null : Number(v);
      }));
      const answered = round % 2 === 0 ? await store.read(entity, reads) : (await store.readMany([{ entity, reads }]))[0];
      expect(answered).toEqual(expected);
    }
  });
});
