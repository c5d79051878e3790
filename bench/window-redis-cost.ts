/**
 * Redis CPU per operation of the Redis window store, from the server's own accounts (INFO cpu and
 * commandstats): what each script costs per event and the commands it runs, beside the CPU of this
 * process (the store's client: building the calls, ioredis, the replies).
 * `npx tsx bench/window-redis-cost.ts [events]` (Redis from WEIR_BENCH_REDIS_URL, default
 * redis://127.0.0.1:6379; default 100,000 events over 10,000 entities, calls of 500, six in flight).
 * The organization's 24-hour id window is steady: its buckets already hold as many ids from each of
 * the earlier six-hour slots, as a steady rate leaves them (steadyHistory). Prints a markdown table.
 */
import './scratch.js';
import { randomBytes, randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { idSlots } from '../infra/windows/event-ids.js';
import { createRedisWindowStore } from '../infra/windows/redis/index.js';
import type { ApplyRequest, SeriesUpdate } from '../infra/windows/types.js';
import { dropKeys, keyBytes, steadyBuckets } from './event-ids.js';

const url = process.env.WEIR_BENCH_REDIS_URL ?? 'redis://127.0.0.1:6379';
const N = Number(process.argv[2] ?? 100_000);
const ENTITIES = 10_000;
const TTL_MS = 86_400_000;
const CALL = 500;
const IN_FLIGHT = 6;

interface Account {
  cpuUs: number;
  commands: Map<string, number>;
}

async function account(admin: Redis): Promise<Account> {
  const commands = new Map<string, number>();
  for (const line of (await admin.info('commandstats')).split('\n')) {
    const m = /^cmdstat_([^:]+):calls=(\d+)/.exec(line);
    if (m) commands.set(m[1]!, Number(m[2]));
  }
  const cpu = await admin.info('cpu');
  const seconds = (name: string): number => Number(new RegExp(`${name}:([\\d.]+)`).exec(cpu)?.[1] ?? 0);
  return { cpuUs: (seconds('used_cpu_user') + seconds('used_cpu_sys')) * 1e6, commands };
}

/**
 * Fills the id buckets as a steady rate of N ids a slot leaves them (scripts.ts IDS): one generation
 * sized for it, holding N ids of each slot of the window before the current one and of the slots
 * not yet pruned before it. A bucket is pruned once in two slots, so half of them (the even ones)
 * are due in this run and still hold two slots out of the window, the others one.
 */
async function steadyHistory(admin: Redis, prefix: string): Promise<void> {
  const g = idSlots(TTL_MS, Date.now());
  const buckets = steadyBuckets(N, g.last - g.first + 1);
  const meta = `${prefix}j:{acme}:${g.slotMs}`;
  const before = g.expireAt - g.slotMs;
  await admin.hset(meta, 'top', 1, 'c', g.last - 1, 'n', N, 'e', before + 3 * g.slotMs, '1', `${buckets},${g.last - 1},${before}`);
  const marks = admin.pipeline();
  // Keys' expiries were set at staggered slots; this one's is due in the run for a quarter of them.
  for (let b = 0; b < buckets; b++) marks.hset(`${meta}:1:${b}`, 'o', g.first - 2 + (b % 2), 'l', before + (b % 4) * g.slotMs);
  await marks.exec();
  for (let s = g.first - 2; s < g.last; s++) {
    const p = admin.pipeline();
    for (let i = 0; i < N; i++) {
      const d = randomBytes(12);
      const b = d.readUInt32BE(0) % buckets;
      if (s === g.first - 2 && b % 2 === 1) continue;
      p.hset(`${meta}:1:${b}`, d.subarray(4, 12), `${s},1`);
    }
    await p.exec();
  }
  const expiry = admin.pipeline();
  for (let b = 0; b < buckets; b++) expiry.pexpireat(`${meta}:1:${b}`, before + (b % 4) * g.slotMs);
  await expiry.exec();
}

/** Ids the buckets of a pattern hold: their fields less the two marks (o, l) of each. */
async function idsHeld(admin: Redis, pattern: string): Promise<number> {
  let held = 0;
  let cursor = '0';
  do {
    const [next, keys] = await admin.scan(cursor, 'MATCH', pattern, 'COUNT', 10_000);
    cursor = next;
    const p = admin.pipeline();
    for (const k of keys) p.hlen(k);
    for (const [, n] of (await p.exec()) ?? []) held += Number(n) - 2;
  } while (cursor !== '0');
  return held;
}

async function inCalls(run: (from: number, to: number) => Promise<unknown>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: IN_FLIGHT }, async () => {
      while (next < N) {
        const from = next;
        next = Math.min(N, next + CALL);
        await run(from, next);
      }
    }),
  );
}

