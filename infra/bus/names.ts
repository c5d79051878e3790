/**
 * Names on a Kafka cluster that several deployments share (KAFKA_NAMESPACE): each deployment's
 * topics, consumer groups and schema-registry subjects carry its namespace, so one never reads
 * another's records nor takes its partitions in a group rebalance. Pipelines keep the logical
 * names; only the Kafka adapter and the registry see these.
 */
export interface KafkaNames {
  topic(logical: string): string;
  group(logical: string): string;
  /** The logical name of a topic of this namespace. */
  logical(topic: string): string;
}

const plain: KafkaNames = { topic: (t) => t, group: (g) => g, logical: (t) => t };

export function kafkaNames(namespace?: string): KafkaNames {
  if (!namespace) return plain;
  const prefix = `${namespace}.`;
  return {
    topic: (t) => prefix + t,
    group: (g) => prefix + g,
    logical: (t) => (t.startsWith(prefix) ? t.slice(prefix.length) : t),
  };
}
