/**
 * Pair 1: event counters, Weir on Kafka + Redis against Kafka Streams 3.9.2, on one broker of the
 * pair's own. Both drain the same pre-filled `events` topic (6 partitions; by default 500,000 events
 * over 50,000 entities, occurred_at spread over the last 24 hours, unique ids) computing the same
 * three counters; the figure is settled events per second (bench/peers/counters/drain.ts). After
 * each drain, 50 sampled entities are read from each side and checked against their true values.
 * Beside: the Redis window store's own ceiling for the same updates.
 *
 * `npm run bench:peers -- counters`, or alone
 * `node --expose-gc --max-semi-space-size=64 --heap-growing-percent=100 --import tsx bench/peers/counters.ts`.
 * WEIR_PEERS_COUNTERS_EVENTS, WEIR_PEERS_COUNTERS_ENTITIES change the workload;
 * WEIR_PEERS_COUNTERS_SPREAD_HOURS=0 puts every event at the present time.
 */
import '../scratch.js';
import { mkdtemp } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Kafka, logLevel } from 'kafkajs';
import { EVENTS_TOPIC } from '../../pipelines/counters/apply-events.js';
import { fmt, median, runPair, type Beside } from './harness.js';
import { startOwnBroker } from './support/kafka-broker.js';
import { streamsSide, STREAM_THREADS } from './counters/streams-side.js';
import { configureWeir, weirSide, type WeirContext } from './counters/weir-side.js';
import { ENTITIES, EVENTS, fillTopic, PARTITIONS, SPREAD_HOURS } from './counters/workload.js';

const run = Date.now().toString(36);
const notes: string[] = [];
const beside: Beside[] = [];
const broker = await startOwnBroker();
const admin = new Kafka({ clientId: 'peers-admin', brokers: broker.brokers, logLevel: logLevel.ERROR }).admin();
await admin.connect();
try {
  await admin.createTopics({ topics: [{ topic: EVENTS_TOPIC, numPartitions: PARTITIONS }], waitForLeaders: true });
  let filledAt = 0;
  const weirRates: number[] = [];
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
  notes.push(`Workload: ${fmt(EVENTS)} events over ${fmt(ENTITIES)} entities (ten each by default), ${SPREAD_HOURS === 0 ? 'every occurred_at at the present time' : `occurred_at spread over the ${SPREAD_HOURS} hours before the fill`}, unique ids, JSON as Weir's intake writes them, keyed <org>:<entity>, in ${PARTITIONS} partitions of a broker of the pair's own (infra/scripts/kafka.sh, 512 MiB heap); filled in ${((performance.now() - fillStarted) / 1000).toFixed(0)} s.`);

  const weir = weirSide(ctx);
  await runPair({
    id: 'counters',
    order: 1,
    title: 'Counters: Weir on Kafka + Redis vs Kafka Streams 3.9.2',
    metric: 'settled events/s',
    higherIsBetter: true,
    goal: { ratio: 1, text: 'Weir ≥ 1.0× Kafka Streams' },
    weir: {
      ...weir,
      run: async (round) => {
        const rate = await weir.run(round);
        weirRates.push(rate);
        return rate;
      },
      // The store's ceiling, measured in each Weir round after its drain, goes beside the pair.
      teardown: async () => {
        if (ctx.ceilings.length === 0) return;
        beside.push({ name: "Weir's Redis window store alone, the same updates (planEvent, apply with once ids, calls of 500, six in flight)", value: median(ctx.ceilings), unit: 'events/s', text: `median of ${ctx.ceilings.map((c) => fmt(c)).join(', ')}` });
        beside.push({ name: 'Weir / its store alone, median of the rounds (goal of the counters work: ≥ 0.7×)', value: median(weirRates.map((r, i) => r / ctx.ceilings[i]!)), unit: '×' });
      },
    },
    peer: streamsSide({ admin, brokers: broker.brokers, brokerPid: broker.pid, filledAt: () => filledAt, notes, run }),
    commands: [
      'npm run bench:peers -- counters',
      '# or alone:',
      'node --expose-gc --max-semi-space-size=64 --heap-growing-percent=100 --import tsx bench/peers/counters.ts',
      '# events arriving at the present time:',
      'WEIR_PEERS_COUNTERS_SPREAD_HOURS=0 npm run bench:peers -- counters',
    ],
    guarantees: [
      'Both: each event id counted once per organization; windows exact to the second at both edges (per-second buckets, a window at now covers (now − window, now]); the same three values, checked on 50 sampled entities after every drain against values computed from the generator.',
      'Weir: consumer offsets committed after the Redis window store answered; once ids kept 25 hours in Redis; state in Redis with AOF appendfsync everysec (a Redis process crash loses nothing; a machine crash up to about one second of answered writes); the 1-second command timeout of the defaults; buckets leave Redis as they leave the window; the flusher writes the values to the counter table (chDB) every 10 s during the drain.',
      `Kafka Streams: exactly_once_v2 (store changes, their changelog records and the offsets in one Kafka transaction, committed every 100 ms); statestore.cache.max.bytes=0, so every store update goes to its changelog topic as it happens; RocksDB stores restored from the changelogs (replication factor 1 on this one broker); ${STREAM_THREADS} stream threads; the event-id store and old buckets are never pruned (no punctuator: the run is shorter than a window).`,
    ],
    notes,
    beside,
  });
} finally {
  await admin.disconnect();
  await broker.stop();
}
