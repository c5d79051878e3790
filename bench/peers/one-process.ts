/**
 * Pair 3 on the embedded default (embedded log, LMDB window store, chDB): see one-process/pair.ts.
 * `npm run bench:peers -- one-process`, or alone
 * `node --expose-gc --max-semi-space-size=64 --heap-growing-percent=100 --import tsx bench/peers/one-process.ts`.
 */
import '../scratch.js';
import { requireStartNodeOptions } from '../bench-server.js';
import { runOneProcessPair } from './one-process/pair.js';

requireStartNodeOptions();
await runOneProcessPair({
  id: 'one-process',
  order: 3,
  backEnd: 'embedded default',
  env: {},
  commands: ['npm run bench:peers -- one-process', '# or alone:', 'node --expose-gc --max-semi-space-size=64 --heap-growing-percent=100 --import tsx bench/peers/one-process.ts'],
  guarantees: [
    'Both sides: the same process and the same transactions (each decided by a rule reading two live counters, the decision durably in the embedded log before the answer).',
    'The counter events: each answered 202 once in the embedded log (O_DSYNC); applied once per event id to the LMDB window store by the pipeline in the same process.',
  ],
  notes: [
    'On Kafka + Redis the issue asks for the --role split (counters apart from the API); both processes would need one ClickHouse server (counter configurations live there), and this machine has none, so that split is not measured here; the one-process run on Kafka + Redis is the pair below it.',
  ],
});
process.exit(0);
