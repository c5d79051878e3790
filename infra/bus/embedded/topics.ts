import { mkdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import type { Logger } from 'pino';
import { createFileOnce, syncDir } from '../../fs/atomic-file.js';
import { PartitionLog, type LogDamage } from './partition-log.js';

export interface Topic {
  name: string;
  partitions: PartitionLog[];
  /** Partition for the next null-key message: round-robin, like kafkajs. */
  nextRoundRobin(): number;
}

export interface TopicsOptions {
  dir: string;
  writable: boolean;
  segmentBytes: number;
  retentionMs: number | undefined;
  log: Logger;
  onAppend: (topic: string) => void;
  onDamage: (topic: string, partition: number, kind: LogDamage) => void;
}

/** Kafka's rule for topic names; it also keeps a name a single safe directory name. */
const TOPIC_NAME = /^[a-zA-Z0-9._-]{1,249}$/;

export function assertTopicName(name: string): void {
  if (!TOPIC_NAME.test(name) || name === '.' || name === '..') {
    throw new Error(`invalid topic name ${JSON.stringify(name)}: use 1-249 of [a-zA-Z0-9._-]`);
  }
}

/**
 * Topics live in `<dir>/<topic>/`: `topic.json` with the partition count (written once, atomically;
 * its presence means the topic exists) and one folder of segments per partition.
 */
export function createTopics(opts: TopicsOptions) {
  const open = new Map<string, Promise<Topic>>();
  const metaFile = (name: string): string => path.join(opts.dir, name, 'topic.json');

  async function readPartitionCount(name: string): Promise<number | undefined> {
    try {
      return (JSON.parse(await readFile(metaFile(name), 'utf8')) as { partitions: number }).partitions;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw err;
    }
  }

  async function create(name: string, partitions: number): Promise<void> {
    const topicDir = path.join(opts.dir, name);
    await mkdir(topicDir, { recursive: true });
    await Promise.all(Array.from({ length: partitions }, (_, p) => mkdir(path.join(topicDir, String(p)), { recursive: true })));
    await syncDir(topicDir);
    await syncDir(opts.dir);
    if (await createFileOnce(metaFile(name), JSON.stringify({ partitions }))) opts.log.info({ topic: name, partitions }, 'topic created');
  }

  async function load(name: string, createWith: number | undefined): Promise<Topic> {
    let count = await readPartitionCount(name);
    if (count === undefined && createWith !== undefined) {
      await create(name, createWith);
      count = await readPartitionCount(name);
    }
    if (count === undefined) throw new Error(`topic ${name} does not exist`);
    const partitions = await Promise.all(
      Array.from({ length: count }, (_, p) =>
        PartitionLog.open({
          dir: path.join(opts.dir, name, String(p)),
          writable: opts.writable,
          segmentBytes: opts.segmentBytes,
          retentionMs: opts.retentionMs,
          log: opts.log,
          onAppend: () => opts.onAppend(name),
          onDamage: (kind) => opts.onDamage(name, p, kind),
        }),
      ),
    );
    let cursor = 0;
    return { name, partitions, nextRoundRobin: () => cursor++ % count };
  }

  /** The topic, created with `createWith` partitions when missing (left as it is when present). */
  function get(name: string, createWith?: number): Promise<Topic> {
    assertTopicName(name);
    let topic = open.get(name);
    if (!topic) {
      topic = load(name, createWith);
      topic.catch(() => open.delete(name));
      open.set(name, topic);
    }
    return topic;
  }

  return {
    get,
    /** The topic if it exists, without creating it. */
    async find(name: string): Promise<Topic | undefined> {
      assertTopicName(name);
      return open.has(name) || (await readPartitionCount(name)) !== undefined ? get(name) : undefined;
    },
    async close(): Promise<void> {
      const topics = await Promise.allSettled(open.values());
      open.clear();
      await Promise.all(topics.flatMap((t) => (t.status === 'fulfilled' ? t.value.partitions.map((p) => p.close()) : [])));
    },
  };
}

export type Topics = ReturnType<typeof createTopics>;
