/**
 * The Weir side of the counters pair: per round a fresh window store (a redis-server with AOF, fsync
 * every second; or, for the embedded default, a fresh LMDB file), the group `weir.counters` set back
 * to the start of `events`, and a Weir process (the counters service, `npm start`'s node options)
 * draining the backlog; then the sample read over HTTP and checked and, on Redis, the window store's
 * own ceiling taken on another fresh Redis.
 */
import { once } from 'node:events';
import { createInterface } from 'node:readline';
import type { Admin } from 'kafkajs';
import { spawnBenchServer } from '../../bench-server.js';
import { EVENTS_TOPIC } from '../../../pipelines/counters/apply-events.js';
import { startRedisServer } from '../../../test/support/redis-server.js';
import { fmt, type Side } from '../harness.js';
import { coreMicros, coreShares, idleShare, machineTimes, processCpuMicros, redisCpuMicros, redisPid } from '../support/cpu.js';
import { killOnExit } from '../support/kill-on-exit.js';
import { waitDrained } from './drain.js';
import { storeCeiling } from './store-ceiling.js';
import { counterConfig, entityOf, EVENTS, mismatches, ORG, sampleEntities, type Values } from './workload.js';

const GROUP = 'weir.counters';
const API_KEY = 'peers-key';
const DRAIN_TIMEOUT_MS = 15 * 60_000;
export const DURABLE_REDIS = ['--appendonly', 'yes', '--appendfsync', 'everysec'];

export interface WeirContext {
  admin: Admin;
  brokers: string[];
  brokerPid: number;
  /** The chDB directory holding the counter configuration, kept across rounds. */
  chdbPath: string;
  dataDir: () => Promise<string>;
  filledAt: () => number;
  notes: string[];
  ceilings: number[];
}

/** Where the Weir side keeps its windows: Redis (REDIS_URL) or the embedded default, LMDB under DATA_DIR. */
export type WeirStore = 'redis' | 'lmdb';

const env = (ctx: WeirContext, dataDir: string, redisUrl: string | undefined): Record<string, string> => ({
  KAFKA_BROKERS: ctx.brokers.join(','),
  ...(redisUrl ? { REDIS_URL: redisUrl } : {}),
  DATA_DIR: dataDir,
  CHDB_PATH: ctx.chdbPath,
  CLICKHOUSE_DATABASE: 'peers',
  API_KEYS: `${ORG}:${API_KEY}`,
  RATE_LIMIT_PER_MINUTE: '1000000',
});

const released = new WeakMap<import('node:child_process').ChildProcess, () => void>();
/** A Weir process of the pair, killed if the pair's process exits before stopping it. */
async function spawnWeir(env: Record<string, string>, processUrl = weirProcess) {
  const started = await spawnBenchServer(processUrl, env);
  released.set(started.child, killOnExit(started.child));
  return started;
}

const weirProcess = new URL('./weir-process.ts', import.meta.url).href;
const headers = { 'content-type': 'application/json', 'x-org-id': ORG, 'x-api-key': API_KEY };

async function stop(child: import('node:child_process').ChildProcess): Promise<void> {
  released.get(child)?.();
  if (child.exitCode !== null || child.signalCode !== null) return;
  child.kill('SIGTERM');
  await once(child, 'exit');
}

/** Saves the counter configuration (in chDB, which the rounds' processes then read) before the topic is filled. */
export async function configureWeir(ctx: WeirContext): Promise<void> {
  const redis = await startRedisServer();
  const { url, child } = await spawnWeir(env(ctx, await ctx.dataDir(), redis.url));
  try {
    const res = await fetch(`${url}/v1/counters/${ORG}`, { method: 'PUT', headers, body: JSON.stringify(counterConfig) });
    if (res.status !== 200) throw new Error(`counter configuration: ${res.status} ${await res.text()}`);
  } finally {
    await stop(child);
    await redis.kill();
  }
}

async function readSample(url: string): Promise<Map<number, { values: Values; now: number }>> {
  const read = new Map<number, { values: Values; now: number }>();
  for (const entity of sampleEntities()) {
    const res = await fetch(`${url}/v1/entities/${ORG}/${entityOf(entity)}/realtime`, { headers });
    const body = (await res.json()) as { data: { counters: Record<string, number | string | null>; as_of: string } };
    const c = body.data.counters;
    read.set(entity, { now: Date.parse(body.data.as_of), values: { count1h: Number(c.txn_count_1h), sum24h: Number(c.txn_amount_24h), lastSeen: c.txn_last_seen === null ? null : Date.parse(String(c.txn_last_seen)) } });
  }
  return read;
}

