import { mkdtemp } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import { Redis } from 'ioredis';
import { pino } from 'pino';
import { Registry } from 'prom-client';
import { afterEach, describe, expect, it } from 'vitest';
import { createEmbeddedBus } from '../infra/bus/embedded/index.js';
import { createKafkaBus } from '../infra/bus/kafka/index.js';
import { dlqTopic, type Bus } from '../infra/bus/types.js';
import { systemClock } from '../infra/clock.js';
import { up } from '../infra/health.js';
import { createCodec } from '../infra/codec/index.js';
import type { Platform } from '../infra/platform.js';
import { createRedisWindowStore } from '../infra/windows/redis/index.js';
import { failFastOnOutage } from '../infra/windows/redis/outage.js';
import { compileConfig } from '../domain/counters/compile.js';
import { liveReads, liveValues } from '../domain/counters/live-values.js';
import { counterConfigSchema, type TopicEvent } from '../schemas/http/counters.js';
import { createEventApplier, EVENTS_TOPIC } from '../pipelines/counters/apply-events.js';
import { startStage } from '../pipelines/stage.js';
import { topicEventSchema } from '../schemas/http/counters.js';
import { jsonMessage, uniqueName } from './contracts/bus.js';
import { requireAddress, shouldRun } from './support/infra.js';
import { hasRedisServer, startRedisServer } from './support/redis-server.js';

/**
 * Issue 31: a backlog drains at the window store's pace. A topic of six partitions is filled
 * before the counter stage starts, against a Redis of the test's own that a second connection keeps
 * blocking (DEBUG SLEEP in a loop), with the store's default 1-second command timeout. Every
 * partition's batch then asks for dozens of apply scripts at once; sent together they queue seconds
 * of work ahead of the last one, which times out, fails its batch and, on Kafka, restarts the
 * consumer. Bounded in flight, they wait in the process instead: no failed batch, no restart,
 * nothing dead-lettered, and every event counted once.
 *
 * EVENTS events (the issue's figure is a million; this many keep the test well under a minute on a
 * quiet machine and already queue ten times the timeout without the bound).
 */
const EVENTS = 24_000;
const ENTITIES = 600;
const PARTITIONS = 6;
/** Each DEBUG SLEEP blocks the server this long; the sleeper sends the next one as soon as it is answered. */
const SLEEP_SECONDS = '0.02';

const config = counterConfigSchema.parse({
  version: 1,
  flush_interval_seconds: 10,
  counters: [
    { name: 'n_1h', event_type: 'pay', aggregate: 'count', window: { amount: 1, unit: 'hours' } },
    { name: 'amount_24h', event_type: 'pay', aggregate: 'sum', window: { amount: 24, unit: 'hours' } },
    { name: 'last_pay', event_type: 'pay', aggregate: 'last_seen' },
  ],
});

/** A pino logger whose lines are kept, to count what kafkajs says of failed batches and restarts. */
function recordingLog(): { log: pino.Logger; lines: string[] } {
  const lines: string[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _enc, done) {
      lines.push(...chunk.toString('utf8').split('\n').filter(Boolean));
      done();
    },
  });
  return { log: pino({ level: 'warn' }, sink), lines };
}

