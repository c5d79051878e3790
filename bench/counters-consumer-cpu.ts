/**
 * The counter consumer's own CPU per event (issue 31): the counter stage (Kafka + Redis) draining a
 * backlog of the counters pair's workload (bench/peers/counters/workload.ts) from a topic of its own
 * on the test broker, each drain in a fresh process (bench/counters-consumer-cpu/consumer.ts) with a
 * fresh redis-server of its own, so every event id is new. Two checkouts are compared, alternating,
 * three rounds: CPU µs per event of the consumer process (process.cpuUsage) and of Redis (INFO cpu).
 *
 * `WEIR_CPU_BASE=/path/to/other/worktree node --import tsx bench/counters-consumer-cpu.ts`
 * (WEIR_PEERS_COUNTERS_EVENTS / _ENTITIES size the backlog, default 100,000 over 10,000). After the
 * rounds, one drain per checkout runs under V8's CPU profiler and allocation sampler (the profiles
 * are kept in WEIR_CPU_PROFILE_DIR if set). Writes bench/results/counters-consumer-cpu.md.
 *
 * With WEIR_CPU_STORE=lmdb the stage runs on the embedded default's LMDB window store instead, in a
 * new directory per drain (no redis-server; Redis CPU is 0), and the report goes to
 * bench/results/counters-lmdb-cpu.md.
 *
 * With WEIR_CPU_AVRO=1 the backlog is Avro in the Confluent wire format, written by this checkout's
 * codec through the test schema registry (WEIR_TEST_SCHEMA_REGISTRY_URL) as intake writes it when
 * SCHEMA_REGISTRY_URL is set, and each drain's codec reads it through the registry; the topic is
 * `events` under a namespace of the run's own (KAFKA_NAMESPACE), so the stage finds the local
 * schema as in production. The report goes to bench/results/counters-consumer-avro-cpu.md.
 *
 * With WEIR_CPU_OVERLAP=1 every drain is watched instead (bench/counters-consumer-cpu/overlap.ts:
 * cores busy per process every 100 ms, the apply limit, each partition's phase), no profiles run,
 * and the report goes to bench/results/counters-overlap.md.
 */
import './scratch.js';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { Kafka, logLevel } from 'kafkajs';
import { startRedisServer } from '../test/support/redis-server.js';
import { startNodeOptions } from './bench-server.js';
import { redisCpuMicros } from './peers/support/cpu.js';
import { allocationCosts, costTable, profileCosts, type CpuProfile } from './counters-consumer-cpu/profile-top.js';
import { brokerPid, overlapRow, OVERLAP_HEADER } from './counters-consumer-cpu/overlap-report.js';
import { redisPid } from './peers/support/cpu.js';
import type { OverlapSummary } from './counters-consumer-cpu/overlap.js';
import { commitOf } from './lib/checkout.js';
import { createCodec } from '../infra/codec/index.js';
import { reportLines } from './lib/report.js';

process.env.WEIR_PEERS_COUNTERS_EVENTS ??= '100000';
process.env.WEIR_PEERS_COUNTERS_ENTITIES ??= '10000';
const { EVENTS, ENTITIES, PARTITIONS, eventOf, ORG } = await import('./peers/counters/workload.js');

const ROUNDS = 3;
const brokers = (process.env.WEIR_TEST_KAFKA_BROKERS ?? '127.0.0.1:19092').split(',');
const here = path.resolve(fileURLToPath(new URL('..', import.meta.url)));
const base = process.env.WEIR_CPU_BASE;
if (!base) throw new Error('set WEIR_CPU_BASE to the checkout to compare with (e.g. a worktree of main)');
const checkouts = [
  { name: 'base', root: path.resolve(base) },
  { name: 'this', root: here },
];
const run = `cpu-${Date.now().toString(36)}`;
const watching = process.env.WEIR_CPU_OVERLAP === '1';
const onLmdb = process.env.WEIR_CPU_STORE === 'lmdb';
/**
 * The checkouts whose Weir modules load from their dist/ build, as `npm start` runs them
 * (bench/lib/compiled-product.mjs): WEIR_CPU_COMPILED=both (each checkout built first), =this
 * (base through tsx: with base at this checkout's commit, what tsx costs), default none.
 */
