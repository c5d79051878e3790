import type { Admin } from 'kafkajs';
import type { TopicSpec } from '../types.js';

/** Copies per topic, capped by the cluster: one on a single broker, three from three brokers up. */
export function replicationFactorFor(brokerCount: number): number {
  return Math.max(1, Math.min(3, brokerCount));
}

/**
 * Copies that must have a write before `acks=all` answers: two wherever there are two copies, so
 * an acknowledged message survives the loss of a broker; one on a single broker, where nothing
 * more is possible.
 */
export function minInsyncReplicasFor(replicationFactor: number): number {
  return Math.min(2, replicationFactor);
}

/** Creates the topics that do not exist yet; existing topics keep their partitions. */
export async function ensureTopics(admin: Admin, topics: TopicSpec[]): Promise<void> {
  const existing = new Set(await admin.listTopics());
  const missing = topics.filter((t) => !existing.has(t.topic));
  if (missing.length === 0) return;
  const { brokers } = await admin.describeCluster();
  const replicationFactor = replicationFactorFor(brokers.length);
  // Another process may create the same topics at the same moment; kafkajs answers false (not a
  // throw) when every topic it was asked for already exists.
  await admin.createTopics({
    // kafkajs's own wait retries only LEADER_NOT_AVAILABLE, but a KRaft broker may first answer
    // UNKNOWN_TOPIC_OR_PARTITION for a topic its controller has just created; the wait below
    // retries every retriable answer.
    waitForLeaders: false,
    topics: missing.map((t) => ({
      topic: t.topic,
      numPartitions: t.partitions,
      replicationFactor,
      configEntries: [{ name: 'min.insync.replicas', value: String(minInsyncReplicasFor(replicationFactor)) }],
    })),
  });
  await untilLeadersElected(admin, missing.map((t) => t.topic));
}

/** Resolves once every partition of the topics has a leader, so the first send does not fail. */
export async function untilLeadersElected(admin: Pick<Admin, 'fetchTopicMetadata'>, topics: string[]): Promise<void> {
  await retryingRetriable(async () => {
    const metadata = await admin.fetchTopicMetadata({ topics });
    const leaderless = metadata.topics.flatMap((t) =>
      t.partitions.length === 0
        ? [t.name]
        : t.partitions.filter((p) => p.leader < 0 || p.partitionErrorCode !== 0).map((p) => `${t.name}[${p.partitionId}]`),
    );
    if (leaderless.length > 0) {
      throw Object.assign(new Error(`no leader yet for ${leaderless.join(', ')}`), { retriable: true });
    }
  });
}

/**
 * Messages between a group's committed offset and the partition end. A partition the group never
 * committed counts from the oldest retained message, where a new member starts.
 */
export function partitionLag(
  ends: { partition: number; high: string; low: string }[],
  committed: { partition: number; offset: string }[],
): { partition: number; lag: number }[] {
  const committedBy = new Map(committed.map((c) => [c.partition, BigInt(c.offset)]));
  return ends
    .map(({ partition, high, low }) => {
      const c = committedBy.get(partition);
      const from = c === undefined || c < 0n ? BigInt(low) : c;
      const lag = BigInt(high) - from;
      return { partition, lag: Number(lag > 0n ? lag : 0n) };
    })
    .sort((a, b) => a.partition - b.partition);
}

/**
 * kafkajs's fetchOffsets and fetchTopicOffsets do not retry: on a new broker the group coordinator
 * (and the offsets topic behind it) may still be coming up, answered as a retriable error such as
 * NOT_COORDINATOR, and a just-created topic's partitions may answer NOT_LEADER_OR_FOLLOWER while
 * the broker's metadata catches up (seen in CI's bus contract on a loaded machine).
 */
async function retryingRetriable<T>(fn: () => Promise<T>, attempts = 8): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await fn();
    } catch (err) {
      if (attempt >= attempts || (err as { retriable?: unknown }).retriable !== true) throw err;
      await new Promise((r) => setTimeout(r, 100 * 2 ** attempt));
    }
  }
}

export async function groupLag(admin: Admin, groupId: string, topic: string): Promise<{ partition: number; lag: number }[]> {
  const [ends, offsets] = await Promise.all([
    retryingRetriable(() => admin.fetchTopicOffsets(topic)),
    retryingRetriable(() => admin.fetchOffsets({ groupId, topics: [topic] })),
  ]);
  return partitionLag(ends, offsets.find((o) => o.topic === topic)?.partitions ?? []);
}
