import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Kafka, logLevel } from 'kafkajs';
import { describe, expect, it } from 'vitest';
import { committedSum } from '../bench/peers/counters/drain.js';
import { build, startStreamsApp, type QueryAnswer } from '../bench/peers/counters/streams-side.js';
import { requireAddress, shouldRun } from './support/infra.js';

describe.runIf(shouldRun('kafkaBrokers'))('peers: Kafka Streams counting ids as Weir does (CountersApp window mode)', () => {
  it('counts an event id once when it comes with two entity keys on two partitions', { timeout: 240_000 }, async () => {
    await build();
    const brokers = requireAddress('kafkaBrokers').split(',');
    const admin = new Kafka({ clientId: 'peers-ids-test', brokers, logLevel: logLevel.ERROR }).admin();
    const producer = new Kafka({ clientId: 'peers-ids-test', brokers, logLevel: logLevel.ERROR }).producer();
    const topic = `peers-ids-${Date.now().toString(36)}`;
    const appId = `${topic}-app`;
    const stateDir = await mkdtemp(path.join(os.tmpdir(), 'peers-ids-state-'));
    await Promise.all([admin.connect(), producer.connect()]);
    await admin.createTopics({ topics: [{ topic, numPartitions: 2 }], waitForLeaders: true });
    const event = (id: string, entity: string) => JSON.stringify({ org_id: 'peers', event_id: id, entity_id: entity, event_type: 'txn', occurred_at: new Date().toISOString(), value: 2.5 });
    // ev-1 re-sent under another entity key, so on another partition; ev-2 once.
    await producer.send({
      topic,
      acks: -1,
      messages: [
        { partition: 0, key: 'peers:a', value: event('ev-1', 'a') },
        { partition: 1, key: 'peers:b', value: event('ev-1', 'b') },
        { partition: 0, key: 'peers:a', value: event('ev-2', 'a') },
      ],
    });
    const app = startStreamsApp({ brokers, topic, appId, stateDir, threads: 1, ids: 'window' });
    try {
      const counted = async () => (await app.ask<{ counted: number }>('counted')).counted;
      const started = performance.now();
      while ((await committedSum(admin, appId, topic)) < 3 || (await counted()) < 2) {
        expect(app.child.exitCode).toBeNull();
        expect(performance.now() - started).toBeLessThan(180_000);
        await new Promise((r) => setTimeout(r, 200));
      }
      // Time for the re-sent id to come through, were it to be counted again.
      await new Promise((r) => setTimeout(r, 3_000));
      expect(await counted()).toBe(2);
      const { values } = await app.ask<QueryAnswer>('query peers:a peers:b');
      const [countA, sumA] = values['peers:a']!;
      const [countB, sumB] = values['peers:b']!;
      expect(countA + countB).toBe(2);
      expect(sumA + sumB).toBe(5);
    } finally {
      await app.stop();
      await producer.disconnect();
      const topics = (await admin.listTopics()).filter((t) => t === topic || t.startsWith(`${appId}-`));
      await admin.deleteTopics({ topics });
      await admin.disconnect();
      await rm(stateDir, { recursive: true, force: true });
    }
  });
});
