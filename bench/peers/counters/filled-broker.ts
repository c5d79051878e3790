import { mkdtemp } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Kafka, logLevel, type Admin } from 'kafkajs';
import { EVENTS_TOPIC } from '../../../pipelines/counters/apply-events.js';
import { fmt } from '../harness.js';
import { startOwnBroker, type OwnBroker } from '../support/kafka-broker.js';
import { configureWeir, type WeirContext } from './weir-side.js';
import { ENTITIES, EVENTS, fillTopic, PARTITIONS, SPREAD_HOURS } from './workload.js';

/**
 * What the counters benches drain: a broker of their own, `events` filled with the workload, and
 * Weir's counter configuration saved (WeirContext). The workload and fill time go to `notes`.
 * `run` gets them; the broker stops after it, whatever it does.
 */
export async function withFilledBroker<T>(notes: string[], run: (filled: { broker: OwnBroker; admin: Admin; ctx: WeirContext }) => Promise<T>): Promise<T> {
  const broker = await startOwnBroker();
  const admin = new Kafka({ clientId: 'peers-admin', brokers: broker.brokers, logLevel: logLevel.ERROR }).admin();
  await admin.connect();
  try {
    await admin.createTopics({ topics: [{ topic: EVENTS_TOPIC, numPartitions: PARTITIONS }], waitForLeaders: true });
    let filledAt = 0;
    const ctx: WeirContext = {
      admin,
      brokers: broker.brokers,
      brokerPid: broker.pid,
      chdbPath: await mkdtemp(path.join(os.tmpdir(), 'peers-chdb-')),
      dataDir: () => mkdtemp(path.join(os.tmpdir(), 'peers-weir-')),
      filledAt: () => filledAt,
      notes,
      ceilings: [],
    };
    await configureWeir(ctx);
    const fillStarted = performance.now();
    filledAt = Date.now();
    await fillTopic(broker.brokers, filledAt);
    const resized = process.env.WEIR_PEERS_COUNTERS_EVENTS || process.env.WEIR_PEERS_COUNTERS_ENTITIES ? ` (this run's size set by WEIR_PEERS_COUNTERS_EVENTS=${EVENTS} WEIR_PEERS_COUNTERS_ENTITIES=${ENTITIES}; the default is 500,000 over 50,000)` : '';
    notes.push(`Workload: ${fmt(EVENTS)} events over ${fmt(ENTITIES)} entities${resized}, ${SPREAD_HOURS === 0 ? 'every occurred_at at the present time' : `occurred_at spread over the ${SPREAD_HOURS} hours before the fill`}, unique ids, JSON as Weir's intake writes them, keyed <org>:<entity>, in ${PARTITIONS} partitions of a broker of the pair's own (infra/scripts/kafka.sh, 512 MiB heap); filled in ${((performance.now() - fillStarted) / 1000).toFixed(0)} s.`);
    return await run({ broker, admin, ctx });
  } finally {
    await admin.disconnect();
    await broker.stop();
  }
}