function backpressureSuite(name: string, openBus: (log: pino.Logger) => Promise<Bus>) {
  describe(`the counter stage on ${name} against a slowed Redis`, () => {
    const cleanups: (() => Promise<unknown>)[] = [];
    afterEach(async () => {
      for (const c of cleanups.splice(0).reverse()) await c();
    });

    it('drains a backlog with no failed batch, no restart, nothing dead-lettered, each event counted once', async () => {
      const redisServer = await startRedisServer(['--enable-debug-command', 'yes']);
      cleanups.push(() => redisServer.kill());
      const { log, lines } = recordingLog();
      const bus = await openBus(log);
      cleanups.push(() => bus.close());
      const windows = failFastOnOutage(createRedisWindowStore({ url: redisServer.url, keyPrefix: `bp:${process.pid}:` }));
      cleanups.push(() => windows.close());

      const org = uniqueName('org_bp');
      const topic = uniqueName('events-bp');
      await bus.ensureTopics([{ topic, partitions: PARTITIONS }, { topic: dlqTopic(topic), partitions: 1 }, { topic: dlqTopic(EVENTS_TOPIC), partitions: 1 }]);
      const now = Date.now();
      const expected = new Map<string, { n: number; sum: number; last: number }>();
      const messages = Array.from({ length: EVENTS }, (_, i) => {
        const entity = `e${i % ENTITIES}`;
        const at = now - 3_000_000 + (i % 3000) * 1000;
        const value = 1 + (i % 9);
        const x = expected.get(entity) ?? { n: 0, sum: 0, last: 0 };
        expected.set(entity, { n: x.n + 1, sum: x.sum + value, last: Math.max(x.last, at) });
        return jsonMessage(`${org}:${entity}`, { org_id: org, event_id: `${org}-${i}`, entity_id: entity, event_type: 'pay', occurred_at: new Date(at).toISOString(), value });
      });
      await bus.send(topic, messages);

      const slow = new Redis(redisServer.url);
      cleanups.push(async () => slow.disconnect());
      let slowing = true;
      const sleeper = (async () => {
        while (slowing) await slow.call('DEBUG', 'SLEEP', SLEEP_SECONDS);
      })();
      cleanups.push(async () => {
        slowing = false;
        await sleeper.catch(() => undefined);
      });

      const compiled = compileConfig(org, config, []);
      const metrics = new Registry();
      const platform = { bus, codec: createCodec(), log, metrics, windows, clock: systemClock } as unknown as Platform;
      const handle = createEventApplier({ platform, configs: { get: async (o) => (o === org ? compiled : null) }, flusher: { flushNow: async () => undefined } });
      const stageName = uniqueName('counters-bp');
      const stage = await startStage<TopicEvent>({ platform, name: stageName, topic, schema: topicEventSchema, handle });
      cleanups.push(() => stage.stop());

      const deadline = Date.now() + 120_000;
      while (!(await bus.lag(`weir.${stageName}`, topic)).every((p) => p.lag === 0)) {
        if (Date.now() > deadline) throw new Error(`backlog not drained: ${JSON.stringify(await bus.lag(`weir.${stageName}`, topic))}`);
        await new Promise((r) => setTimeout(r, 100));
      }
      slowing = false;
      await sleeper;

      const counted = async (metric: string): Promise<number> => (await metrics.getSingleMetric(metric)!.get()).values.find((v) => v.labels.stage === stageName)?.value ?? 0;
      expect(await counted('weir_stage_failed_batches_total')).toBe(0);
      expect(await counted('weir_stage_dead_lettered_total')).toBe(0);
      expect(await counted('weir_stage_messages_total')).toBe(EVENTS);
      expect(lines.filter((l) => l.includes('Restarting the consumer'))).toEqual([]);
      expect(lines.filter((l) => l.includes('Error when calling eachBatch'))).toEqual([]);
      expect(stage.health?.()).toEqual(up);

      const readAt = Date.now();
      const reads = liveReads(compiled, readAt);
      const answers = await windows.readMany([...expected.keys()].map((id) => ({ entity: { scope: org, id }, reads })));
      const got = answers.map((a) => liveValues(compiled, a));
      expect(got).toEqual([...expected.values()].map((x) => ({ n_1h: x.n, amount_24h: x.sum, last_pay: new Date(x.last).toISOString() })));
    });
  });
}

describe.skipIf(!hasRedisServer())('backpressure (issue 31)', () => {
  backpressureSuite('the embedded log', async (log) => createEmbeddedBus({ dir: await mkdtemp(path.join(os.tmpdir(), 'weir-bp-')), log, retryBackoffMs: 20, pollIntervalMs: 50, maxBatchBytes: 4 << 20 }));

  describe.skipIf(!shouldRun('kafkaBrokers'))('on Kafka', () => {
    backpressureSuite('Kafka, six partitions in flight', async (log) =>
      createKafkaBus({ brokers: requireAddress('kafkaBrokers').split(','), clientId: `weir-test-${process.pid}`, log, tuning: { partitionsConsumedConcurrently: PARTITIONS } }),
    );
  });
});
