/**
 * The process measured by bench/counters-consumer-cpu.ts: the counter stage alone (the same
 * `startStage` + `createEventApplier` the counters service runs, Kafka bus and Redis window store
 * as build-platform.ts makes them, or with WEIR_CPU_LMDB_DIR the embedded default's LMDB store in
 * that directory), draining a filled topic. The code is imported from the checkout
 * at WEIR_CPU_ROOT, so one bench compares two worktrees. Prints one JSON line: the process's CPU
 * (user + system, every thread) from before the stage starts until the last event is handled.
 * WEIR_CPU_NAMESPACE and WEIR_CPU_SCHEMA_REGISTRY_URL give the bus and the codec a deployment's
 * KAFKA_NAMESPACE and SCHEMA_REGISTRY_URL (the Avro backlog). With
 * WEIR_CPU_PROFILE=<file> the V8 CPU profiler (what `node --cpu-prof` runs) records that same
 * stretch, without the process's start-up, into the file, and V8's allocation sampler beside it
 * (`.heapprofile`: where the garbage comes from).
 */
import { writeFile } from 'node:fs/promises';
import { Session } from 'node:inspector/promises';
import { pino } from 'pino';
import { Registry } from 'prom-client';
import type { Platform } from '../../infra/platform.js';
import type { TopicEvent } from '../../schemas/http/counters.js';
import type { Decoded } from '../../pipelines/stage.js';
import { watchOverlap } from './overlap.js';

const root = process.env.WEIR_CPU_ROOT!;
const topic = process.env.WEIR_CPU_TOPIC!;
const events = Number(process.env.WEIR_CPU_EVENTS);
const from = <T>(file: string): Promise<T> => import(`${root}/${file}`) as Promise<T>;

const { createKafkaBus } = await from<typeof import('../../infra/bus/kafka/index.js')>('infra/bus/kafka/index.ts');
const redisStore = await from<typeof import('../../infra/windows/redis/index.js')>('infra/windows/redis/index.ts');
const lmdbStore = await from<typeof import('../../infra/windows/lmdb/index.js')>('infra/windows/lmdb/index.ts');
const { createInFlightLimit } = await from<typeof import('../../infra/in-flight-limit.js')>('infra/in-flight-limit.ts');
const { failFastOnOutage } = await from<typeof import('../../infra/windows/redis/outage.js')>('infra/windows/redis/outage.ts');
const { createCodec } = await from<typeof import('../../infra/codec/index.js')>('infra/codec/index.ts');
const { systemClock } = await from<typeof import('../../infra/clock.js')>('infra/clock.ts');
const { compileConfig } = await from<typeof import('../../domain/counters/compile.js')>('domain/counters/compile.ts');
const schemas = await from<typeof import('../../schemas/http/counters.js')>('schemas/http/counters.ts');
const { createEventApplier } = await from<typeof import('../../pipelines/counters/apply-events.js')>('pipelines/counters/apply-events.ts');
const { startStage } = await from<typeof import('../../pipelines/stage.js')>('pipelines/stage.ts');
const { counterConfig, ORG } = await import('../peers/counters/workload.js');

const log = pino({ level: 'warn' });
const namespace = process.env.WEIR_CPU_NAMESPACE;
const schemaRegistryUrl = process.env.WEIR_CPU_SCHEMA_REGISTRY_URL;
const kafkaBus = createKafkaBus({ brokers: process.env.WEIR_CPU_BROKERS!.split(','), clientId: `weir-cpu-${process.pid}`, log, tuning: { partitionsConsumedConcurrently: 6 }, namespace });
// A checkout whose store takes its apply limit from the caller lets the overlap sampler watch it.
const budget = (redisStore as { APPLY_IN_FLIGHT?: number }).APPLY_IN_FLIGHT;
const limit = budget ? { limit: createInFlightLimit(budget), budget } : undefined;
const lmdbDir = process.env.WEIR_CPU_LMDB_DIR;
const store = lmdbDir
  ? await lmdbStore.createLmdbWindowStore({ dir: lmdbDir })
  : failFastOnOutage(redisStore.createRedisWindowStore({ url: process.env.WEIR_CPU_REDIS_URL!, commandTimeoutMs: 1000, ...(limit ? { applyLimit: limit.limit } : {}) }));
const overlap = process.env.WEIR_CPU_OVERLAP
  ? watchOverlap({ bus: kafkaBus, windows: store, limit, redisPid: Number(process.env.WEIR_CPU_REDIS_PID), brokerPid: Number(process.env.WEIR_CPU_BROKER_PID) })
  : undefined;
const bus = overlap?.bus ?? kafkaBus;
const windows = overlap?.windows ?? store;
const compiled = compileConfig(ORG, schemas.counterConfigSchema.parse({ version: 1, ...counterConfig }), []);
const platform = { bus, codec: createCodec({ schemaRegistryUrl, namespace }), log, metrics: new Registry(), windows, clock: systemClock } as unknown as Platform;
const apply = createEventApplier({ platform, configs: { get: async (org) => (org === ORG ? compiled : null) }, flusher: { flushNow: async () => undefined } });

let handled = 0;
let done: () => void;
const drained = new Promise<void>((resolve) => (done = resolve));
const profileFile = process.env.WEIR_CPU_PROFILE;
const session = new Session();
if (profileFile) {
  session.connect();
  // Every allocation counts, not only what survives: the garbage is what the collector's share pays for.
  await session.post('HeapProfiler.startSampling', { samplingInterval: 4096, includeObjectsCollectedByMajorGC: true, includeObjectsCollectedByMinorGC: true });
  await session.post('Profiler.enable');
  // 100 µs instead of the default 1 ms: items of a few µs per event need more than a few hundred samples.
  await session.post('Profiler.setSamplingInterval', { interval: 100 });
  await session.post('Profiler.start');
}
const startedAt = performance.now();
const cpuAtStart = process.cpuUsage();
overlap?.start();
const stage = await startStage<TopicEvent>({
  platform,
  name: process.env.WEIR_CPU_STAGE!,
  topic,
  // The schema pipelines/counters/index.ts gives its stage: compiled by zod since issue 31's CPU round.
  schema: (schemas as Partial<typeof schemas>).compiledTopicEventSchema ?? schemas.topicEventSchema,
  handle: async (records: Decoded<TopicEvent>[]) => {
    overlap?.planning();
    await apply(records);
    handled += records.length;
    if (handled >= events) done();
  },
});
await drained;
// Profile timestamps are CLOCK_MONOTONIC µs; samples after this (stopping the profiler) are cut.
const endedAt = Number(process.hrtime.bigint() / 1000n);
const cpu = process.cpuUsage(cpuAtStart);
const wallMs = performance.now() - startedAt;
const sampled = overlap?.stop();
if (profileFile) {
  await writeFile(profileFile, JSON.stringify({ ...(await session.post('Profiler.stop')).profile, endedAt }));
  await writeFile(profileFile.replace(/\.cpuprofile$/, '.heapprofile'), JSON.stringify((await session.post('HeapProfiler.stopSampling')).profile));
}
console.log(JSON.stringify({ handled, cpuMicros: cpu.user + cpu.system, wallMs, ...(sampled ? { overlap: sampled } : {}) }));
await stage.stop();
await bus.close();
await windows.close();
process.exit(0);
