import { pino } from 'pino';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { createKafkaBus } from '../infra/bus/kafka/index.js';
import { partitionLag, replicationFactorFor } from '../infra/bus/kafka/admin.js';
import { chunkBySize } from '../infra/chunk.js';
import { keyPartitioner } from '../infra/bus/kafka/partitioner.js';
import { toConsumed } from '../infra/bus/kafka/consumer.js';
import fc from 'fast-check';
import { Kafka, logLevel, Partitioners, type IHeaders, type KafkaMessage, type PartitionMetadata } from 'kafkajs';
import type { Bus } from '../infra/bus/types.js';
import { bodyOf, busContract, consume, jsonMessage, uniqueName } from './contracts/bus.js';
import { busCrashSuite } from './fixtures/bus-crash-harness.js';
import { requireAddress, shouldRun } from './support/infra.js';

describe('kafka bus helpers', () => {
  it('chunks by summed size, keeping order, an oversized item alone', () => {
    expect(chunkBySize([3, 3, 3, 9, 1, 1], (n) => n, 6)).toEqual([[3, 3], [3], [9], [1, 1]]);
    expect(chunkBySize([], (n: number) => n, 6)).toEqual([]);
  });

  it('hands messages over with the last value of each header, those without headers sharing one frozen empty set', () => {
    const message = (headers: IHeaders | undefined) => ({ key: Buffer.from('k'), value: null, timestamp: '1700000000000', attributes: 0, offset: '7', headers }) as KafkaMessage;
    const plain = toConsumed('t', 2, message({}));
    expect(plain).toEqual({ topic: 't', partition: 2, offset: '7', timestamp: 1_700_000_000_000, key: 'k', value: Buffer.alloc(0), headers: {} });
    // One object for every message without headers, not one each: a batch holds thousands.
    expect(toConsumed('t', 2, message(undefined)).headers).toBe(plain.headers);
    expect(Object.isFrozen(plain.headers)).toBe(true);
    expect(toConsumed('t', 2, message({ a: [Buffer.from('1'), Buffer.from('2')], b: 'x', c: undefined })).headers).toEqual({ a: '2', b: 'x' });
  });

  it('counts lag from the committed offset, or from the oldest message when nothing is committed', () => {
    const ends = [
      { partition: 1, high: '10', low: '4' },
      { partition: 0, high: '7', low: '0' },
      { partition: 2, high: '5', low: '5' },
    ];
    expect(partitionLag(ends, [{ partition: 0, offset: '7' }, { partition: 1, offset: '-1' }])).toEqual([
      { partition: 0, lag: 0 },
      { partition: 1, lag: 6 },
      { partition: 2, lag: 0 },
    ]);
  });

  it("places keyed messages where kafkajs's default partitioner does", () => {
    const ours = keyPartitioner();
    const theirs = Partitioners.DefaultPartitioner();
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme', maxLength: 40 }), fc.integer({ min: 1, max: 64 }), (key, n) => {
        const partitionMetadata = Array.from({ length: n }, (_, partitionId): PartitionMetadata => ({ partitionId, leader: 1, replicas: [1], isr: [1], partitionErrorCode: 0 }));
        const args = { topic: 't', partitionMetadata, message: { key, value: 'v' } };
        return ours(args) === theirs(args);
      }),
    );
  });

  it('keeps a keyless message on its first partition when kafkajs places a retried batch again', () => {
    // kafkajs resends a retried batch under the first attempt's sequence numbers; a keyless message
    // moved by its round-robin to another partition was dropped there as a duplicate.
    const place = keyPartitioner();
    const partitionMetadata = Array.from({ length: 3 }, (_, partitionId): PartitionMetadata => ({ partitionId, leader: 1, replicas: [1], isr: [1], partitionErrorCode: 0 }));
    const messages = Array.from({ length: 4 }, (_, seq) => ({ key: null, value: `{"seq":${seq}}` }));
    const attempt = () => messages.map((message) => place({ topic: 't', partitionMetadata, message }));
    const first = attempt();
    expect(attempt()).toEqual(first);
    expect(attempt()).toEqual(first);
    expect(new Set(first).size).toBe(3); // still spread across the partitions
  });

  it('replicates up to three copies, never more than there are brokers', () => {
    expect([1, 2, 3, 5].map(replicationFactorFor)).toEqual([1, 2, 3, 3]);
  });
});

