/**
 * The Kafka Streams side of the counters pair: bench/peers/kafka-streams (Kafka Streams 3.9.2,
 * RocksDB stores, exactly_once_v2, no record cache), built with Maven on first use. Per round a new
 * application id (its own consumer group, changelog and repartition topics and state directory)
 * drains the same `events` backlog; then the sample is read through its interactive queries and
 * checked. The event ids are checked per partition in the counting task (`partition`, the pair
 * `counters`) or, as Weir checks them, in a task of their own behind a repartition by id, in a
 * one-day window store (`window`, the pair `counters-ids`).
 */
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, statSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { promisify } from 'node:util';
import type { Admin } from 'kafkajs';
import { EVENTS_TOPIC } from '../../../pipelines/counters/apply-events.js';
import { fmt, repoRoot, type Side } from '../harness.js';
import { coreMicros, coreShares, processCpuMicros } from '../support/cpu.js';
import { killOnExit } from '../support/kill-on-exit.js';
import { committedSum, waitDrained } from './drain.js';
import { entityOf, EVENTS, mismatches, ORG, sampleEntities, type Values } from './workload.js';

const project = path.join(repoRoot, 'bench/peers/kafka-streams');
const sources = [path.join(project, 'pom.xml'), path.join(project, 'src/main/java/weir/peers/CountersApp.java')];
const built = path.join(project, 'target/kafka-streams-counters-1.0.0.jar');
/** One stream thread per core of this machine. */
export const STREAM_THREADS = os.cpus().length;
const DRAIN_TIMEOUT_MS = 15 * 60_000;

/** Where the application checks event ids: CountersApp's last argument (its class comment). */
export type IdCheck = 'partition' | 'window';

export interface StreamsContext {
  admin: Admin;
  brokers: string[];
  brokerPid: number;
  filledAt: () => number;
  notes: string[];
  run: string;
}

/** `mvn package` unless the jar is newer than its sources; answers what it did, with the time taken. */
export async function build(): Promise<string> {
  if (existsSync(built) && sources.every((s) => statSync(s).mtimeMs < statSync(built).mtimeMs)) return 'the Kafka Streams application was already built';
  const started = performance.now();
  await promisify(execFile)('mvn', ['-B', '-q', '-f', path.join(project, 'pom.xml'), 'package'], { maxBuffer: 16 << 20 });
  return `the Kafka Streams application was built with Maven (dependencies from Maven Central, cached in ~/.m2) in ${((performance.now() - started) / 1000).toFixed(0)} s`;
}

/** Lines the application prints, one at a time. */
function lineReader(child: ChildProcess): () => Promise<string> {
  const waiting: ((line: string) => void)[] = [];
  const ready: string[] = [];
  createInterface({ input: child.stdout! }).on('line', (line) => (waiting.length > 0 ? waiting.shift()!(line) : ready.push(line)));
  return () => (ready.length > 0 ? Promise.resolve(ready.shift()!) : new Promise((resolve) => waiting.push(resolve)));
}

export interface StreamsApp {
  child: ChildProcess;
  /** Sends a command (`query <key> ...`, `counted`) and answers its JSON line. */
  ask: <T>(command: string) => Promise<T>;
  stop: () => Promise<void>;
}