const compiledSides = { both: ['base', 'this'], this: ['this'] }[process.env.WEIR_CPU_COMPILED ?? ''] ?? [];
if (onLmdb && watching) throw new Error('WEIR_CPU_OVERLAP watches the Redis store only');
const onAvro = process.env.WEIR_CPU_AVRO === '1';
const registryUrl = process.env.WEIR_TEST_SCHEMA_REGISTRY_URL;
if (onAvro && !registryUrl) throw new Error('WEIR_CPU_AVRO needs WEIR_TEST_SCHEMA_REGISTRY_URL (source /work/infra.env)');
// On Avro the stage reads `events` of the run's namespace, so the codec finds the topic's local schema.
const topic = onAvro ? `${run}.events` : `${run}-events`;
const namespaced = onAvro ? { WEIR_CPU_TOPIC: 'events', WEIR_CPU_NAMESPACE: run, WEIR_CPU_SCHEMA_REGISTRY_URL: registryUrl! } : {};

interface Drain {
  checkout: string;
  round: number;
  cpuPerEvent: number;
  redisPerEvent: number;
  rate: number;
  load: number;
  overlap?: OverlapSummary;
}

const kafka = new Kafka({ clientId: run, brokers, logLevel: logLevel.ERROR });

async function fill(): Promise<void> {
  const producer = kafka.producer({ allowAutoTopicCreation: false });
  await producer.connect();
  const filledAt = Date.now();
  const codec = onAvro ? createCodec({ schemaRegistryUrl: registryUrl, namespace: run }) : undefined;
  for (let from = 0; from < EVENTS; from += 5000) {
    const messages = [];
    for (let n = from; n < Math.min(EVENTS, from + 5000); n++) {
      const e = eventOf(n, filledAt);
      messages.push({ key: `${ORG}:${e.entity_id}`, value: codec ? await codec.encode('events', e) : JSON.stringify(e) });
    }
    await producer.send({ topic, messages, acks: -1 });
  }
  await producer.disconnect();
}

interface DrainResult {
  cpuMicros: number;
  wallMs: number;
  overlap?: OverlapSummary;
}

/** The window store of one drain: a new LMDB directory, or a new redis-server (with its CPU counted). */
async function newStore(): Promise<{ env: Record<string, string>; cpuMicros: () => Promise<number>; remove: () => Promise<void> }> {
  if (onLmdb) {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'weir-cpu-lmdb-'));
    return { env: { WEIR_CPU_LMDB_DIR: path.join(dir, 'state.lmdb') }, cpuMicros: async () => 0, remove: () => rm(dir, { recursive: true, force: true }) };
  }
  const redis = await startRedisServer();
  return { env: { WEIR_CPU_REDIS_URL: redis.url }, cpuMicros: () => redisCpuMicros(redis.url), remove: () => redis.kill() };
}

