/**
 * The counters pair with Kafka Streams holding Weir's id guarantee: Weir on Kafka + Redis against
 * Kafka Streams 3.9.2 re-keying each event by its id through a repartition topic to a one-day
 * window store, then back by entity to the counting task (CountersApp's `window` mode). The same
 * workload, checks and Weir side as bench/peers/counters.ts, where Kafka Streams checks ids per
 * partition and keeps them for ever. `npm run bench:peers -- counters-ids`.
 */
import '../scratch.js';
import { countersPair } from './counters/pair.js';

await countersPair('redis', 'window');
