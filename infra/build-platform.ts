import path from 'node:path';
import type { Logger } from 'pino';
import { Registry, collectDefaultMetrics } from 'prom-client';
import type { Config } from './config.js';
import type { Platform } from './platform.js';
import { systemClock, type Clock } from './clock.js';
import { createKafkaBus } from './bus/kafka/index.js';
import { createEmbeddedBus } from './bus/embedded/index.js';
import { createCodec } from './codec/index.js';
import { createRedisWindowStore, redisKeyPrefix } from './windows/redis/index.js';
import { failFastOnOutage } from './windows/redis/outage.js';
import { createLmdbWindowStore } from './windows/lmdb/index.js';
import { createAnalytics } from './analytics/index.js';
import { createFsBlobStore } from './blobs/fs.js';

/** The chDB data directory of a process on the embedded default (one per process). */
export const chdbPathOf = (config: Config): string =>
  config.CHDB_PATH ? path.resolve(config.CHDB_PATH) : path.join(path.resolve(config.DATA_DIR), 'clickhouse');

/**
 * Picks each adapter from the configuration: a variable that names a real system selects it,
 * else the embedded default under DATA_DIR (CONTRACTS.md section 1). Each can be set alone.
 */
export async function buildPlatform(config: Config, log: Logger, clock: Clock = systemClock): Promise<Platform> {
  const dataDir = path.resolve(config.DATA_DIR);
  const metrics = new Registry();
  collectDefaultMetrics({ register: metrics, prefix: 'weir_' });

  const bus = config.KAFKA_BROKERS
    ? createKafkaBus({
        brokers: config.KAFKA_BROKERS,
        clientId: config.KAFKA_CLIENT_ID,
        namespace: config.KAFKA_NAMESPACE,
        log: log.child({ adapter: 'kafka' }),
        // Partitions of one member are handled side by side; order within a partition is kept.
        tuning: { partitionsConsumedConcurrently: config.KAFKA_PARTITIONS_CONCURRENTLY },
      })
    : await createEmbeddedBus({ dir: path.join(dataDir, 'log'), log: log.child({ adapter: 'embedded-log' }), metrics });
  const codec = createCodec({ schemaRegistryUrl: config.SCHEMA_REGISTRY_URL, namespace: config.KAFKA_NAMESPACE });
  const windows = config.REDIS_URL
    ? failFastOnOutage(
        createRedisWindowStore({
          url: config.REDIS_URL,
          cluster: config.REDIS_CLUSTER,
          commandTimeoutMs: config.REDIS_COMMAND_TIMEOUT_MS,
          // Unset, the keys are as they were before namespaces: a deployment upgraded keeps its state.
          ...(config.REDIS_KEY_PREFIX ? { keyPrefix: redisKeyPrefix(config.REDIS_KEY_PREFIX) } : {}),
          // A consumer's marks are per topic of this very log (plain-claims.ts, Bus.logId).
          ...(bus.logId ? { logNamespace: bus.logId } : {}),
          // ioredis reports each failed reconnection (at most every 2 s); requests see their own errors.
          onConnectionError: (err) => log.warn({ err, adapter: 'redis' }, 'redis connection error'),
        }),
      )
    : await createLmdbWindowStore({ dir: path.join(dataDir, 'windows', 'state.lmdb') });
  const analytics = await createAnalytics({
    url: config.CLICKHOUSE_URL,
    username: config.CLICKHOUSE_USER,
    password: config.CLICKHOUSE_PASSWORD,
    database: config.CLICKHOUSE_DATABASE,
    chdbPath: chdbPathOf(config),
  });
  const blobs = createFsBlobStore(config.BLOBS_DIR ? path.resolve(config.BLOBS_DIR) : path.join(dataDir, 'blobs'));
  log.info({ bus: bus.kind, windows: windows.kind, analytics: config.CLICKHOUSE_URL ? 'clickhouse-server' : 'chdb', dataDir }, 'platform ready');
  return { config, log, metrics, clock, bus, codec, windows, analytics, blobs };
}

/** Closes adapters in dependency order: nothing produces once the bus is closed. */
export async function closePlatform(p: Platform): Promise<void> {
  await p.bus.close();
  await p.windows.close();
  await p.analytics.close();
}
