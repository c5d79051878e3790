/**
 * The floor under the Redis window store (issue 31): what the same durable work costs Redis when the
 * consumer keeps the windows and Redis only stores them. Both sides apply the counters pair's events
 * (bench/peers/counters/workload.ts, planned by planEvent at one instant) to a fresh redis-server with
 * AOF everysec, in calls of 500, six in flight, no Kafka:
 * - `store`: Weir's Redis window store (`apply` with once ids and each call's partition and offsets, as
 *   the consumer sends them: plain id claims, then the entity script; plain-claims.ts);
 * - `floor`: the design the findings name as the next step, sketched here with no Lua: per call one
 *   pipelined HGET per event id (one bucket of one generation), an HGETALL per entity on its first
 *   touch, the new field values computed in this process, then one MULTI/EXEC writing per event the
 *   entity's changed fields, its expiry and the id. It is a floor, not a store: no eviction of old
 *   buckets (none leave the window in a backlog this short), no id expiry or pruning, no cluster,
 *   no concurrent writers.
 * Three rounds, the two alternating; Redis CPU (INFO cpu) and this process's CPU per event.
 *
 * `node --import tsx bench/counters-redis-floor.ts` (WEIR_PEERS_COUNTERS_EVENTS / _ENTITIES size it).
 * Writes bench/results/counters-redis-floor.md.
 */
import './scratch.js';
import os from 'node:os';
import { writeFile } from 'node:fs/promises';
import { Redis } from 'ioredis';
import { idDigest } from '../infra/windows/event-ids.js';
import { createRedisWindowStore } from '../infra/windows/redis/index.js';
import type { ApplyRequest, ApplySource } from '../infra/windows/types.js';
import { startRedisServer } from '../test/support/redis-server.js';
import { redisCpuMicros } from './peers/support/cpu.js';
import { DURABLE_REDIS } from './peers/counters/weir-side.js';
import { EVENTS, ENTITIES, ORG } from './peers/counters/workload.js';
import { applyByPartition, plannedCalls } from './peers/counters/store-ceiling.js';
import { commitOf } from './lib/checkout.js';

const ROUNDS = 3;
const ID_BUCKETS = 65_536;
const TTL = String(100 * 24 * 3_600_000);

const calls = plannedCalls(Date.now(), Date.now());

/** Calls of 500, six in flight (one per partition, with its offsets), as the pair's store ceiling sends them. */
const drain = (apply: (call: ApplyRequest[], source: ApplySource) => Promise<void>): Promise<void> => applyByPartition(calls, apply);

async function storeSide(url: string): Promise<void> {
  const store = createRedisWindowStore({ url, commandTimeoutMs: 600_000 });
  try {
    await drain(async (call, source) => void (await store.apply(call, { source })));
  } finally {
    await store.close();
  }
}

/** An entity's fields as this process holds them (the Redis hash's layout: `<series>:<bucket>`, `:t`, `:n`, `:l`, `:m`). */
type Fields = Map<string, number>;

async function floorSide(url: string): Promise<void> {
  const redis = new Redis(url, { enableAutoPipelining: true });
  const held = new Map<string, Fields>();
  const loading = new Map<string, Promise<Fields>>();
  const load = (key: string): Promise<Fields> => {
    let p = loading.get(key);
    if (!p) {
      p = redis.hgetall(key).then((all) => {
        const f: Fields = new Map(Object.entries(all).map(([k, v]) => [k, Number(v)]));
        held.set(key, f);
        return f;
      });
      loading.set(key, p);
    }
    return p;
  };
  try {
    await drain(async (call) => {
      const digests = call.map((r) => idDigest(r.once!.id));
      const idKeys = digests.map((d) => `j:{${ORG}}:${d.readUInt32BE(0) % ID_BUCKETS}`);
      const seen = await Promise.all(digests.map((d, i) => redis.hgetBuffer(idKeys[i]!, d.subarray(4))));
      const keys = call.map((r) => `w:{${r.entity.scope}:${r.entity.id}}`);
      const entities = await Promise.all(keys.map((k) => held.get(k) ?? load(k)));
      const tx = redis.multi();
      call.forEach((r, i) => {
        if (seen[i]) return;
        const f = entities[i]!;
        const set: (string | number)[] = [];
        for (const u of r.updates) {
          if (u.kind === 'max') {
            const m = `${u.series}:m`;
            if (!(f.get(m)! >= u.value)) {
              set.push(m, u.value);
              f.set(m, u.value);
            }
            continue;
          }
          const b = `${u.series}:${u.bucket}`;
          const before = f.get(b);
          const t = (f.get(`${u.series}:t`) ?? 0) + u.delta;
          f.set(b, (before ?? 0) + u.delta);
          f.set(`${u.series}:t`, t);
          set.push(b, f.get(b)!, `${u.series}:t`, t);
          if (before === undefined) {
            const n = (f.get(`${u.series}:n`) ?? 0) + 1;
            const l = Math.min(f.get(`${u.series}:l`) ?? u.bucket, u.bucket);
            f.set(`${u.series}:n`, n);
            f.set(`${u.series}:l`, l);
            set.push(`${u.series}:n`, n, `${u.series}:l`, l);
          }
        }
        tx.hset(keys[i]!, ...set).pexpire(keys[i]!, TTL).hset(idKeys[i]!, digests[i]!.subarray(4), '1');
      });
      await tx.exec();
    });
  } finally {
    redis.disconnect();
  }
}

const sides = { store: storeSide, floor: floorSide };
const rows: string[] = [];
for (let round = 0; round < ROUNDS; round++) {
  const order = round % 2 === 0 ? (['store', 'floor'] as const) : (['floor', 'store'] as const);
  for (const side of order) {
    const redis = await startRedisServer(DURABLE_REDIS);
    try {
      const load = os.loadavg()[0]!.toFixed(1);
      const redisBefore = await redisCpuMicros(redis.url);
      const cpuBefore = process.cpuUsage();
      const started = performance.now();
      await sides[side](redis.url);
      const seconds = (performance.now() - started) / 1000;
      const cpu = process.cpuUsage(cpuBefore);
      const redisCpu = (await redisCpuMicros(redis.url)) - redisBefore;
      const row = `| ${round + 1} | ${side} | ${load} | ${Math.round(EVENTS / seconds)} | ${(redisCpu / EVENTS).toFixed(1)} | ${((cpu.user + cpu.system) / EVENTS).toFixed(1)} |`;
      console.log(row);
      rows.push(row);
    } finally {
      await redis.kill();
    }
  }
}

await writeFile(
  new URL('./results/counters-redis-floor.md', import.meta.url),
  `## Counters: the Redis window store against the floor of the same durable writes (issue 31)

Command: \`node --import tsx bench/counters-redis-floor.ts\` (${new Date().toISOString().slice(0, 16)} UTC, commit ${commitOf('.')}).
${EVENTS.toLocaleString('en')} events of the counters pair over ${ENTITIES.toLocaleString('en')} entities, applied in calls of 500, six in flight, to a fresh
redis-server with AOF everysec each; \`store\` is Weir's window store, \`floor\` the same writes with the windows kept in this
process and no Lua (see the script's header for what the floor leaves out). The two alternate.

| round | side | 1-min load | events/s | Redis CPU (µs/event) | client CPU (µs/event) |
| ---: | --- | ---: | ---: | ---: | ---: |
${rows.join('\n')}
`,
);
