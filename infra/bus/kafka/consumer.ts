import type { Consumer, EachBatchPayload, IHeaders, Kafka, KafkaMessage } from 'kafkajs';
import type { Logger } from 'pino';
import type { Batch, ConsumedMessage, Headers, SubscribeOptions, Subscription } from '../types.js';
import { down, up } from '../../health.js';
import type { KafkaNames } from '../names.js';

export interface GroupTuning {
  /** Partition batches handled at once by one member; order within a partition is kept regardless. */
  partitionsConsumedConcurrently: number;
  /** Longest a fetch waits for new data; also bounds how long `stop()` waits for an idle fetch. */
  maxWaitTimeInMs: number;
  /** A member silent this long is dropped and its partitions go to the others (after a crash, say). */
  sessionTimeoutMs: number;
  /** Longest `subscribe` waits for the member to join its group and make a first fetch. */
  readyTimeoutMs: number;
}

/** With `lingerMs`, a fetch this large returns before the wait ends. */
const LINGER_MIN_BYTES = 1 << 20;

export const defaultTuning: GroupTuning = { partitionsConsumedConcurrently: 1, maxWaitTimeInMs: 1000, sessionTimeoutMs: 10_000, readyTimeoutMs: 60_000 };

/** Most messages carry no headers: they share one (frozen) empty set instead of one each. */
const NO_HEADERS: Headers = Object.freeze({});

/** kafkajs may repeat a header; the port carries one string per name, the last one set. */
function toHeaders(raw: IHeaders | undefined): Headers {
  let out: Headers | undefined;
  for (const name in raw) {
    const value = raw[name];
    const last = Array.isArray(value) ? value[value.length - 1] : value;
    if (last !== undefined) (out ??= {})[name] = last.toString();
  }
  return out ?? NO_HEADERS;
}

export function toConsumed(topic: string, partition: number, m: KafkaMessage): ConsumedMessage {
  return {
    topic,
    partition,
    offset: m.offset,
    timestamp: Number(m.timestamp),
    key: m.key === null ? null : m.key.toString(),
    // A null value (a tombstone) reaches the handler as an empty buffer.
    value: m.value ?? Buffer.alloc(0),
    headers: toHeaders(m.headers),
  };
}

/**
 * One member of a consumer group. Offsets move only here: after the handler resolves, the batch's
 * last offset is resolved and committed at once (manual commit after the state change). A throw
 * commits nothing; kafkajs backs off, fetches again from the last resolved offset and redelivers
 * the batch, and after its retries restarts the member, which resumes from the committed offset.
 */
export async function subscribeGroup(kafka: Kafka, log: Logger, options: SubscribeOptions, tuning: GroupTuning, names: KafkaNames): Promise<Subscription> {
  const consumer = kafka.consumer({
    groupId: names.group(options.groupId),
    allowAutoTopicCreation: true,
    // Kafka's own linger: the broker holds a fetch until LINGER_MIN_BYTES arrive or the wait ends.
    ...(options.lingerMs ? { minBytes: LINGER_MIN_BYTES, maxWaitTimeInMs: options.lingerMs } : { maxWaitTimeInMs: tuning.maxWaitTimeInMs }),
    sessionTimeout: tuning.sessionTimeoutMs,
    heartbeatInterval: Math.min(3000, Math.floor(tuning.sessionTimeoutMs / 3)),
  });
  await consumer.connect();
  try {
    await consumer.subscribe({ topics: options.topics.map(names.topic), fromBeginning: options.fromBeginning ?? true });
    const ready = whenReady(consumer, options.groupId, tuning.readyTimeoutMs);
    await consumer.run({
      autoCommit: false,
      eachBatchAutoResolve: false,
      partitionsConsumedConcurrently: Math.max(options.concurrency ?? 1, tuning.partitionsConsumedConcurrently),
      eachBatch: (payload) => handleBatch(payload, options, log, names),
    });
    await ready;
  } catch (err) {
    await consumer.disconnect();
    throw err;
  }
  let stopping: Promise<void> | undefined;
  // A crash kafkajs does not restart from leaves the member stopped for good: /health says so.
  let crashed: string | undefined;
  consumer.on(consumer.events.CRASH, (e) => {
    if (e.payload.restart) return;
    crashed = `crashed: ${e.payload.error.name}`;
    log.error({ err: e.payload.error, groupId: options.groupId }, 'consumer crashed and will not restart');
  });
  return {
    // disconnect() stops fetching, waits for the batch in flight (which commits) and leaves the group.
    stop: () => (stopping ??= consumer.disconnect()),
    health: () => (crashed ? down(crashed) : stopping ? down('stopped') : up),
  };
}

async function handleBatch(payload: EachBatchPayload, options: SubscribeOptions, log: Logger, names: KafkaNames): Promise<void> {
  const { batch, resolveOffset, commitOffsetsIfNecessary, heartbeat } = payload;
  if (batch.messages.length === 0) return;
  const { topic, partition } = batch;
  const logical = names.logical(topic);
  const delivered: Batch = {
    topic: logical,
    partition,
    highWatermark: batch.highWatermark,
    messages: batch.messages.map((m) => toConsumed(logical, partition, m)),
  };
  // A long handler must not look like a dead member to the coordinator.
  const beat = setInterval(() => {
    heartbeat().catch((err: unknown) => log.debug({ err, topic, partition }, 'heartbeat during batch failed'));
  }, 3000);
  try {
    await options.eachBatch(delivered);
  } finally {
    clearInterval(beat);
  }
  const last = batch.lastOffset();
  resolveOffset(last);
  // The payload's commit goes straight to the group coordinator; consumer.commitOffsets would skip
  // the commit of a batch that finishes while stop() is waiting for it.
  await commitOffsetsIfNecessary({ topics: [{ topic, partitions: [{ partition, offset: (BigInt(last) + 1n).toString() }] }] });
}

/**
 * Resolves once the member has joined and, when it was given partitions, finished a first fetch:
 * by then a group without committed offsets has fixed its start position, so a message sent after
 * `subscribe` resolves is seen even with `fromBeginning: false`.
 */
function whenReady(consumer: Consumer, groupId: string, timeoutMs: number): Promise<void> {
  const { GROUP_JOIN, FETCH, CRASH } = consumer.events;
  const removers: (() => void)[] = [];
  let timer: NodeJS.Timeout | undefined;
  return new Promise<void>((resolve, reject) => {
    removers.push(
      consumer.on(GROUP_JOIN, (e) => {
        const assigned = Object.values(e.payload.memberAssignment).some((partitions) => partitions.length > 0);
        if (!assigned) resolve();
      }),
      consumer.on(FETCH, () => resolve()),
      consumer.on(CRASH, (e) => {
        if (!e.payload.restart) reject(e.payload.error);
      }),
    );
    timer = setTimeout(() => reject(new Error(`consumer group ${groupId} not ready after ${timeoutMs} ms`)), timeoutMs);
  }).finally(() => {
    clearTimeout(timer);
    for (const remove of removers) remove();
  });
}