/** Spawns CountersApp; the caller stops it. */
export function startStreamsApp(opts: { brokers: string[]; topic: string; appId: string; stateDir: string; threads: number; ids: IdCheck }): StreamsApp {
  const child = spawn('java', ['-Dorg.slf4j.simpleLogger.defaultLogLevel=warn', '-cp', `${path.join(project, 'target/classes')}:${path.join(project, 'target/lib/*')}`, 'weir.peers.CountersApp', opts.brokers.join(','), opts.topic, opts.appId, opts.stateDir, String(opts.threads), opts.ids], {
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  const release = killOnExit(child);
  const next = lineReader(child);
  return {
    child,
    async ask<T>(command: string) {
      child.stdin!.write(`${command}\n`);
      let line = await next();
      while (!line.startsWith('{')) line = await next();
      return JSON.parse(line) as T;
    },
    async stop() {
      await stop(child);
      release();
    },
  };
}

/** Values of `<org>:<entity>` keys, as CountersApp's `query` answers them. */
export type QueryAnswer = { now: number; values: Record<string, [number, number, number | null]> };

async function readSample(app: StreamsApp): Promise<Map<number, { values: Values; now: number }>> {
  const keys = sampleEntities().map((e) => `${ORG}:${entityOf(e)}`);
  const answer = await app.ask<QueryAnswer>(`query ${keys.join(' ')}`);
  return new Map(sampleEntities().map((e) => {
    const [count1h, sum24h, lastSeen] = answer.values[`${ORG}:${entityOf(e)}`]!;
    return [e, { now: answer.now, values: { count1h, sum24h, lastSeen } }];
  }));
}

async function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  child.stdin!.end('stop\n');
  const killer = setTimeout(() => child.kill('SIGKILL'), 60_000);
  await once(child, 'exit');
  clearTimeout(killer);
}

export function streamsSide(ctx: StreamsContext, ids: IdCheck): Side {
  const idStore = ids === 'partition' ? 'an event-id store' : 'event ids re-keyed through a repartition topic to a one-day window store, re-keyed back';
  return {
    name: `Kafka Streams 3.9.2 (per-second buckets and ${idStore} in RocksDB, exactly_once_v2, cache off, ${STREAM_THREADS} stream threads)`,
    async setup() {
      ctx.notes.push(`Install: ${await build()}.`);
    },
    async run(round) {
      const appId = `peers-ks${ids === 'partition' ? '' : '-ids'}-${ctx.run}-r${round + 1}`;
      const stateDir = await mkdtemp(path.join(os.tmpdir(), 'peers-ks-state-'));
      const startedAt = performance.now();
      const app = startStreamsApp({ brokers: ctx.brokers, topic: EVENTS_TOPIC, appId, stateDir, threads: STREAM_THREADS, ids });
      const { child } = app;
      // Behind the repartition topics an event committed on `events` may not be counted yet: settled
      // are the events both committed there and applied by the counting tasks (whose last
      // transaction commits within the 100 ms commit interval after).
      const settled = ids === 'partition' ? undefined : async () => Math.min(await committedSum(ctx.admin, appId, EVENTS_TOPIC), (await app.ask<{ counted: number }>('counted')).counted);
      const cpu = async () => ({ at: performance.now(), streams: await processCpuMicros(child.pid!), broker: await processCpuMicros(ctx.brokerPid), core: await coreMicros(child.pid!) });
      let atFirst: Awaited<ReturnType<typeof cpu>> | undefined;
      try {
        const drain = await waitDrained({ admin: ctx.admin, groupId: appId, topic: EVENTS_TOPIC, total: EVENTS, startedAt, timeoutMs: DRAIN_TIMEOUT_MS, alive: () => child.exitCode === null, onStart: async () => void (atFirst = await cpu()), settled });
        const atEnd = await cpu();
        const per = (k: 'streams' | 'broker') => ((atEnd[k] - atFirst![k]) / EVENTS).toFixed(0);
        const cores = coreShares(atFirst!.core, atEnd.core, (atEnd.at - atFirst!.at) * 1000);
        const wrong = mismatches(await readSample(app), ctx.filledAt());
        ctx.notes.push(
          `Kafka Streams round ${round + 1}: ${fmt(drain.rate)} events/s from the group Stable to the last commit (${fmt(EVENTS)} events); Stable ${(drain.startupMs / 1000).toFixed(1)} s after spawn, all settled ${(drain.totalMs / 1000).toFixed(1)} s after; CPU per event ${per('streams')} µs its JVM, ${per('broker')} µs broker; share of the span on a core / waiting for one: all its JVM's threads ${cores.all}; ${wrong.length === 0 ? `the ${sampleEntities().length} sampled entities read exactly their true values` : `WRONG VALUES: ${wrong.join('; ')}`}.`,
        );
        return drain.rate;
      } finally {
        await app.stop();
        await rm(stateDir, { recursive: true, force: true });
      }
    },
  };
}