const admin = new Redis(url);
const prefix = `bench:${randomUUID()}:`;
const store = createRedisWindowStore({ url, keyPrefix: prefix });
const now = Date.now();
const minute = Math.floor(now / 60_000);
const hour = Math.floor(now / 3_600_000);
/** The counters benchmark's three series: a 1-hour count, a 24-hour sum of amounts, last_seen. */
const updates: SeriesUpdate[] = [
  { kind: 'sum', series: 'count_1h', bucket: minute, delta: 1, floor: minute - 60 },
  { kind: 'sum', series: 'amount_24h', bucket: hour, delta: 12.5, floor: hour - 24 },
  { kind: 'max', series: 'last_seen', value: now },
];
const requests = (ids: string[], from: number, to: number, once: boolean): ApplyRequest[] =>
  ids.slice(from, to).map((id, j) => ({ entity: { scope: 'acme', id: `u${(from + j) % ENTITIES}` }, updates, ...(once ? { once: { id, ttlMs: TTL_MS } } : {}) }));

const rows: string[] = [];
async function measure(name: string, run: (from: number, to: number) => Promise<unknown>): Promise<void> {
  const before = await account(admin);
  const client = process.cpuUsage();
  await inCalls(run);
  const clientUs = process.cpuUsage(client);
  const after = await account(admin);
  const per = (calls: number): string => (calls / N).toFixed(2);
  const calls = (cmd: string): number => (after.commands.get(cmd) ?? 0) - (before.commands.get(cmd) ?? 0);
  const writes = ['hset', 'hsetnx', 'hincrby', 'hincrbyfloat', 'hdel', 'pexpire', 'pexpireat'].reduce((a, c) => a + calls(c), 0);
  rows.push(`| ${name} | ${((after.cpuUs - before.cpuUs) / N).toFixed(1)} | ${per(calls('hget') + calls('hmget'))} | ${per(calls('hgetall'))} | ${per(writes)} | ${((clientUs.user + clientUs.system) / N).toFixed(1)} |`);
}

try {
  await steadyHistory(admin, prefix);
  const ids = Array.from({ length: N }, (_, i) => `evt-${randomUUID()}-${i}`);
  const topicIds = Array.from({ length: N }, (_, i) => `evt-${randomUUID()}-${i}`);
  // Entities exist before the measured applies, as in a running system.
  await inCalls((from, to) => store.apply(requests(ids, from, to, false)));
  await measure('reserveIds of a new id (intake)', (from, to) => store.reserveIds('acme', ids.slice(from, to), TTL_MS));
  await measure('apply with the reserved id, three series (pipeline)', (from, to) => store.apply(requests(ids, from, to, true)));
  await measure('apply with a new id, three series (an event put on the topic directly)', (from, to) => store.apply(requests(topicIds, from, to, true)));
  await measure('apply without an id, three series', (from, to) => store.apply(requests(ids, from, to, false)));
  await measure('reserveIds of an id applied before (a re-sent event)', (from, to) => store.reserveIds('acme', ids.slice(from, to), TTL_MS));
  const { bytes } = await keyBytes(admin, `${prefix}j:*`);
  const held = await idsHeld(admin, `${prefix}j:*:*:*`);
  console.log(`Redis CPU per event (INFO cpu) and commands per event (commandstats), ${N.toLocaleString('en-US')} events, ${ENTITIES.toLocaleString('en-US')} entities, steady 24-hour id window; ${(bytes / held).toFixed(1)} B per remembered id.\n`);
  console.log('| operation | Redis CPU (µs/event) | HGET, HMGET | HGETALL | writes | client process CPU (µs/event) |\n| --- | ---: | ---: | ---: | ---: | ---: |');
  console.log(rows.join('\n'));
} finally {
  await store.close();
  await dropKeys(admin, `${prefix}*`);
  await admin.quit();
}
