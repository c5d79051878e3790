import type { PartHealth } from '../health.js';

/**
 * The log/bus port: Kafka semantics (topics, partitions, keys, consumer groups, committed offsets)
 * that both kafkajs and the embedded segment log satisfy. Pipelines depend only on this file.
 */
export type Headers = Record<string, string>;

export interface OutgoingMessage {
  /** Partitioning key; messages with one key stay in one partition, in order. */
  key: string | null;
  value: Buffer;
  headers?: Headers;
}

export interface ConsumedMessage extends OutgoingMessage {
  topic: string;
  partition: number;
  /** Offset as a decimal string (Kafka offsets exceed 2^53 in principle). */
  offset: string;
  /** Append time, ms since epoch. */
  timestamp: number;
}

export interface Batch {
  topic: string;
  partition: number;
  messages: ConsumedMessage[];
  /** Kafka's high watermark when the batch was fetched: the offset the next appended message will get. */
  highWatermark: string;
}

export interface SubscribeOptions {
  groupId: string;
  topics: string[];
  /** Where a group with no committed offset starts. Default: earliest. */
  fromBeginning?: boolean;
  /**
   * Handles one batch of one partition. The offsets of the whole batch are committed only after
   * this resolves, so a crash before then redelivers the batch: handlers must be idempotent.
   * A throw stops the batch uncommitted; it is retried after a back-off.
   */
  eachBatch: (batch: Batch) => Promise<void>;
  /**
   * Partition batches the handler can take at once; order within a partition is kept regardless.
   * A handler that gathers the writes of several batches into one (the decisions consumer) asks for
   * as many as the topic has partitions. Kafka handles the larger of this and the deployment's
   * KAFKA_PARTITIONS_CONCURRENTLY; the embedded log, on one machine, one batch at a time.
   */
  concurrency?: number;
  /**
   * How long the embedded log waits, once records arrive, for more to join them in one batch (on
   * Kafka: the fetch's max wait, with a minimum size the broker waits for). A consumer that pays per batch (an insert and
   * an offset commit with its fsync) and need not run at once, the screening audit or the risk
   * records, takes a few
   * batches a second instead of one per send, and leaves the disk and the CPU to the senders.
   * Default 0: delivered as soon as they are appended.
   */
  lingerMs?: number;
  /**
   * Group members this process runs for the subscription, each with its own fetches (Kafka only;
   * the embedded log runs one). A kafkajs member fetches again only once every batch of its last
   * fetch is handled, and decodes a whole fetch before handling any of it: with several members, one
   * member's fetch and decode overlap the others' handling. Default 1.
   */
  members?: number;
}

export interface Subscription {
  /** Stops fetching, waits for the batch in flight to finish and commit, leaves the group. */
  stop(): Promise<void>;
  /** Down once the member has stopped on its own (a Kafka consumer crash it does not restart from). */
  health(): PartHealth;
}

export interface TopicSpec {
  topic: string;
  partitions: number;
}

export interface Bus {
  readonly kind: 'kafka' | 'embedded';
  /**
   * Tells this log from another that reuses its topic names: KAFKA_NAMESPACE on Kafka ('' without
   * one); on the embedded log an id made when its directory is first opened. What a store keeps
   * about a partition's offsets (the Redis window store's applied-through marks) is keyed by it, so
   * it never carries over to a log started afresh, whose offsets begin at 0 again.
   */
  readonly logId: string;
  /** Creates missing topics; existing ones are left as they are. */
  ensureTopics(topics: TopicSpec[]): Promise<void>;
  /** Resolves only once every message is durably in the log (acks=all / fsync). */
  send(topic: string, messages: OutgoingMessage[]): Promise<void>;
  subscribe(options: SubscribeOptions): Promise<Subscription>;
  /** Whether the log takes sends now (Kafka: a broker answers; embedded: open and writable here). */
  health(): Promise<PartHealth>;
  /** Committed offset lag per partition of a group, for metrics. */
  lag(groupId: string, topic: string): Promise<{ partition: number; lag: number }[]>;
  close(): Promise<void>;
}

/** Name of the dead-letter topic that receives messages of `topic` that fail validation. */
export const dlqTopic = (topic: string): string => `${topic}.dlq`;
export const DLQ_REASON_HEADER = 'x-weir-dlq-reason';
