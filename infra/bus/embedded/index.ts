import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import type { Logger } from 'pino';
import { Counter, type Registry } from 'prom-client';
import type { Bus, OutgoingMessage, Subscription } from '../types.js';
import { down, up } from '../../health.js';
import { startConsumer } from './consumer.js';
import { partitionForKey } from '../murmur2.js';
import { createOffsetStore } from './offset-store.js';
import { createTopics } from './topics.js';
import { tryLock } from '../../fs/writer-lock.js';
import { persistentSecret } from '../../fs/persistent-secret.js';

export interface EmbeddedBusOptions {
  /** Root folder: `topics/<topic>/<partition>/<baseOffset>.seg`, `groups/<group>/<topic>.json`, `writer.lock`, `log-id`. */
  dir: string;
  log: Logger;
  /** How often an idle consumer looks for appends made by another process. Default 500 ms. */
  pollIntervalMs?: number;
  /** First retry delay of a failed batch, doubled per failure up to 30 s. Default 1000 ms. */
  retryBackoffMs?: number;
  /** A segment file is closed and a new one started past this size. Default 64 MiB. */
  segmentBytes?: number;
  /** About this many bytes of one partition per batch (at least one message). Default 1 MiB, as kafkajs. */
  maxBatchBytes?: number;
  /**
   * Closed segments whose last append is older than this are deleted, checked at open and when a
   * segment rolls. Default 7 days, Kafka's default; `null` keeps everything.
   */
  retentionMs?: number | null;
  /** Where `weir_log_damage_total` is registered (torn tails cut, damaged partitions stopped). */
  metrics?: Registry;
}

/**
 * The default bus when no Kafka is configured: a durable, partitioned, append-only log on local
 * disk with Kafka's semantics (key partitioning, per-partition order, consumer groups with
 * committed offsets, at-least-once delivery).
 *
 * - `send` to a missing topic creates it with one partition, as Kafka's auto-create does; so does
 *   `subscribe`. `ensureTopics` chooses the partition count.
 * - One subscription per group per process: a second `subscribe` with a live group id is refused
 *   (there is no rebalancing to share partitions with).
 * - One process appends to a directory (writer.lock names it by pid, start time and boot id, see
 *   infra/fs/writer-lock.ts); another process opening the same directory may consume and commit
 *   but not send. It sees new appends within the poll interval.
 */
export async function createEmbeddedBus(opts: EmbeddedBusOptions): Promise<Bus> {
  const root = path.resolve(opts.dir);
  await mkdir(path.join(root, 'topics'), { recursive: true });
  const lock = await tryLock(path.join(root, 'writer.lock'));
  // Random, made with the directory and kept with it (Bus.logId): not a secret, but made and kept as one is.
  const logId = (await persistentSecret(path.join(root, 'log-id'), 12)).toString('hex');
  if (!lock.held) opts.log.warn({ dir: root, ownerPid: lock.ownerPid }, 'another process writes this log: consuming only');

  const damage = new Counter({
    name: 'weir_log_damage_total',
    help: 'Damage found in the embedded log: torn_tail (a write cut short by a crash, cut at open), corrupt (the partition stopped)',
    labelNames: ['topic', 'partition', 'kind'],
    registers: opts.metrics ? [opts.metrics] : [],
  });
  const appendListeners = new Set<(topic: string) => void>();
  const topics = createTopics({
    dir: path.join(root, 'topics'),
    writable: lock.held,
    segmentBytes: opts.segmentBytes ?? 64 * 1024 * 1024,
    retentionMs: opts.retentionMs === null ? undefined : (opts.retentionMs ?? 7 * 24 * 3600 * 1000),
    log: opts.log,
    onAppend: (topic) => appendListeners.forEach((l) => l(topic)),
    onDamage: (topic, partition, kind) => damage.inc({ topic, partition, kind }),
  });
  const offsets = createOffsetStore(path.join(root, 'groups'));
  const subscriptions = new Map<string, Subscription>();
  let closed = false;

  const assertOpen = (): void => {
    if (closed) throw new Error('embedded bus is closed');
  };

  return {
    kind: 'embedded',
    logId,

    async ensureTopics(specs) {
      assertOpen();
      for (const { topic, partitions } of specs) {
        if (!Number.isInteger(partitions) || partitions < 1) throw new Error(`topic ${topic}: partitions must be a positive integer`);
      }
      await Promise.all(specs.map(({ topic, partitions }) => topics.get(topic, partitions)));
    },

    async send(topic, messages) {
      assertOpen();
      if (messages.length === 0) return;
      const t = await topics.get(topic, 1);
      const byPartition = new Map<number, OutgoingMessage[]>();
      for (const m of messages) {
        const p = m.key === null ? t.nextRoundRobin() : partitionForKey(m.key, t.partitions.length);
        const list = byPartition.get(p);
        if (list) list.push(m);
        else byPartition.set(p, [m]);
      }
      await Promise.all([...byPartition].map(([p, list]) => t.partitions[p]!.append(list)));
    },

    async subscribe(options) {
      assertOpen();
      if (subscriptions.has(options.groupId)) {
        throw new Error(`consumer group ${options.groupId} already has a subscription in this process`);
      }
      // Reserve the group before the first await so two concurrent calls cannot both pass.
      const placeholder: Subscription = { stop: async () => undefined, health: () => up };
      subscriptions.set(options.groupId, placeholder);
      try {
        const inner = await startConsumer(
          {
            topics,
            offsets,
            log: opts.log,
            pollIntervalMs: opts.pollIntervalMs ?? 500,
            retryBackoffMs: opts.retryBackoffMs ?? 1000,
            maxBatchBytes: opts.maxBatchBytes ?? 1024 * 1024,
            onAppend: (listener) => {
              appendListeners.add(listener);
              return () => appendListeners.delete(listener);
            },
          },
          options,
        );
        const subscription: Subscription = {
          async stop() {
            await inner.stop();
            if (subscriptions.get(options.groupId) === subscription) subscriptions.delete(options.groupId);
          },
          health: () => inner.health(),
        };
        subscriptions.set(options.groupId, subscription);
        return subscription;
      } catch (err) {
        subscriptions.delete(options.groupId);
        throw err;
      }
    },

    async health() {
      if (closed) return down('closed');
      return lock.held ? up : down(`read-only: another process (pid ${lock.ownerPid}) writes this log`);
    },

    async lag(groupId, topic) {
      assertOpen();
      const t = await topics.find(topic);
      if (!t) return [];
      const committed = await offsets.load(groupId, topic);
      return Promise.all(
        t.partitions.map(async (log, partition) => {
          await log.refresh();
          // A group that never committed is behind by all that is still in the log.
          return { partition, lag: Math.max(0, log.endOffset - Math.max(committed.get(partition) ?? 0, log.startOffset)) };
        }),
      );
    },

    async close() {
      if (closed) return;
      closed = true;
      await Promise.all([...subscriptions.values()].map((s) => s.stop()));
      await topics.close();
      if (lock.held) await lock.lock.release();
    },
  };
}