const log = pino({ level: 'error' });
const kafkaBus = (): Bus =>
  createKafkaBus({ brokers: requireAddress('kafkaBrokers').split(','), clientId: `weir-test-${process.pid}`, log });

describe.skipIf(!shouldRun('kafkaBrokers'))('kafka bus on a real broker', () => {
  busContract('kafka', async () => kafkaBus(), { timeoutMs: 60_000 });

  busCrashSuite({
    name: 'kafka',
    async setup() {
      return { bus: kafkaBus(), childEnv: { KAFKA_BROKERS: requireAddress('kafkaBrokers') } };
    },
  });

  it('does not hold a send to one topic behind a large send in flight to another', async () => {
    // kafkajs lets an idempotent producer have one request in flight; a producer shared by every
    // topic made a transaction wait behind a batch of counter events.
    const bus = kafkaBus();
    try {
      const [bulk, urgent] = [uniqueName('bulk'), uniqueName('urgent')];
      await bus.ensureTopics([{ topic: bulk, partitions: 1 }, { topic: urgent, partitions: 1 }]);
      await bus.send(bulk, [jsonMessage('k', { warm: true })]); // connections made before the race
      await bus.send(urgent, [jsonMessage('k', { warm: true })]);
      const finished: string[] = [];
      const padding = 'x'.repeat(10_000);
      // About 8 MB: about ten produce requests, one after another.
      const large = bus.send(bulk, Array.from({ length: 800 }, (_, seq) => jsonMessage('k', { seq, padding }))).then(() => finished.push('bulk'));
      await new Promise((r) => setImmediate(r));
      await bus.send(urgent, [jsonMessage('k', { seq: 0 })]).then(() => finished.push('urgent'));
      await large;
      expect(finished).toEqual(['urgent', 'bulk']);
    } finally {
      await bus.close();
    }
  });

  it('keeps deployments with their own KAFKA_NAMESPACE apart on one cluster: records, groups and lag', async () => {
    const [a, b] = [uniqueName('ns'), uniqueName('ns')];
    const named = (namespace: string): Bus => createKafkaBus({ brokers: requireAddress('kafkaBrokers').split(','), clientId: `weir-test-${process.pid}`, log, namespace });
    const [busA, busB, plain] = [named(a), named(b), kafkaBus()];
    try {
      // The same logical topic and group in both deployments.
      const topic = uniqueName('shared');
      const groupId = uniqueName('g');
      for (const [bus, who] of [[busA, 'a'], [busB, 'b']] as const) {
        await bus.ensureTopics([{ topic, partitions: 2 }]);
        await bus.send(topic, [jsonMessage('k1', { who }), jsonMessage('k2', { who })]);
      }
      const [ca, cb] = await Promise.all([consume(busA, { groupId, topics: [topic] }), consume(busB, { groupId, topics: [topic] })]);
      await Promise.all([ca.waitFor('2 messages', (d) => d.length >= 2), cb.waitFor('2 messages', (d) => d.length >= 2)]);
      await Promise.all([ca.stop(), cb.stop()]);
      // Each member held both partitions of its own topic: no rebalance across deployments.
      expect(ca.delivered.map((m) => [m.topic, bodyOf(m).who])).toEqual([[topic, 'a'], [topic, 'a']]);
      expect(cb.delivered.map((m) => [m.topic, bodyOf(m).who])).toEqual([[topic, 'b'], [topic, 'b']]);
      expect(await busA.lag(groupId, topic)).toEqual([{ partition: 0, lag: 0 }, { partition: 1, lag: 0 }]);
      // On Kafka the names carry the namespace; the bare names hold nothing.
      const seen = await consume(plain, { groupId: uniqueName('g'), topics: [`${a}.${topic}`] });
      await seen.waitFor("a's 2 messages", (d) => d.length >= 2);
      await seen.stop();
      expect(seen.delivered.map((m) => bodyOf(m).who)).toEqual(['a', 'a']);
      expect(await plain.lag(`${a}.${groupId}`, `${a}.${topic}`)).toEqual([{ partition: 0, lag: 0 }, { partition: 1, lag: 0 }]);
    } finally {
      await Promise.all([busA.close(), busB.close(), plain.close()]);
    }
  });

  it('runs several members of a group in one process, so a member whose batch is still being handled holds up none of the others', async () => {
    const bus = kafkaBus();
    const admin = new Kafka({ brokers: requireAddress('kafkaBrokers').split(','), clientId: `weir-test-${process.pid}`, logLevel: logLevel.NOTHING }).admin();
    const topic = uniqueName('members');
    const groupId = uniqueName('g');
    // Two keys on the two partitions of the topic.
    const place = keyPartitioner();
    const partitionMetadata = [0, 1].map((partitionId): PartitionMetadata => ({ partitionId, leader: 1, replicas: [1], isr: [1], partitionErrorCode: 0 }));
    const partitionOf = (key: string) => place({ topic, partitionMetadata, message: { key, value: '' } });
    const keys = Array.from({ length: 20 }, (_, i) => `k${i}`);
    const held = keys[0]!;
    const other = keys.find((k) => partitionOf(k) !== partitionOf(held))!;
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    try {
      await admin.connect();
      await bus.ensureTopics([{ topic, partitions: 2 }]);
      const c = await consume(bus, {
        groupId,
        topics: [topic],
        members: 2,
        handle: async (batch) => {
          if (batch.messages.some((m) => m.key === held)) await gate;
        },
      }, 20_000);
      await bus.send(topic, [jsonMessage(held, { v: 1 })]);
      await vi.waitFor(() => expect(c.attempts.flatMap((b) => b.messages.map((m) => m.key))).toContain(held), { timeout: 30_000, interval: 50 });
      // One member waits in its handler; the other still fetches and hands over its partition's records.
      await bus.send(topic, [jsonMessage(other, { v: 2 })]);
      await c.waitFor(`the record on partition ${partitionOf(other)}`, (d) => d.some((m) => m.key === other));
      expect(c.delivered.map((m) => m.key)).toEqual([other]);
      const [group] = (await admin.describeGroups([groupId])).groups;
      expect(group?.members).toHaveLength(2);
      release();
      await c.waitFor('both records', (d) => d.length === 2);
      await c.stop();
    } finally {
      release();
      await admin.disconnect();
      await bus.close();
    }
  });

  describe('failed batches', () => {
    const buses: Bus[] = [];
    afterAll(async () => {
      await Promise.all(buses.map((b) => b.close()));
    });

    it('redelivers a batch whose handler threw from its first offset, with nothing committed meanwhile', async () => {
      const bus = kafkaBus();
      buses.push(bus);
      const topic = uniqueName('redeliver');
      const groupId = uniqueName('g');
      await bus.ensureTopics([{ topic, partitions: 1 }]);
      await bus.send(topic, ['a', 'b', 'c'].map((v) => jsonMessage('k', { v })));

      const lagDuringRetry: number[] = [];
      let attempt = 0;
      const c = await consume(bus, {
        groupId,
        topics: [topic],
        handle: async () => {
          attempt++;
          if (attempt === 1) throw new Error('handler failure (expected by the test)');
          if (attempt === 2) lagDuringRetry.push(...(await bus.lag(groupId, topic)).map((p) => p.lag));
        },
      });
      await c.waitFor('3 messages', (d) => d.length >= 3);
      await c.stop();

      expect(c.attempts.map((b) => b.messages.map((m) => m.offset))).toEqual([['0', '1', '2'], ['0', '1', '2']]);
      // The failed attempt committed nothing: all three were still outstanding on the retry.
      expect(lagDuringRetry).toEqual([3]);
      expect(await bus.lag(groupId, topic)).toEqual([{ partition: 0, lag: 0 }]);
    });
  });
});
