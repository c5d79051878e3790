/**
 * The counters pair with Weir on the embedded default's window store: Weir on Kafka + LMDB against
 * Kafka Streams 3.9.2, the same workload, checks and peer as bench/peers/counters.ts (issue 31 asks
 * for the embedded default's figure beside Redis's). `npm run bench:peers -- counters-lmdb`.
 */
import '../scratch.js';
import { countersPair } from './counters/pair.js';

await countersPair('lmdb');
