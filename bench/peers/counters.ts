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
import { countersPair } from './counters/pair.js';

await countersPair('redis');
