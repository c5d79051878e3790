import { fmt, median, runPair, type Beside } from '../harness.js';
import { withFilledBroker } from './filled-broker.js';
import { streamsSide, STREAM_THREADS, type IdCheck } from './streams-side.js';
import { weirSide, type WeirStore } from './weir-side.js';


/**
 * The counters pair (bench/peers/counters.ts), its Weir side on Redis or on the embedded default's
 * LMDB (bench/peers/counters-lmdb.ts): the same broker setup, workload, checks and Kafka Streams side.
 * `ids` is where Kafka Streams checks the event ids (streams-side.ts): `window`, Weir's guarantee, is
 * bench/peers/counters-ids.ts.
 */
export async function countersPair(store: WeirStore, ids: IdCheck = 'partition'): Promise<void> {
  const run = Date.now().toString(36);
  const notes: string[] = [];
  const beside: Beside[] = [];
  await withFilledBroker(notes, async ({ broker, admin, ctx }) => {
    const weirRates: number[] = [];
    const weir = weirSide(ctx, store);
    const id = `counters${store === 'redis' ? '' : '-lmdb'}${ids === 'partition' ? '' : '-ids'}`;
    await runPair({
      id,
      order: (store === 'redis' ? 1 : 1.5) + (ids === 'partition' ? 0 : 0.2),
      title: `Counters: Weir on Kafka + ${store === 'redis' ? 'Redis' : 'LMDB (the embedded default)'} vs Kafka Streams 3.9.2${ids === 'partition' ? '' : ', its event ids checked as Weir checks them (repartitioned by id, a one-day window store)'}`,
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
      peer: streamsSide({ admin, brokers: broker.brokers, brokerPid: broker.pid, filledAt: ctx.filledAt, notes, run }, ids),
      commands: [
        `npm run bench:peers -- ${id}`,
        '# or alone:',
        `node --expose-gc --max-semi-space-size=64 --heap-growing-percent=100 --import tsx bench/peers/${id}.ts`,
        '# events arriving at the present time:',
        `WEIR_PEERS_COUNTERS_SPREAD_HOURS=0 npm run bench:peers -- ${id}`,
      ],
      guarantees: [
        ...(ids === 'window'
          ? ['What differs from the pair `counters`: there Kafka Streams checks an id in the counting task, per partition (an event re-sent with another entity key is counted twice) and keeps every id for ever; here it checks it as Weir does, once per organization across partitions, forgotten after a day: `events` is re-keyed by org:event_id through a repartition topic to a task holding a persistent window store of one day (the deduplication example of Kafka Streams), then re-keyed by org:entity through a second repartition topic to the counting task, which no longer checks ids. The entity key rides in a record header meanwhile; two more topics written and read, each event parsed twice. The workload has unique ids, so the counts are exact either way; what this pair prices is the guarantee.']
          : []),
        ids === 'partition'
          ? 'Ids: Weir counts an event id once per organization across intake and every partition and forgets it after its window; Kafka Streams here checks it in the counting task, per partition (an event re-sent with another entity key would be counted twice) and keeps every id for ever. The workload has unique ids, so counts are exact on both sides; the pair `counters-ids` runs Kafka Streams with Weir\'s guarantee.'
          : 'Ids: both count an event id once per organization across partitions and forget it after a day.',
        'Both: windows exact to the second at both edges (per-second buckets, a window at now covers (now − window, now]); the same three values, checked on 50 sampled entities after every drain against values computed from the generator.',
        store === 'lmdb'
          ? 'Weir: consumer offsets committed after the LMDB window store synced the batch to disk (kill -9 safe); once ids kept 25 hours; buckets leave the store as they leave the window; the flusher writes the values to the counter table (chDB) every 10 s during the drain.'
          : 'Weir: consumer offsets committed after the Redis window store answered; once ids counted for 25 hours (claimed by the consumer with plain commands, their keys kept in Redis up to twice that); state in Redis with AOF appendfsync everysec (a Redis process crash loses nothing; a machine crash up to about one second of answered writes); the 1-second command timeout of the defaults; buckets leave Redis as they leave the window; the flusher writes the values to the counter table (chDB) every 10 s during the drain.',
        `Kafka Streams: exactly_once_v2 (store changes, their changelog records and the offsets in one Kafka transaction, committed every 100 ms); statestore.cache.max.bytes=0, so every store update goes to its changelog topic as it happens; RocksDB stores restored from the changelogs (replication factor 1 on this one broker); ${STREAM_THREADS} stream threads; ${ids === 'partition' ? 'the event-id store and old buckets are never pruned (no punctuator: the run is shorter than a window)' : 'the id window store drops its segments a day behind the stream time (record time, the fill instant here); old buckets are never pruned (no punctuator: the run is shorter than a window); an event is settled once committed on `events` and applied by the counting task (its transaction commits within the 100 ms after)'}.`,
      ],
      notes,
      beside,
    });
  });
}
