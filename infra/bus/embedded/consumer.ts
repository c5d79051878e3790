import type { Logger } from 'pino';
import type { Batch, SubscribeOptions, Subscription } from '../types.js';
import { down, up } from '../../health.js';
import type { OffsetStore } from './offset-store.js';
import type { PartitionLog } from './partition-log.js';
import type { StoredRecord } from './record.js';
import type { Topics } from './topics.js';

export interface ConsumerDeps {
  topics: Topics;
  offsets: OffsetStore;
  log: Logger;
  pollIntervalMs: number;
  retryBackoffMs: number;
  maxBatchBytes: number;
  /** Registers a listener for durable appends in this process; returns its removal. */
  onAppend(listener: (topic: string) => void): () => void;
}

interface Assignment {
  topic: string;
  partition: number;
  log: PartitionLog;
  /** Next offset to deliver. */
  position: number;
  /** Failed deliveries in a row, and when the next may be tried: a failing partition waits alone. */
  failures: number;
  retryAt: number;
}

const MAX_BACKOFF_MS = 30_000;

/** Wakes an idle consumer on an in-process append, or after the poll interval, or on stop. */
function createWakeup(signal: AbortSignal) {
  let pending = false;
  let wake: (() => void) | undefined;
  signal.addEventListener('abort', () => wake?.());
  return {
    notify(): void {
      pending = true;
      wake?.();
    },
    /** True when woken by a notification or stop, false when the interval passed. */
    wait(ms: number): Promise<boolean> {
      if (pending || signal.aborted) {
        pending = false;
        return Promise.resolve(true);
      }
      return new Promise((resolve) => {
        const timer = setTimeout(() => done(false), ms);
        const done = (woken: boolean): void => {
          clearTimeout(timer);
          wake = undefined;
          pending = false;
          resolve(woken);
        };
        wake = () => done(true);
      });
    },
  };
}

function toBatch(a: Assignment, records: StoredRecord[]): Batch {
  return {
    topic: a.topic,
    partition: a.partition,
    // Kafka's high watermark: the offset the next appended message will get.
    highWatermark: String(a.log.endOffset),
    messages: records.map((r) => ({
      topic: a.topic,
      partition: a.partition,
      offset: String(r.offset),
      timestamp: r.timestamp,
      key: r.key,
      value: r.value,
      headers: r.headers ?? {},
    })),
  };
}

async function assign(deps: ConsumerDeps, options: SubscribeOptions): Promise<Assignment[]> {
  const assignments: Assignment[] = [];
  for (const topic of options.topics) {
    // Subscribing to a missing topic creates it with one partition, as a send does.
    const t = await deps.topics.get(topic, 1);
    const committed = await deps.offsets.load(options.groupId, topic);
    for (const [partition, log] of t.partitions.entries()) {
      await log.refresh();
      const start = committed.get(partition) ?? (options.fromBeginning === false ? log.endOffset : log.startOffset);
      if (start > log.endOffset) {
        deps.log.warn({ groupId: options.groupId, topic, partition, committed: start, end: log.endOffset }, 'committed offset is past the end of the log; starting at the end');
      }
      assignments.push({ topic, partition, log, position: Math.min(start, log.endOffset), failures: 0, retryAt: 0 });
    }
  }
  return assignments;
}

/**
 * One consumer: it owns every partition of its topics and delivers one batch at a time (like
 * kafkajs with one partition consumed concurrently), committing each batch after `eachBatch`.
 */
export async function startConsumer(deps: ConsumerDeps, options: SubscribeOptions): Promise<Subscription> {
  const assignments = await assign(deps, options);
  const log = deps.log.child({ groupId: options.groupId });
  const stopping = new AbortController();
  const wakeup = createWakeup(stopping.signal);
  const unlisten = deps.onAppend((topic) => {
    if (options.topics.includes(topic)) wakeup.notify();
  });

  /** Delivers the next batch of a partition; false when there was none. */
  async function deliver(a: Assignment): Promise<boolean> {
    if (a.position < a.log.startOffset) {
      log.warn({ topic: a.topic, partition: a.partition, from: a.position, to: a.log.startOffset }, 'records removed by retention before this group read them, skipping');
      a.position = a.log.startOffset;
    }
    const records = await a.log.read(a.position, deps.maxBatchBytes);
    if (records.length === 0) return false;
    await options.eachBatch(toBatch(a, records));
    const next = records.at(-1)!.offset + 1;
    await deps.offsets.commit(options.groupId, a.topic, a.partition, next);
    a.position = next;
    return true;
  }

  const lingerMs = options.lingerMs ?? 0;
  /** Lets the records sent in the next `lingerMs` join the batch; a stop ends the wait. */
  const linger = (): Promise<void> =>
    lingerMs <= 0 || stopping.signal.aborted
      ? Promise.resolve()
      : new Promise((resolve) => {
          const done = (): void => {
            clearTimeout(timer);
            stopping.signal.removeEventListener('abort', done);
            resolve();
          };
          const timer = setTimeout(done, lingerMs);
          stopping.signal.addEventListener('abort', done);
        });

  const loop = (async () => {
    while (!stopping.signal.aborted) {
      let delivered = false;
      let nextRetry = Infinity;
      for (const a of assignments) {
        if (stopping.signal.aborted) break;
        if (a.retryAt > Date.now()) {
          nextRetry = Math.min(nextRetry, a.retryAt);
          continue;
        }
        try {
          delivered = (await deliver(a)) || delivered;
          a.failures = 0;
        } catch (err) {
          a.failures++;
          const retryInMs = Math.min(deps.retryBackoffMs * 2 ** (a.failures - 1), MAX_BACKOFF_MS);
          a.retryAt = Date.now() + retryInMs;
          nextRetry = Math.min(nextRetry, a.retryAt);
          log.warn({ err, topic: a.topic, partition: a.partition, offset: a.position, attempt: a.failures, retryInMs }, 'batch failed, retrying it uncommitted');
        }
      }
      const waitMs = Math.max(0, Math.min(deps.pollIntervalMs, nextRetry - Date.now()));
      if (delivered || (await wakeup.wait(waitMs))) await linger();
      else {
        // Nothing arrived in this process for a while: look for appends by another process.
        await Promise.all(assignments.map((a) => a.log.refresh())).catch((err: unknown) => log.warn({ err }, 'log refresh failed'));
      }
    }
  })();

  return {
    async stop() {
      stopping.abort();
      await loop;
      unlisten();
    },
    // The loop retries a failing batch forever (with back-off) and ends only on stop().
    health: () => (stopping.signal.aborted ? down('stopped') : up),
  };
}
