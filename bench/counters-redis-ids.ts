/**
 * How much of the Redis window store's apply is the event-id work (issue 31). The counters pair's
 * events (bench/peers/counters/workload.ts, planned by planEvent at one instant) go to a fresh
 * redis-server with AOF as the pair runs it, in slices of APPLY_SLICE, six in flight, no Kafka,
 * through one of four variants (alternating, a fresh server each):
 * - `full`: `apply` with once ids (the pipeline's path: APPLY's IDS part, then UPDATES/SERIES);
 * - `entity`: the same `apply` requests without `once` (the entity update alone);
 * - `ids`: `reserveIds` of the same ids (the IDS script alone: lookup and add);
 * - `hsetnx`: the floor of an id claim without Lua, one pipelined HSETNX per id on a bucket hash
 *   of the IDS layout's shape (8-byte digest -> `<slot>,<state>`, one generation sized for the
 *   backlog at 16 to 64 ids a bucket). It claims and nothing more: no window (an id is held until
 *   its bucket is dropped, never counted absent once out of the window), no pruning, no key
 *   expiry, no generations growing with the rate, no reserved/applied states, and no atomicity
 *   with the entity's update (a crash between the two loses or double-counts the event).
 * Reported per event: Redis CPU (INFO cpu), INFO commandstats (EVALSHA with EVAL; the commands the
 * scripts call; EVALSHA's own time less them: Lua and redis.call), calls per event and this
 * process's CPU (the client's; the planning is done before the clock starts).
 *
 * `node --import tsx bench/counters-redis-ids.ts` (WEIR_PEERS_COUNTERS_EVENTS / _ENTITIES size it,
 * the pair's 500,000 over 50,000 by default; WEIR_IDS_ROUNDS the rounds, default 3).
 * Writes bench/results/counters-redis-ids.md.
 */
import './scratch.js';
import os from 'node:os';
import { writeFile } from 'node:fs/promises';
import { Redis } from 'ioredis';
import { idDigest, idSlots } from '../infra/windows/event-ids.js';
import type { ApplyRequest } from '../infra/windows/types.js';
import { createRedisWindowStore } from '../infra/windows/redis/index.js';
import { APPLY_SLICE } from '../pipelines/counters/apply-events.js';
import { startRedisServer } from '../test/support/redis-server.js';
import { redisCpuMicros } from './peers/support/cpu.js';
import { commitOf } from './lib/checkout.js';
import { commandStats } from './lib/redis-commandstats.js';
import { steadyBuckets } from './event-ids.js';
import { EVENTS, ENTITIES, ORG, PARTITIONS } from './peers/counters/workload.js';
import { plannedCalls } from './peers/counters/store-ceiling.js';
import { DURABLE_REDIS } from './peers/counters/weir-side.js';

const ROUNDS = Number(process.env.WEIR_IDS_ROUNDS ?? 3);

const planned = plannedCalls(Date.now(), Date.now()).flat();
const slices: ApplyRequest[][] = [];
for (let i = 0; i < planned.length; i += APPLY_SLICE) slices.push(planned.slice(i, i + APPLY_SLICE));
const N = planned.length;
const ttlMs = planned[0]!.once!.ttlMs;

/** Slices six in flight (one per partition), as the pipeline sends them; `run` answers how many it applied or claimed. */
async function drain<T>(work: T[], run: (slice: T) => Promise<number>): Promise<void> {
  let next = 0;
  let done = 0;
  await Promise.all(
    Array.from({ length: PARTITIONS }, async () => {
      while (next < work.length) {
        const applied = await run(work[next++]!);
        done += applied;
      }
    }),
  );
  // Every id is new: a variant that skipped work would measure less than it claims to.
  if (done !== N) throw new Error(`${done} of ${N} applied`);
}

async function storeVariant(url: string, run: (store: ReturnType<typeof createRedisWindowStore>) => Promise<void>): Promise<void> {
  const store = createRedisWindowStore({ url, commandTimeoutMs: 600_000 });
  try {
    await run(store);
  } finally {
    await store.close();
  }
}

const withoutOnce = slices.map((s) => s.map(({ entity, updates }) => ({ entity, updates })));
const idSlices = slices.map((s) => s.map((r) => r.once!.id));
const grid = idSlots(ttlMs, Date.now());
const buckets = steadyBuckets(N, 1);
const claimValue = `${grid.last},1`;
const claimSlices = idSlices.map((ids) =>
  ids.map((id) => {
    const d = idDigest(id);
    return { key: `w:j:{${ORG}}:${grid.slotMs}:1:${d.readUInt32BE(0) % buckets}`, field: d.subarray(4) };
  }),
);

