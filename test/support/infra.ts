/**
 * Addresses of the real services that `.ci/run` (or a developer, with infra/scripts) started.
 * In CI every real-infrastructure suite must run: a missing address there is a failure, not a skip.
 */
export const realInfra = {
  kafkaBrokers: process.env.WEIR_TEST_KAFKA_BROKERS,
  redisUrl: process.env.WEIR_TEST_REDIS_URL,
  /** redis+cluster://host:port,... of a Redis Cluster (infra/scripts/redis-cluster.sh). */
  redisClusterUrl: process.env.WEIR_TEST_REDIS_CLUSTER_URL,
  schemaRegistryUrl: process.env.WEIR_TEST_SCHEMA_REGISTRY_URL,
  clickhouseUrl: process.env.WEIR_TEST_CLICKHOUSE_URL,
};

const inCi = process.env.CI === 'true' || process.env.CI === '1';

/**
 * True when a suite needing `what` should run: always in CI (where a missing address then fails
 * loudly in `requireAddress`), and locally only when the address is set.
 */
export function shouldRun(what: keyof typeof realInfra): boolean {
  return inCi || Boolean(realInfra[what]);
}

export function requireAddress(what: keyof typeof realInfra): string {
  const v = realInfra[what];
  if (!v) throw new Error(`real ${what} not configured (set WEIR_TEST_* as .ci/run does)`);
  return v;
}
