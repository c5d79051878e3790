/**
 * What a Lua-free entity write would cost (issue 31's design step, measured before it is built):
 * the pair's planned calls (store-ceiling.ts) applied three ways, each on a fresh Redis with AOF
 * everysec, in alternating rounds:
 *   store    the window store's apply today (claims by HGET and HSETNX, the entity updates computed
 *            by the APPLY_MARKED script);
 *   guarded  the same claims, then the entity updates computed in this process from a cache of
 *            each entity's fields and sent as finished values: per chunk one script that checks the
 *            partition's mark and, per entity, that a version field still holds what the cache read
 *            (HGET), then HSET and PEXPIRE;
 *   plain    the same, the values sent in MULTI/EXEC without any check (the floor: no Lua at all).
 * The cache here starts full (every entity absent, version 0), so every event is a hit: a floor for
 * the design, not a figure of it (a miss would read the entity first). Numbers are written as
 * String(x), not the store's exact rounding, and the values go through ioredis's framing, so the
 * client's CPU here overstates the design's (the store frames its own, resp-frame.ts). Prints one
 * line per side and round; findings in bench/results/peers/counters.findings.md.
 * `node --import tsx bench/peers/counters/owner-writes.ts [rounds]`.
 */
import { Redis } from 'ioredis';
import { createRedisWindowStore } from '../../../infra/windows/redis/index.js';
import { idDigest } from '../../../infra/windows/event-ids.js';
import { claimBucket } from '../../../infra/windows/redis/claim-layout.js';
import type { ApplyRequest, ApplySource } from '../../../infra/windows/types.js';
import { startRedisServer } from '../../../test/support/redis-server.js';
import { redisCpuMicros } from '../support/cpu.js';
import { applyByPartition, plannedCalls } from './store-ceiling.js';
import { DURABLE_REDIS } from './weir-side.js';
import { EVENTS } from './workload.js';

const ROUNDS = Number(process.argv[2] ?? 2);
const TTL = '90000000';

const GUARDED = `
local mk = KEYS[#KEYS]
local mark = tonumber(redis.call('GET', mk)) or -1
local out, a = {}, 2
for k = 1, #KEYS - 1 do
  local h, n = KEYS[k], tonumber(ARGV[a + 2])
  if tonumber(ARGV[a]) > mark then
    if (redis.call('HGET', h, 'v') or '0') == ARGV[a + 1] then
      redis.call('HSET', h, unpack(ARGV, a + 3, a + 2 + 2 * n))
      redis.call('PEXPIRE', h, ARGV[1])
      out[k] = 1
    else
      out[k] = 2
    end
  else
    out[k] = 0
  end
  a = a + 3 + 2 * n
end
redis.call('SET', mk, ARGV[a], 'PX', ARGV[1])
return out
`;

/** One entity's fields as numbers (bucket fields, and per series l, n, t; m of a max), and its version. */
interface Cached {
  v: number;
  fields: Map<string, number>;
}

/** The updates of a request applied to its cached entity: answers the changed fields as pairs (version last). */
function compute(e: Cached, r: ApplyRequest): string[] {
  const pairs: string[] = [];
  for (const u of r.updates) {
    if (u.kind === 'max') {
      const f = `${u.series}:m`;
      const cur = e.fields.get(f);
      if (cur === undefined || cur < u.value) {
        e.fields.set(f, u.value);
        pairs.push(f, String(u.value));
      }
      continue;
    }
    if (u.bucket < u.floor) continue;
    const b = `${u.series}:${u.bucket}`;
    const cur = e.fields.get(b);
    const t = (e.fields.get(`${u.series}:t`) ?? 0) + u.delta;
    e.fields.set(b, (cur ?? 0) + u.delta);
    e.fields.set(`${u.series}:t`, t);
    pairs.push(b, String((cur ?? 0) + u.delta), `${u.series}:t`, String(t));
    if (cur === undefined) {
      const n = (e.fields.get(`${u.series}:n`) ?? 0) + 1;
      const l = Math.min(e.fields.get(`${u.series}:l`) ?? Infinity, u.bucket);
      e.fields.set(`${u.series}:n`, n);
      e.fields.set(`${u.series}:l`, l);
      pairs.push(`${u.series}:n`, String(n), `${u.series}:l`, String(l));
    }
  }
  e.v += 1;
  pairs.push('v', String(e.v));
  return pairs;
}