const variants: Record<string, (url: string) => Promise<void>> = {
  full: (url) => storeVariant(url, (store) => drain(slices, async (s) => (await store.apply(s)).filter(Boolean).length)),
  entity: (url) => storeVariant(url, (store) => drain(withoutOnce, async (s) => (await store.apply(s)).filter(Boolean).length)),
  ids: (url) => storeVariant(url, (store) => drain(idSlices, async (ids) => (await store.reserveIds(ORG, ids, ttlMs)).filter((s) => s === 'new').length)),
  hsetnx: async (url) => {
    const redis = new Redis(url);
    try {
      await drain(claimSlices, async (claims) => {
        const p = redis.pipeline();
        for (const c of claims) p.hsetnx(c.key, c.field, claimValue);
        return ((await p.exec()) ?? []).filter(([, set]) => set === 1).length;
      });
    } finally {
      redis.disconnect();
    }
  },
};

const SCRIPTS = new Set(['evalsha', 'eval']);
/** The bench's own and the client's connection commands, which no script calls. */
const OUTSIDE = /^(info|config\||client\||script\||hello|ping|select|command|quit)/;

const rows: string[] = [];
const detail: string[] = [];
const per = (x: number): string => (x / N).toFixed(2);
for (let round = 0; round < ROUNDS; round++) {
  const names = Object.keys(variants);
  for (const name of round % 2 === 0 ? names : names.reverse()) {
    const redis = await startRedisServer(DURABLE_REDIS);
    try {
      const admin = new Redis(redis.url);
      await admin.config('RESETSTAT');
      admin.disconnect();
      const load = os.loadavg()[0]!.toFixed(1);
      const redisBefore = await redisCpuMicros(redis.url);
      const cpuBefore = process.cpuUsage();
      const started = performance.now();
      await variants[name]!(redis.url);
      const seconds = (performance.now() - started) / 1000;
      const cpu = process.cpuUsage(cpuBefore);
      const redisCpu = (await redisCpuMicros(redis.url)) - redisBefore;
      const stats = await commandStats(redis.url);
      const sum = (pick: (cmd: string) => boolean, of: 'calls' | 'usec'): number => [...stats].filter(([c]) => pick(c)).reduce((a, [, s]) => a + s[of], 0);
      const scripts = (c: string) => SCRIPTS.has(c);
      const called = (c: string) => !SCRIPTS.has(c) && !OUTSIDE.test(c);
      const scriptUs = sum(scripts, 'usec');
      const calledUs = sum(called, 'usec');
      const own = scriptUs > 0 ? per(scriptUs - calledUs) : '–';
      const row = `| ${round + 1} | ${name} | ${load} | ${Math.round(N / seconds)} | ${(redisCpu / N).toFixed(1)} | ${scriptUs > 0 ? per(scriptUs) : '–'} | ${per(calledUs)} | ${own} | ${per(sum(scripts, 'calls'))} | ${per(sum(called, 'calls'))} | ${((cpu.user + cpu.system) / N).toFixed(1)} |`;
      console.log(row);
      rows.push(row);
      const commands = [...stats].filter(([c]) => called(c)).sort((a, b) => b[1].usec - a[1].usec);
      detail.push(`| ${round + 1} | ${name} | ${commands.map(([c, s]) => `${c} ${per(s.usec)} (${per(s.calls)})`).join(', ')} |`);
    } finally {
      await redis.kill();
    }
  }
}

await writeFile(
  new URL('./results/counters-redis-ids.md', import.meta.url),
  `## Counters: the event-id work's share of the Redis window store's apply (issue 31)

Command: \`WEIR_PEERS_COUNTERS_EVENTS=${EVENTS} WEIR_PEERS_COUNTERS_ENTITIES=${ENTITIES} node --import tsx bench/counters-redis-ids.ts\` (${new Date().toISOString().slice(0, 16)} UTC, commit ${commitOf('.')}).
${N.toLocaleString('en')} events of the counters pair over ${ENTITIES.toLocaleString('en')} entities, planned by planEvent, sent in slices of ${APPLY_SLICE}, six in flight, to a
fresh redis-server with AOF everysec each, no Kafka: \`full\` is \`apply\` with once ids, \`entity\` the same requests without
them, \`ids\` \`reserveIds\` of the same ids, \`hsetnx\` one pipelined HSETNX per id on ${buckets} bucket hashes of the id layout's
shape (no window, pruning, expiry or atomicity with the update: the script's header). The variants alternate.

| round | variant | 1-min load | events/s | Redis CPU (µs/event) | EVALSHA (µs/event) | commands called (µs/event) | EVALSHA less its commands (µs/event) | script calls/event | commands/event | client CPU (µs/event) |
| ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |
${rows.join('\n')}

EVALSHA is INFO commandstats' EVALSHA and EVAL (a connection's first call); the commands called are the data commands
(for \`hsetnx\`, the HSETNX sent by the client), each µs per event (calls per event):

| round | variant | commands |
| ---: | --- | --- |
${detail.join('\n')}
`,
);
process.exit(0);
