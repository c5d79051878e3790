import { ConfigResourceTypes, Kafka, logLevel } from 'kafkajs';
import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { minInsyncReplicasFor } from '../infra/bus/kafka/admin.js';
import { createKafkaBus } from '../infra/bus/kafka/index.js';
import { uniqueName } from './contracts/bus.js';
import { requireAddress, shouldRun } from './support/infra.js';

/** Issue 10: `acks=all` means what it says only with min.insync.replicas above one where there are copies. */
describe('kafka topic durability', () => {
  it('asks for two in-sync copies wherever there are two', () => {
    expect([1, 2, 3].map(minInsyncReplicasFor)).toEqual([1, 2, 2]);
  });

  it.skipIf(!shouldRun('kafkaBrokers'))('creates topics with min.insync.replicas set', async () => {
    const brokers = requireAddress('kafkaBrokers').split(',');
    const bus = createKafkaBus({ brokers, clientId: `weir-test-${process.pid}`, log: pino({ level: 'silent' }) });
    const admin = new Kafka({ brokers, clientId: `weir-test-admin-${process.pid}`, logLevel: logLevel.NOTHING }).admin();
    try {
      const topic = uniqueName('isr');
      await bus.ensureTopics([{ topic, partitions: 1 }]);
      await admin.connect();
      const { brokers: cluster } = await admin.describeCluster();
      const described = await admin.describeConfigs({ includeSynonyms: false, resources: [{ type: ConfigResourceTypes.TOPIC, name: topic, configNames: ['min.insync.replicas'] }] });
      const entry = described.resources[0]!.configEntries.find((e) => e.configName === 'min.insync.replicas');
      expect(entry).toMatchObject({ configValue: String(minInsyncReplicasFor(Math.min(3, cluster.length))), isDefault: false });
    } finally {
      await admin.disconnect();
      await bus.close();
    }
  });
});