async function claim(redis: Redis, call: ApplyRequest[], source: ApplySource): Promise<void> {
  const p = redis.pipeline();
  call.forEach((r, i) => {
    const d = idDigest(r.once!.id);
    const bucket = claimBucket(d);
    const field = d.subarray(4, 12);
    p.hget(`c:{${r.entity.scope}}:1:${bucket}`, field);
    p.hsetnx(`c:{${r.entity.scope}}:2:${bucket}`, field, `${source.topic},${source.partition},${source.offsets[i]}`);
  });
  await p.exec();
}

async function ownerWrites(url: string, calls: ApplyRequest[][], guarded: boolean): Promise<void> {
  const redis = new Redis(url);
  redis.defineCommand('guarded', { lua: GUARDED });
  const cache = new Map<string, Cached>();
  try {
    await applyByPartition(calls, async (call, source) => {
      await claim(redis, call, source);
      const keys: string[] = [];
      const args: string[] = [TTL];
      const m = redis.multi();
      call.forEach((r, i) => {
        const key = `e:{${r.entity.scope}}:${r.entity.id}`;
        let e = cache.get(key);
        if (!e) cache.set(key, (e = { v: 0, fields: new Map() }));
        const expected = String(e.v);
        const pairs = compute(e, r);
        if (guarded) {
          keys.push(key);
          args.push(String(source.offsets[i]), expected, String(pairs.length / 2), ...pairs);
        } else {
          m.hset(key, ...pairs);
          m.pexpire(key, TTL);
        }
      });
      if (guarded) {
        keys.push(`mark:${source.topic}:${source.partition}`);
        args.push(String(source.offsets.at(-1)));
        await (redis as unknown as { guarded(n: number, ...a: string[]): Promise<number[]> }).guarded(keys.length, ...keys, ...args);
      } else {
        m.set(`mark:${source.topic}:${source.partition}`, String(source.offsets.at(-1)), 'PX', TTL);
        await m.exec();
      }
    });
  } finally {
    await redis.quit();
  }
}

async function today(url: string, calls: ApplyRequest[][]): Promise<void> {
  const store = createRedisWindowStore({ url, commandTimeoutMs: 600_000 });
  try {
    await applyByPartition(calls, async (call, source) => void (await store.apply(call, { source })));
  } finally {
    await store.close();
  }
}

const sides: [string, (url: string, calls: ApplyRequest[][]) => Promise<void>][] = [
  ['store', today],
  ['guarded', (url, calls) => ownerWrites(url, calls, true)],
  ['plain', (url, calls) => ownerWrites(url, calls, false)],
];
for (let round = 0; round < ROUNDS; round++) {
  for (const [name, run] of round % 2 === 0 ? sides : [...sides].reverse()) {
    const calls = plannedCalls(Date.now() - 1000, Date.now());
    const server = await startRedisServer(DURABLE_REDIS);
    try {
      const r0 = await redisCpuMicros(server.url);
      const c0 = process.cpuUsage();
      const t0 = performance.now();
      await run(server.url, calls);
      const ms = performance.now() - t0;
      const c = process.cpuUsage(c0);
      const redisUs = (await redisCpuMicros(server.url)) - r0;
      console.log(`round ${round + 1} ${name.padEnd(7)} ${Math.round((EVENTS * 1000) / ms)} events/s, Redis ${(redisUs / EVENTS).toFixed(2)} µs/event, client ${((c.user + c.system) / EVENTS).toFixed(2)} µs/event`);
    } finally {
      await server.kill();
    }
  }
}
