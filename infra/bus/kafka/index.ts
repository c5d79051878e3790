import { Kafka, type Admin, type Message, type Producer } from 'kafkajs';
import type { Logger } from 'pino';
import type { Bus, OutgoingMessage, Subscription } from '../types.js';
import { down, up } from '../../health.js';
import { groupLag, ensureTopics } from './admin.js';
import { groupCommit } from '../../group-commit.js';
import { chunkBySize } from '../../chunk.js';
import { defaultTuning, subscribeGroup, type GroupTuning } from './consumer.js';
import { lazy, type Lazy } from './lazy.js';
import { keyPartitioner } from './partitioner.js';
import { kafkaLogLevel, pinoLogCreator } from './log.js';
import { kafkaNames } from '../names.js';

export interface KafkaBusOptions {
  brokers: string[];
  clientId: string;
  log: Logger;
  tuning?: Partial<GroupTuning>;
  /** Prefix of this deployment's topics and groups on a shared cluster (names.ts). */
  namespace?: string;
}

/**
 * A produce request stays well under the broker's default 1 MiB record-batch limit
 * (message.max.bytes); larger sends go out as several requests, in order.
 */
const REQUEST_BUDGET_BYTES = 768 * 1024;

const sizeOf = (m: OutgoingMessage): number => {
  let n = 64 + m.value.length + (m.key === null ? 0 : Buffer.byteLength(m.key));
  for (const [k, v] of Object.entries(m.headers ?? {})) n += Buffer.byteLength(k) + Buffer.byteLength(v);
  return n;
};

const toKafkaMessage = (m: OutgoingMessage): Message => ({ key: m.key, value: m.value, headers: m.headers });

/** The producer of one topic and the sends waiting for its next request. */
interface Lane {
  producer: Lazy<Producer>;
  send(messages: OutgoingMessage[]): Promise<void>;
}

/**
 * The Bus on Apache Kafka through kafkajs. Connections are made on first use. One idempotent
 * producer serves the whole process: acks from all in-sync replicas, one request in flight (which
 * kafkajs requires for idempotence) and retries that cannot duplicate or reorder a message.
 */
export function createKafkaBus(opts: KafkaBusOptions): Bus {
  const tuning: GroupTuning = { ...defaultTuning, ...opts.tuning };
  const names = kafkaNames(opts.namespace);
  const kafka = new Kafka({
    clientId: opts.clientId,
    brokers: opts.brokers,
    logLevel: kafkaLogLevel(opts.log),
    logCreator: pinoLogCreator(opts.log),
  });

  const newProducer = () =>
    lazy(async (): Promise<Producer> => {
      const p = kafka.producer({
        idempotent: true,
        maxInFlightRequests: 1,
        // A send to a missing topic creates it with the broker's default partition count, as the
        // embedded bus does; ensureTopics is where partition counts are chosen.
        allowAutoTopicCreation: true,
        // The Java client's murmur2 partitioner: a key lands where a Java or embedded-bus producer puts it.
        createPartitioner: keyPartitioner,
      });
      await p.connect();
      return p;
    });
  const admin = lazy(async (): Promise<Admin> => {
    const a = kafka.admin();
    await a.connect();
    return a;
  });

  /**
   * One producer per topic. kafkajs allows an idempotent producer one request in flight, so with
   * one producer for the process every send waited behind whatever request was out: a transaction
   * behind a batch of 500 counter events. Order is only promised within a partition, which belongs
   * to one topic. Sends that arrive while a topic's request is in flight go out together in its
   * next one, so one request in flight still carries many concurrent callers per round trip.
   */
  const lanes = new Map<string, Lane>();
  const laneOf = (topic: string): Lane => {
    let lane = lanes.get(topic);
    if (lane) return lane;
    const producer = newProducer();
    let pending: OutgoingMessage[] = [];
    const flush = groupCommit(async () => {
      const items = pending;
      pending = [];
      const p = await producer.get();
      for (const chunk of chunkBySize(items, sizeOf, REQUEST_BUDGET_BYTES)) {
        await p.sendBatch({ topicMessages: [{ topic: names.topic(topic), messages: chunk.map(toKafkaMessage) }], acks: -1 });
      }
    });
    lane = {
      producer,
      send: (messages) => {
        pending.push(...messages);
        return flush();
      },
    };
    lanes.set(topic, lane);
    return lane;
  };

  const subscriptions = new Set<Subscription>();
  let closed = false;

  return {
    kind: 'kafka',
    logId: opts.namespace ?? '',

    async ensureTopics(topics) {
      await ensureTopics(await admin.get(), topics.map((t) => ({ ...t, topic: names.topic(t.topic) })));
    },

    async send(topic, messages) {
      if (closed) throw new Error('kafka bus is closed');
      if (messages.length === 0) return;
      await laneOf(topic).send(messages);
    },

    async subscribe(options) {
      if (closed) throw new Error('kafka bus is closed');
      const log = opts.log.child({ group: options.groupId });
      // Joined together, so that the group's first rebalance gives every member its share.
      const joined = await Promise.allSettled(Array.from({ length: options.members ?? 1 }, () => subscribeGroup(kafka, log, options, tuning, names)));
      const members = joined.flatMap((j) => (j.status === 'fulfilled' ? [j.value] : []));
      const failed = joined.find((j) => j.status === 'rejected');
      if (closed || failed) {
        // close() ran while these members were joining and could not see them, or one of them failed.
        await Promise.all(members.map((m) => m.stop()));
        throw failed ? failed.reason : new Error('kafka bus is closed');
      }
      const subscription: Subscription = {
        async stop() {
          subscriptions.delete(subscription);
          await Promise.all(members.map((m) => m.stop()));
        },
        health: () => members.map((m) => m.health()).find((h) => !h.ok) ?? up,
      };
      subscriptions.add(subscription);
      return subscription;
    },

    async health() {
      if (closed) return down('closed');
      try {
        const { brokers } = await (await admin.get()).describeCluster();
        return brokers.length > 0 ? up : down('no Kafka broker in the cluster');
      } catch {
        return down('no Kafka broker answers');
      }
    },

    async lag(groupId, topic) {
      return groupLag(await admin.get(), names.group(groupId), names.topic(topic));
    },

    async close() {
      closed = true;
      await Promise.all([...subscriptions].map((s) => s.stop()));
      await Promise.all(
        [...[...lanes.values()].map((l) => l.producer.current()), admin.current()].map(async (client) => {
          // A connection that never came up has nothing to close.
          const c = await client?.catch(() => undefined);
          await c?.disconnect();
        }),
      );
    },
  };
}
