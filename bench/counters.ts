/**
 * Event counters end to end: HTTP batch ingestion -> `events` -> counter pipeline -> live values.
 * For each back end (embedded defaults; Kafka + Redis when WEIR_BENCH_KAFKA_BROKERS or
 * WEIR_TEST_KAFKA_BROKERS is set, Redis from WEIR_TEST_REDIS_URL or the local one):
 *   - sustained rate: N events posted in batches of 500, 8 requests in flight, timed from the first
 *     request to the moment the last event is readable as a live value;
 *   - visibility latency at a paced 5,000 events/s (batches of 100 every 20 ms): from the request's
 *     start to the window-store apply that makes the event readable (apply resolved);
 *   - the raw consume ceiling of the same bus in the same run (no-op handler, 6 partitions);
 *   - the window store's own ceiling for the same updates in the same run: per event the intake's
 *     id reservation and the pipeline's apply (planned by the pipeline's own planEvent), called
 *     directly in calls of 500, six in flight (one per partition);
 *   - memory: bytes per active entity and per remembered event (Redis INFO used_memory, or the
 *     V8 heap after gc for the in-process store).
 * The server runs in this process (so the apply hook can time visibility); the load generator
 * (bench/counters-load.ts) is a child process with its own event loop and CPU account, and builds
 * its request bodies before timing. Writes bench/results/counters.md.
 * Run: `node --expose-gc --max-semi-space-size=64 --heap-growing-percent=100 --import tsx bench/counters.ts` (WEIR_BENCH_COUNTER_EVENTS to change N;
 * WEIR_BENCH_PROFILE=<file.cpuprofile> records a CPU profile of the sustained phase).
 */
import './scratch.js';
import { requireStartNodeOptions } from './bench-server.js';
import { fork } from 'node:child_process';
import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { Session } from 'node:inspector/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Redis } from 'ioredis';
import { startProcess, type RunningProcess } from '../app/start.js';
import { countersService } from '../services/counters.js';
import type { Bus } from '../infra/bus/types.js';
import type { WindowStore } from '../infra/windows/types.js';
import { compileConfig } from '../domain/counters/compile.js';
import { planEvent } from '../domain/counters/plan-event.js';
import { counterConfigSchema } from '../schemas/http/counters.js';
import { epochNow, type LoadJob, type LoadReport } from './counters-load.js';

requireStartNodeOptions();
const EVENTS = Number(process.env.WEIR_BENCH_COUNTER_EVENTS ?? 200_000);
const BATCH = 500;
const IN_FLIGHT = 8;
const ENTITIES = 10_000;
const PACED_RATE = 5_000;
const PACED_SECONDS = 10;
const PACED_BATCH = 100;
const MEMORY_EVENTS = 20_000;
const kafka = process.env.WEIR_BENCH_KAFKA_BROKERS ?? process.env.WEIR_TEST_KAFKA_BROKERS;
const redisUrl = process.env.WEIR_TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';
/** The broker's process id (e.g. from infra/scripts/kafka.sh's pid file), to count its CPU time. */
const kafkaPid = process.env.WEIR_BENCH_KAFKA_PID;
const chdbPath = await mkdtemp(path.join(os.tmpdir(), 'weir-bench-counters-chdb-'));
let dbSeq = 0;

const config = {
  flush_interval_seconds: Number(process.env.WEIR_BENCH_FLUSH_SECONDS ?? 10),
  counters: [
    { name: 'txn_count_1h', event_type: 'txn', aggregate: 'count', window: { amount: 1, unit: 'hours' } },
    { name: 'txn_amount_24h', event_type: 'txn', aggregate: 'sum', window: { amount: 24, unit: 'hours' } },
    { name: 'txn_last_seen', event_type: 'txn', aggregate: 'last_seen' },
  ],
};

interface Target {
  name: string;
  env: Record<string, string>;
  memory(p: RunningProcess): Promise<number>;
}