/**
 * Counts, in the process's JSON log lines (stdout), the batches whose handling failed (kafkajs
 * retries them) and the consumer restarts after a crash: the measured signs of a backlog that
 * outruns the window store's command timeout.
 */
function troubleCounter(child: import('node:child_process').ChildProcess): { failedBatches: number; restarts: number } {
  const counts = { failedBatches: 0, restarts: 0 };
  createInterface({ input: child.stdout! }).on('line', (line) => {
    if (line.includes('Error when calling eachBatch')) counts.failedBatches++;
    if (line.includes('Restarting the consumer')) counts.restarts++;
  });
  return counts;
}

/**
 * `processUrl`: the Weir process to run, by default this checkout's (bench/peers/counters-checkouts.ts
 * runs other checkouts' beside it).
 */
export function weirSide(ctx: WeirContext, store: WeirStore, processUrl = weirProcess): Side {
  return {
    name: store === 'redis' ? 'Weir on Kafka + Redis (counters service, Redis AOF everysec, default timeouts)' : 'Weir on Kafka + LMDB (counters service, the embedded default window store)',
    async run(round) {
      const redis = store === 'redis' ? await startRedisServer(DURABLE_REDIS) : undefined;
      let ceilingRedis: Awaited<ReturnType<typeof startRedisServer>> | undefined;
      try {
        await ctx.admin.resetOffsets({ groupId: GROUP, topic: EVENTS_TOPIC, earliest: true });
        const startedAt = performance.now();
        // A fresh DATA_DIR a round: on LMDB, a fresh store, so every event id is new as on a fresh Redis.
        const { url, child } = await spawnWeir(env(ctx, await ctx.dataDir(), redis?.url), processUrl);
        const trouble = troubleCounter(child);
        const redisServerPid = redis ? await redisPid(redis.url) : undefined;
        const cpu = async () => ({
          at: performance.now(),
          weir: await processCpuMicros(child.pid!),
          redis: redis ? await redisCpuMicros(redis.url) : 0,
          broker: await processCpuMicros(ctx.brokerPid),
          weirCore: await coreMicros(child.pid!),
          redisCore: redisServerPid ? await coreMicros(redisServerPid) : undefined,
          machine: await machineTimes(),
        });
        let atFirst: Awaited<ReturnType<typeof cpu>> | undefined;
        try {
          const drain = await waitDrained({ admin: ctx.admin, groupId: GROUP, topic: EVENTS_TOPIC, total: EVENTS, startedAt, timeoutMs: DRAIN_TIMEOUT_MS, alive: () => child.exitCode === null, onStart: async () => void (atFirst = await cpu()) });
          const atEnd = await cpu();
          const per = (k: 'weir' | 'redis' | 'broker') => ((atEnd[k] - atFirst![k]) / EVENTS).toFixed(0);
          const wallUs = (atEnd.at - atFirst!.at) * 1000;
          const weirCores = coreShares(atFirst!.weirCore, atEnd.weirCore, wallUs);
          const redisCores = atFirst!.redisCore && atEnd.redisCore ? coreShares(atFirst!.redisCore, atEnd.redisCore, wallUs) : undefined;
          const wrong = mismatches(await readSample(url), ctx.filledAt());
          ctx.notes.push(
            `Weir${redis ? '' : ' on LMDB'} round ${round + 1}: ${fmt(drain.rate)} events/s from the group Stable to the last commit (${fmt(EVENTS)} events); Stable ${(drain.startupMs / 1000).toFixed(1)} s after spawn, all settled ${(drain.totalMs / 1000).toFixed(1)} s after; CPU per event ${per('weir')} µs Weir, ${redis ? `${per('redis')} µs Redis, ` : ''}${per('broker')} µs broker; share of the span on a core / waiting for one: Weir's main thread ${weirCores.main}, all its threads ${weirCores.all}${redisCores ? `, Redis's main thread ${redisCores.main}` : ''}; the machine's cores idle ${idleShare(atFirst!.machine, atEnd.machine)}; ${trouble.failedBatches} failed batches (retried), ${trouble.restarts} consumer restarts; ${wrong.length === 0 ? `the ${sampleEntities().length} sampled entities read exactly their true values` : `WRONG VALUES: ${wrong.join('; ')}`}.`,
          );
          await stop(child);
          if (redis) {
            ceilingRedis = await startRedisServer(DURABLE_REDIS);
            ctx.ceilings.push(await storeCeiling(ceilingRedis.url, ctx.filledAt()));
          }
          return drain.rate;
        } finally {
          await stop(child);
        }
      } finally {
        await redis?.kill();
        await ceilingRedis?.kill();
      }
    },
  };
}