async function drain(checkout: { name: string; root: string }, stage: string, profile?: string): Promise<DrainResult & { redisMicros: number }> {
  const store = await newStore();
  try {
    const redisBefore = await store.cpuMicros();
    const watch = watching ? { WEIR_CPU_OVERLAP: '1', WEIR_CPU_REDIS_PID: String(await redisPid(store.env.WEIR_CPU_REDIS_URL!)), WEIR_CPU_BROKER_PID: String(await brokerPid()) } : {};
    // Each checkout runs with its own start options; WEIR_CPU_NODE_ARGS adds more (e.g. --trace-gc).
    const nodeArgs = [...startNodeOptions(checkout.root), ...(process.env.WEIR_CPU_NODE_ARGS?.split(' ').filter(Boolean) ?? [])];
    const compiled = compiledSides.includes(checkout.name) ? ['--import', fileURLToPath(new URL('./lib/compiled-product.mjs', import.meta.url))] : [];
    const child = spawn(process.execPath, [...nodeArgs, '--import', 'tsx', ...compiled, fileURLToPath(new URL('./counters-consumer-cpu/consumer.ts', import.meta.url))], {
      env: { ...process.env, ...watch, WEIR_CPU_ROOT: checkout.root, WEIR_COMPILED_ROOT: checkout.root, WEIR_CPU_TOPIC: topic, WEIR_CPU_EVENTS: String(EVENTS), WEIR_CPU_STAGE: stage, WEIR_CPU_BROKERS: brokers.join(','), ...namespaced, ...store.env, ...(profile ? { WEIR_CPU_PROFILE: profile } : {}) },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let result: DrainResult | undefined;
    createInterface({ input: child.stdout! }).on('line', (line) => {
      if (line.startsWith('{"handled"')) result = JSON.parse(line) as DrainResult;
      else process.stderr.write(`${line}\n`);
    });
    const [code] = (await once(child, 'exit')) as [number | null];
    if (!result) throw new Error(`${checkout.name} consumer exited with ${code} before draining`);
    return { ...result, redisMicros: (await store.cpuMicros()) - redisBefore };
  } finally {
    await store.remove();
  }
}

const { lines: report, say } = reportLines();

const startedAt = new Date();
const admin = kafka.admin();
await admin.connect();
await admin.createTopics({ topics: [{ topic, numPartitions: PARTITIONS }], waitForLeaders: true });
try {
  await fill();
  await measure();
} finally {
  // The topic is this run's alone, on a broker others use.
  await admin.deleteTopics({ topics: [topic] });
  await admin.disconnect();
}
await writeFile(path.join(here, 'bench', 'results', watching ? 'counters-overlap.md' : compiledSides.length === 1 ? 'compiled-product.md' : onLmdb ? 'counters-lmdb-cpu.md' : onAvro ? 'counters-consumer-avro-cpu.md' : 'counters-consumer-cpu.md'), `${report.join('\n')}\n`);

async function measure(): Promise<void> {
  const storeText = onLmdb ? 'the embedded LMDB window store as build-platform.ts opens it, in a new directory' : 'Redis window store with the 1-second timeout, against a new redis-server without persistence';
  const sized = ['WEIR_PEERS_COUNTERS_EVENTS', 'WEIR_PEERS_COUNTERS_ENTITIES'].map((name) => `${name}=${process.env[name]} `).join('');
  say(`## Counters: ${watching ? 'where the drain waits' : "the consumer's own CPU per event"}${onLmdb ? ' on the embedded LMDB store' : ''}${onAvro ? ' reading Avro' : ''}, two checkouts alternating (issue 31)

Command: \`${process.env.WEIR_CPU_COMPILED ? `WEIR_CPU_COMPILED=${process.env.WEIR_CPU_COMPILED} ` : ''}${watching ? 'WEIR_CPU_OVERLAP=1 ' : ''}${onAvro ? 'WEIR_CPU_AVRO=1 ' : ''}${onLmdb ? 'WEIR_CPU_STORE=lmdb ' : ''}${sized}WEIR_CPU_BASE=${checkouts[0]!.root} node --import tsx bench/counters-consumer-cpu.ts\` (${startedAt.toISOString().slice(0, 16)} UTC).
Checkouts: base ${commitOf(checkouts[0]!.root)}, this ${commitOf(here)}.${compiledSides.length > 0 ? ` Weir's modules load from dist/, compiled by tsc as \`npm start\` runs them (bench/lib/compiled-product.mjs), for ${compiledSides.join(' and ')}${compiledSides.length === 1 ? '; base loads them from source through tsx' : ''}.` : ''} Workload: ${EVENTS} events over ${ENTITIES} entities
(bench/peers/counters/workload.ts: one configuration of a 1-hour count, a 24-hour sum and last seen; occurred_at spread over
24 hours; unique ids; ${onAvro ? 'Avro in the Confluent wire format through the test schema registry, topic `events` of a namespace of the run' : 'JSON'}), on a topic of ${PARTITIONS} partitions of the test broker (${brokers.join(',')}). Each drain is a new
process running the counter stage as pipelines/counters/index.ts does (bench/counters-consumer-cpu/consumer.ts: Kafka bus, six
partitions in flight, ${storeText}; no flusher, no HTTP). CPU is the consumer process's user + system time from the stage's
start to its last event${onLmdb ? " (LMDB's write thread and fsyncs included; no Redis)" : "; Redis's from INFO cpu"}.
The machine's 2 cores are shared with other engineers' work: the 1-minute load is beside each drain.

| round | checkout | consumer CPU (µs/event) |${onLmdb ? '' : ' Redis CPU (µs/event) |'} events/s | 1-min load |
| ---: | --- | ---: |${onLmdb ? '' : ' ---: |'} ---: | ---: |`);
  const drains: Drain[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    const order = round % 2 === 0 ? checkouts : [...checkouts].reverse();
    for (const checkout of order) {
      const load = os.loadavg()[0]!;
      const d = await drain(checkout, `${run}-${checkout.name}-${round}`);
      const row: Drain = { checkout: checkout.name, round: round + 1, cpuPerEvent: d.cpuMicros / EVENTS, redisPerEvent: d.redisMicros / EVENTS, rate: EVENTS / (d.wallMs / 1000), load, ...(d.overlap ? { overlap: d.overlap } : {}) };
      drains.push(row);
      say(`| ${row.round} | ${row.checkout} | ${row.cpuPerEvent.toFixed(1)} |${onLmdb ? '' : ` ${row.redisPerEvent.toFixed(1)} |`} ${row.rate.toFixed(0)} | ${load.toFixed(1)} |`);
    }
  }
  const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
  const medianOf = (name: string): number => median(drains.filter((d) => d.checkout === name).map((d) => d.cpuPerEvent));
  say(`\nMedian consumer CPU: base ${medianOf('base').toFixed(1)} µs/event, this ${medianOf('this').toFixed(1)} µs/event (**${(medianOf('this') / medianOf('base')).toFixed(2)}×**).`);
  const rateOf = (name: string): number => median(drains.filter((d) => d.checkout === name).map((d) => d.rate));
  say(`Median events/s: base ${rateOf('base').toFixed(0)}, this ${rateOf('this').toFixed(0)} (**${(rateOf('this') / rateOf('base')).toFixed(2)}×**).`);
  if (watching) {
    say(`\n### Where the drain waits (sampled every 100 ms)\n\n${OVERLAP_HEADER}`);
    for (const d of drains) say(overlapRow(d.round, d.checkout, d.overlap!));
    return;
  }

  // One more drain per checkout under V8's CPU profiler (100 µs samples) and allocation sampler.
  const profileDir = process.env.WEIR_CPU_PROFILE_DIR ?? os.tmpdir();
  await mkdir(profileDir, { recursive: true });
  for (const checkout of checkouts) {
    const file = path.resolve(profileDir, `${checkout.name}.cpuprofile`);
    const load = os.loadavg()[0]!;
    const d = await drain(checkout, `${run}-${checkout.name}-profile`, file);
    // The profiler slows the process; its shares are spread over the CPU of the unprofiled drains.
    const costs = profileCosts(JSON.parse(await readFile(file, 'utf8')) as CpuProfile, medianOf(checkout.name) * EVENTS, EVENTS);
    const allocations = allocationCosts(JSON.parse(await readFile(file.replace(/\.cpuprofile$/, '.heapprofile'), 'utf8')) as Parameters<typeof allocationCosts>[0], EVENTS);
    const allocated = allocations.reduce((sum, a) => sum + a.bytesPerEvent, 0);
    say(`\n### Profile of ${checkout.name}

One drain under the profiler (${(d.cpuMicros / EVENTS).toFixed(1)} µs/event there, 1-min load ${load.toFixed(1)}); µs/event = share of the busy samples × the
median unprofiled CPU (${medianOf(checkout.name).toFixed(1)} µs/event). Functions are named with their file; tsx puts a module of the
checkout on one line, so its line numbers say nothing.

By package or folder (self time):

${costTable(costs.areas, 10)}

Top self time:

${costTable(costs.self, 15)}

Top inclusive time:

${costTable(costs.inclusive, 30)}

Allocated ${allocated.toFixed(0)} bytes/event (sampled, objects collected or not); the functions that allocate most:

${['| function | bytes/event |', '| --- | ---: |', ...allocations.slice(0, 12).map((a) => `| ${a.name} | ${a.bytesPerEvent.toFixed(0)} |`)].join('\n')}`);
  }
}
