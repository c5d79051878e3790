/**
 * Pair 3 on Kafka + Redis, one process (`--role all`): see one-process/pair.ts. The broker and the
 * redis-server (AOF, fsync every second) are the pair's own. The issue's `--role` split needs a
 * ClickHouse server both processes share, which this machine lacks.
 * `npm run bench:peers -- one-process-kafka`, or alone
 * `node --expose-gc --max-semi-space-size=64 --heap-growing-percent=100 --import tsx bench/peers/one-process-kafka.ts`.
 */
import '../scratch.js';
import { requireStartNodeOptions } from '../bench-server.js';
import { startRedisServer } from '../../test/support/redis-server.js';
import { runOneProcessPair } from './one-process/pair.js';
import { startOwnBroker } from './support/kafka-broker.js';
import { DURABLE_REDIS } from './counters/weir-side.js';

requireStartNodeOptions();
const broker = await startOwnBroker();
const redis = await startRedisServer(DURABLE_REDIS);
try {
  await runOneProcessPair({
    id: 'one-process-kafka',
    order: 3.5,
    backEnd: 'Kafka + Redis',
    env: { KAFKA_BROKERS: broker.brokers.join(','), REDIS_URL: redis.url },
    commands: ['npm run bench:peers -- one-process-kafka', '# or alone:', 'node --expose-gc --max-semi-space-size=64 --heap-growing-percent=100 --import tsx bench/peers/one-process-kafka.ts'],
    guarantees: [
      'Both sides: the same process and the same transactions (each decided by a rule reading two live counters from Redis, the decision durably on Kafka, acks=all, before the answer).',
      "The counter events: each answered 202 once on Kafka (acks=all); applied once per event id to the Redis window store (AOF, fsync every second) by the pipeline in the same process. Broker and Redis are the pair's own, on the same 2 cores.",
    ],
    notes: ['The issue asks for the --role split here (counters in a process of their own); both processes would need one ClickHouse server (counter configurations live there), and this machine has none, so this is the one-process run (--role all).'],
  });
} finally {
  await redis.kill();
  await broker.stop();
}
process.exit(0);