const pct = (sorted: number[], q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? NaN;
const rate = (n: number, ms: number) => Math.round((n * 1000) / ms);
const fmt = (n: number) => n.toLocaleString('en-US');

/** Counts applied events and notes, per event id `<run>-<batch>-<i>`, the instant its apply resolved. */
function visibility(p: RunningProcess) {
  let appliedBatches: number[] = [];
  let appliedAt: number[] = [];
  let applied = 0;
  let lastAppliedAt = 0;
  let waiter: { n: number; resolve: () => void } | undefined;
  const windows = p.platform.windows;
  const apply = windows.apply.bind(windows);
  windows.apply = async (requests) => {
    const result = await apply(requests);
    const now = epochNow();
    for (const r of requests) {
      const id = r.once?.id;
      if (!id) continue;
      appliedBatches.push(Number(id.slice(id.indexOf('-') + 1, id.lastIndexOf('-'))));
      appliedAt.push(now);
    }
    applied += requests.length;
    lastAppliedAt = now;
    if (waiter && applied >= waiter.n) waiter.resolve();
    return result;
  };
  return {
    applied: () => applied,
    lastAppliedAt: () => lastAppliedAt,
    until: (n: number) => (applied >= n ? Promise.resolve() : new Promise<void>((resolve) => (waiter = { n, resolve }))),
    /** Milliseconds from each event's request start to its apply, for the events applied since the last call. */
    latencies(sentAt: Record<number, number>): number[] {
      const out = appliedBatches.flatMap((b, i) => (sentAt[b] === undefined ? [] : [appliedAt[i]! - sentAt[b]!]));
      appliedBatches = [];
      appliedAt = [];
      return out;
    },
  };
}

/** The load generator process; `send` runs one job and answers its report. */
function loadGenerator() {
  const child = fork(fileURLToPath(new URL('./counters-load.ts', import.meta.url)), { execArgv: ['--import', 'tsx'] });
  return {
    send: (job: LoadJob) =>
      new Promise<LoadReport>((resolve, reject) => {
        child.once('message', (m: { ok: true; report: LoadReport } | { ok: false; error: string }) => (m.ok ? resolve(m.report) : reject(new Error(m.error))));
        child.send(job);
      }),
    stop: () => child.kill(),
  };
}

/** Records a CPU profile of `fn` into WEIR_BENCH_PROFILE when set. */
async function profiled<T>(fn: () => Promise<T>): Promise<T> {
  const file = process.env.WEIR_BENCH_PROFILE;
  if (!file) return fn();
  const session = new Session();
  session.connect();
  await session.post('Profiler.enable');
  await session.post('Profiler.start');
  try {
    return await fn();
  } finally {
    const { profile } = await session.post('Profiler.stop');
    await writeFile(file, JSON.stringify(profile));
    session.disconnect();
  }
}

async function rawConsume(bus: Bus, run: string): Promise<number> {
  const topic = `bench.counters.raw.${run}`;
  await bus.ensureTopics([{ topic, partitions: 6 }]);
  const value = Buffer.from(JSON.stringify({ org_id: 'bench', event_id: 'x'.repeat(20), entity_id: 'entity-00000', event_type: 'txn', occurred_at: new Date().toISOString(), value: 12.3 }));
  for (let i = 0; i < EVENTS; i += BATCH) await bus.send(topic, Array.from({ length: BATCH }, (_, j) => ({ key: `bench:entity-${(i + j) % ENTITIES}`, value })));
  let seen = 0;
  let first = 0;
  let done!: () => void;
  const finished = new Promise<void>((r) => (done = r));
  const sub = await bus.subscribe({
    groupId: `bench-raw-${run}`,
    topics: [topic],
    fromBeginning: true,
    eachBatch: async (batch) => {
      if (first === 0) first = performance.now();
      seen += batch.messages.length;
      if (seen >= EVENTS) done();
    },
  });
  await finished;
  const ms = performance.now() - first;
  await sub.stop();
  return rate(EVENTS, ms);
}

async function measure(target: Target) {
  const run = `b${Date.now().toString(36)}`;
  const org = `bench_${run}`;
  const p = await startProcess({
    role: 'all',
    services: [countersService],
    env: { PORT: '0', DATA_DIR: await mkdtemp(path.join(os.tmpdir(), 'weir-bench-counters-')), CHDB_PATH: chdbPath, CLICKHOUSE_DATABASE: `bench${++dbSeq}`, LOG_LEVEL: 'warn', API_KEYS: `${org}:bench-key`, RATE_LIMIT_PER_MINUTE: '1000000', ...target.env },
  });
  const url = p.url!;
  const load = loadGenerator();
  try {
    const put = await fetch(`${url}/v1/counters/${org}`, { method: 'PUT', headers: { 'content-type': 'application/json', 'x-org-id': org, 'x-api-key': 'bench-key' }, body: JSON.stringify(config) });
    if (put.status !== 200) throw new Error(`config: ${await put.text()}`);
    const vis = visibility(p);
    const job = (from: number, count: number, size: number, pace: LoadJob['pace'], entityPrefix = 'entity-', entityModulo = ENTITIES): LoadJob => ({
      url, org, apiKey: 'bench-key', run, from, count, size, entityPrefix, entityModulo, occurredAt: new Date().toISOString(), pace,
    });

    // Warm-up (JIT, connections, topic metadata), not timed.
    await load.send(job(0, 20, BATCH, { inFlight: 1 }));
    await vis.until(20 * BATCH);
    vis.latencies({});

    // Sustained: as fast as 8 requests in flight allow.
    const base = vis.applied();
    const withRedis = Boolean(target.env.REDIS_URL);
    const cpu0 = await cpuNow(withRedis);
    const { sustainedMs, intakeMs, loadCpu } = await profiled(async () => {
      const sent = await load.send(job(100, EVENTS / BATCH, BATCH, { inFlight: IN_FLIGHT }));
      const intakeEnd = epochNow();
      await vis.until(base + EVENTS);
      const t0 = sent.sentAt[100]!;
      return { sustainedMs: vis.lastAppliedAt() - t0, intakeMs: intakeEnd - t0, loadCpu: sent.cpuMicros };
    });
    const cpu1 = await cpuNow(withRedis);
    vis.latencies({});
    const cpuPerEvent = {
      self: (cpu1.self - cpu0.self) / EVENTS,
      redis: (cpu1.redis - cpu0.redis) / EVENTS,
      kafka: kafkaPid && target.env.KAFKA_BROKERS ? (cpu1.kafka - cpu0.kafka) / EVENTS : 0,
      load: loadCpu / EVENTS,
    };

    // Paced at 5,000 events/s: latency from request start to apply.
    const pacedBatches = (PACED_RATE / PACED_BATCH) * PACED_SECONDS;
    const pacedBase = vis.applied();
    const paced = await load.send(job(100_000, pacedBatches, PACED_BATCH, { everyMs: (1000 * PACED_BATCH) / PACED_RATE }));
    await vis.until(pacedBase + pacedBatches * PACED_BATCH);
    const lat = vis.latencies(paced.sentAt).sort((x, y) => x - y);

    // Memory: events to fresh entities (entity state + ids), then events to one entity (ids only).
    const memoryBatches = MEMORY_EVENTS / BATCH;
    const before = await target.memory(p);
    let memBase = vis.applied();
    await load.send(job(200_000, memoryBatches, BATCH, { inFlight: 1 }, 'mem-', Number.MAX_SAFE_INTEGER));
    await vis.until(memBase + MEMORY_EVENTS);
    const afterEntities = await target.memory(p);
    memBase = vis.applied();
    await load.send(job(300_000, memoryBatches, BATCH, { inFlight: 1 }, 'mem-single', 1));
    await vis.until(memBase + MEMORY_EVENTS);
    const afterIds = await target.memory(p);
    vis.latencies({});
    const perEvent = (afterIds - afterEntities) / MEMORY_EVENTS;
    const perEntity = (afterEntities - before) / MEMORY_EVENTS - perEvent;

    const raw = await rawConsume(p.platform.bus, run);
    const store = await storeCeiling(p.platform.windows, org, run);
    const sustained = rate(EVENTS, sustainedMs);
    return {
      name: target.name,
      sustained,
      intake: rate(EVENTS, intakeMs),
      p50: pct(lat, 0.5),
      p99: pct(lat, 0.99),
      raw,
      ratio: sustained / raw,
      store,
      perEntity,
      perEvent,
      cpuPerEvent,
      org,
    };
  } finally {
    load.stop();
    await p.stop();
  }
}

/**
 * Events per second the window store alone settles: per call of BATCH events, reserveIds (intake)
 * then apply with once ids (pipeline), the updates planned as the pipeline plans them.
 */
async function storeCeiling(windows: WindowStore, org: string, run: string): Promise<number> {
  const scope = `${org}-ceiling`;
  const compiled = compileConfig(scope, counterConfigSchema.parse({ ...config, version: 1 }), []);
  const calls = EVENTS / BATCH;
  let next = 0;
  const started = performance.now();
  const worker = async (): Promise<void> => {
    while (next < calls) {
      const b = next++;
      const now = Date.now();
      const events = Array.from({ length: BATCH }, (_, i) => {
        const n = b * BATCH + i;
        return { event_id: `${run}-c${b}-${i}`, entity_id: `entity-${n % ENTITIES}`, event_type: 'txn', occurred_at: new Date(now).toISOString(), value: (n % 997) / 10, attributes: {}, org_id: scope };
      });
      await windows.reserveIds(scope, events.map((e) => e.event_id), compiled.eventIdTtlMs);
      await windows.apply(events.map((e) => ({ entity: { scope, id: e.entity_id }, updates: planEvent(compiled, e, now).updates, once: { id: e.event_id, ttlMs: compiled.eventIdTtlMs } })));
    }
  };
  await Promise.all(Array.from({ length: 6 }, worker));
  return rate(EVENTS, performance.now() - started);
}

/** CPU time (µs) used so far by this process, Redis, and the Kafka broker when its pid is known. */
async function cpuNow(withRedis: boolean): Promise<{ self: number; redis: number; kafka: number }> {
  const u = process.cpuUsage();
  let redis = 0;
  if (withRedis) {
    const r = new Redis(redisUrl);
    const info = await r.info('cpu');
    r.disconnect();
    redis = (Number(/used_cpu_user:([\d.]+)/.exec(info)![1]) + Number(/used_cpu_sys:([\d.]+)/.exec(info)![1])) * 1e6;
  }
  let kafkaCpu = 0;
  if (kafkaPid) {
    const stat = (await readFile(`/proc/${kafkaPid}/stat`, 'utf8')).split(') ')[1]!.split(' ');
    kafkaCpu = ((Number(stat[11]) + Number(stat[12])) / 100) * 1e6;
  }
  return { self: u.user + u.system, redis, kafka: kafkaCpu };
}

async function redisMemory(): Promise<number> {
  const r = new Redis(redisUrl);
  const info = await r.info('memory');
  r.disconnect();
  return Number(/used_memory:(\d+)/.exec(info)![1]);
}

async function heapMemory(): Promise<number> {
  const gc = (globalThis as { gc?: () => void }).gc;
  if (!gc) throw new Error('run with node --expose-gc to measure the in-process store');
  await new Promise((r) => setTimeout(r, 200));
  gc();
  gc();
  return process.memoryUsage().heapUsed;
}

/** Removes the benchmark organization's keys from the shared Redis (ids would stay for a day). */
async function cleanRedis(org: string): Promise<void> {
  const r = new Redis(redisUrl);
  let cursor = '0';
  do {
    const [next, keys] = await r.scan(cursor, 'MATCH', `w:*${org}*`, 'COUNT', 10_000);
    cursor = next;
    if (keys.length > 0) await r.unlink(...keys);
  } while (cursor !== '0');
  r.disconnect();
}

const only = process.env.WEIR_BENCH_ONLY; // 'embedded' or 'kafka' to measure one back end
const targets: Target[] = [];
if (only !== 'kafka') targets.push({ name: 'embedded defaults (embedded log, LMDB window store, chDB)', env: {}, memory: heapMemory });
if (kafka && only !== 'embedded') targets.push({ name: 'Kafka + Redis (chDB for the table)', env: { KAFKA_BROKERS: kafka, REDIS_URL: redisUrl }, memory: redisMemory });

const results = [];
for (const t of targets) {
  console.log(`measuring ${t.name} ...`);
  const r = await measure(t);
  if (t.env.REDIS_URL) await cleanRedis(r.org);
  console.log(r);
  results.push(r);
}

const load = os.loadavg()[0]!.toFixed(1);
const md = `## Event counters: HTTP ingestion to live values

Command: \`node ${process.execArgv.join(' ')} bench/counters.ts\` (Kafka + Redis measured when \`WEIR_BENCH_KAFKA_BROKERS\`
or \`WEIR_TEST_KAFKA_BROKERS\` is set; the broker is the single-node KRaft one of \`infra/scripts/kafka.sh\`).
Date: ${new Date().toISOString().slice(0, 10)}. Machine: ${os.cpus().length} cores, Node ${process.version}; 1-minute load average ${load} at the end
(other work shares the machine). The Weir process runs in the benchmark's process; the load generator is a child process.

Workload: 3 counters per event (1-hour count, 24-hour sum, last_seen), ${fmt(ENTITIES)} entities, flush every 10 s
to the counter table (chDB). Sustained: ${fmt(EVENTS)} events in batches of ${BATCH}, ${IN_FLIGHT} requests in flight,
from the first request to the last event readable live. Latency: paced ${fmt(PACED_RATE)} events/s (batches of
${PACED_BATCH} every ${(1000 * PACED_BATCH) / PACED_RATE} ms) for ${PACED_SECONDS} s, from the request's start to the window-store
apply that makes the event readable. Raw ceiling: the same bus, ${fmt(EVENTS)} messages of the same size consumed by a
new group with a handler that does nothing, in the same run. Window store ceiling: the same ${fmt(EVENTS)} events'
updates (the intake's id reservation and the pipeline's apply with once ids, in calls of ${BATCH}, six in flight)
called directly on the process's window store, in the same run.

| back end | sustained (events/s) | intake alone (events/s) | window store alone (events/s) | p50 visibility at 5,000/s (ms) | p99 (ms) | raw consume (msg/s) | ratio to raw consume |
|---|---:|---:|---:|---:|---:|---:|---:|
${results.map((r) => `| ${r.name} | ${fmt(r.sustained)} | ${fmt(r.intake)} | ${fmt(r.store)} | ${r.p50.toFixed(1)} | ${r.p99.toFixed(1)} | ${fmt(r.raw)} | ${(r.ratio * 100).toFixed(1)}% |`).join('\n')}

CPU time per event in the sustained phase (µs), and the rate the system's costs (Weir, Redis, Kafka; not the load
generator) allow on ${os.cpus().length} otherwise idle cores (cores / total CPU per event), since other work on the machine takes
an unknown share of the wall-clock figures above:

| back end | Weir process (µs/event) | Redis (µs/event) | Kafka broker (µs/event) | load generator (µs/event) | CPU-bound rate on idle cores (events/s) |
|---|---:|---:|---:|---:|---:|
${results.map((r) => { const c = r.cpuPerEvent; const total = c.self + c.redis + c.kafka; return `| ${r.name} | ${c.self.toFixed(1)} | ${c.redis ? c.redis.toFixed(1) : '-'} | ${c.kafka ? c.kafka.toFixed(1) : r.name.startsWith('Kafka') ? 'not measured' : '-'} | ${c.load.toFixed(1)} | ${fmt(Math.round((os.cpus().length * 1e6) / total))} |`; }).join('\n')}

Memory (${fmt(MEMORY_EVENTS)} events to as many new entities, then ${fmt(MEMORY_EVENTS)} events to one entity in one second):

| back end | per active entity (3 series, 1 bucket each, flush queue entries) | per remembered event (intake claim + once id) |
|---|---:|---:|
${results.map((r) => `| ${r.name} | ${fmt(Math.round(r.perEntity))} B | ${fmt(Math.round(r.perEvent))} B |`).join('\n')}

Each further second bucket an entity's count or sum series holds costs about one hash field (Redis) or map
entry (in process); see bench/results/windows.md for the store's own figures per bucket.
Targets of issue 3 (real infrastructure, this 2-core machine): at least 20,000 events/s sustained, p99 under 250 ms at 5,000 events/s.
${results
  .filter((r) => r.name.startsWith('Kafka'))
  .map((r) => `In this run on Kafka + Redis: ${fmt(r.sustained)} events/s (${r.sustained >= 20_000 ? 'met' : 'not met'}), p99 ${r.p99.toFixed(0)} ms (${r.p99 < 250 ? 'met' : 'not met'}), with the 1-minute load average at ${load} on 2 cores.`)
  .join('\n')}
`;
await writeFile(fileURLToPath(new URL('./results/counters.md', import.meta.url)), md);
console.log(md);
process.exit(0);
