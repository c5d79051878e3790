import type { ZodType } from 'zod';
import { Counter, Gauge, type Registry } from 'prom-client';
import type { Platform } from '../infra/platform.js';
import type { Batch, ConsumedMessage } from '../infra/bus/types.js';
import { deadLetter, type Rejected } from './dead-letter.js';
import type { Stoppable } from '../infra/lifecycle.js';
import { describeZodError } from '../schemas/zod-error.js';
import { CodecError } from '../infra/codec/types.js';
import { breather } from '../infra/breather.js';
import { oneInFlight } from '../infra/one-in-flight.js';
import { handleIsolating, type IsolateOptions } from './handler-failures.js';

export interface Decoded<T> {
  value: T;
  message: ConsumedMessage;
}

export interface StageOptions<T> {
  platform: Platform;
  /** Stage identity; the consumer group is `weir.<name>`. */
  name: string;
  topic: string;
  schema: ZodType<T>;
  /**
   * Applies the valid records of one partition batch (or a part of it, see `handleIsolating`).
   * Must be idempotent: after a crash the batch is delivered again. Resolving commits the batch; a
   * transient failure retries it whole; any other failure is retried, then the batch is split
   * until the record that fails alone goes to `<topic>.dlq` with the reason, and the rest commits.
   */
  handle(records: Decoded<T>[], batch: Batch): Promise<void>;
  /** Partition batches handled at once (SubscribeOptions.concurrency). */
  concurrency?: number;
  /** How long arriving records wait for more to join their batch (SubscribeOptions.lingerMs). */
  lingerMs?: number;
  /** Group members of this process (SubscribeOptions.members; Kafka only). */
  members?: number;
  /**
   * Messages of a partition batch decoded and handed to `handle` at a time, the next part decoded
   * while one is handled. Unset: the whole batch at once.
   */
  partSize?: number;
  /** How often a failing group of records is tried before it is split. Default 3 attempts, 100 ms apart at first. */
  retry?: IsolateOptions;
}

const DEFAULT_RETRY: IsolateOptions = { attempts: 3, backoffMs: 100 };

interface StageMetrics {
  processed: Counter<'stage'>;
  deadLettered: Counter<'stage'>;
  failedBatches: Counter<'stage'>;
  lag: Gauge<'stage' | 'partition'>;
}

const metricsByRegistry = new WeakMap<Registry, StageMetrics>();

/** Stage metrics are declared once per registry and labelled by stage. */
function stageMetrics(registry: Registry): StageMetrics {
  let m = metricsByRegistry.get(registry);
  if (!m) {
    m = {
      processed: new Counter({ name: 'weir_stage_messages_total', help: 'Messages handled by a pipeline stage', labelNames: ['stage'], registers: [registry] }),
      deadLettered: new Counter({ name: 'weir_stage_dead_lettered_total', help: 'Messages sent to the dead-letter topic', labelNames: ['stage'], registers: [registry] }),
      failedBatches: new Counter({ name: 'weir_stage_failed_batches_total', help: 'Partition batches whose handling failed, left uncommitted and delivered again (a Kafka consumer restarts after repeated ones)', labelNames: ['stage'], registers: [registry] }),
      lag: new Gauge({ name: 'weir_consumer_lag_messages', help: 'Messages behind the partition end after a batch', labelNames: ['stage', 'partition'], registers: [registry] }),
    };
    metricsByRegistry.set(registry, m);
  }
  return m;
}

/**
 * The shape of every Kafka stage: decode (JSON or Avro), validate with zod, send failures to
 * `<topic>.dlq` with the reason in a header, hand the rest to `handle` (a record it keeps failing
 * on goes to the dead-letter topic too), commit.
 */
export async function startStage<T>(opts: StageOptions<T>): Promise<Stoppable> {
  const { bus, codec, log, metrics } = opts.platform;
  const m = stageMetrics(metrics);
  const stageLog = log.child({ stage: opts.name });
  /** Decodes and validates messages: the valid ones answered, the others dead-lettered with the reason. */
  const decode = async (messages: ConsumedMessage[]): Promise<Decoded<T>[]> => {
    const valid: Decoded<T>[] = [];
    const rejected: Rejected[] = [];
    const breathe = breather(16);
    for (const message of messages) {
      // Awaited only when it yields: an await on every record costs a promise and a microtask each.
      const pause = breathe();
      if (pause) await pause;
      let reason: string;
      try {
        const parsed = opts.schema.safeParse(await codec.decode(opts.topic, message.value));
        if (parsed.success) {
          valid.push({ value: parsed.data, message });
          continue;
        }
        reason = describeZodError(parsed.error);
      } catch (err) {
        // Bytes that are neither JSON nor Avro are the message's fault; anything else (a
        // registry outage) is ours, and the batch is retried rather than dead-lettered.
        if (!(err instanceof CodecError)) throw err;
        reason = err.message;
      }
      rejected.push({ message, reason });
    }
    if (rejected.length > 0) {
      await deadLetter(bus, opts.topic, rejected);
      m.deadLettered.inc({ stage: opts.name }, rejected.length);
      stageLog.warn({ count: rejected.length, first: rejected[0]!.reason }, 'messages dead-lettered');
    }
    return valid;
  };
  /** Hands valid records to `handle`; those it keeps failing on alone go to the dead-letter topic. */
  const handleValid = async (valid: Decoded<T>[], batch: Batch): Promise<void> => {
    if (valid.length === 0) return;
    const failed = await handleIsolating(valid, (records) => opts.handle(records, batch), opts.retry ?? DEFAULT_RETRY);
    if (failed.length > 0) {
      await deadLetter(bus, opts.topic, failed.map((f) => ({ message: f.record.message, reason: f.reason })));
      m.deadLettered.inc({ stage: opts.name }, failed.length);
      stageLog.error({ count: failed.length, first: failed[0]!.reason, offset: failed[0]!.record.message.offset, partition: batch.partition }, 'messages the handler kept failing on dead-lettered');
    }
  };
  /**
   * One partition batch, in parts of `partSize` messages (all of it when unset): a part is decoded
   * while the one before it is handled, and handled once that one is done, so parts reach `handle`
   * in order, one at a time. The batch commits after its last part.
   */
  const handleBatch = async (batch: Batch): Promise<void> => {
    const size = opts.partSize ?? batch.messages.length;
    const parts = oneInFlight();
    try {
      for (let from = 0; from < batch.messages.length; from += size) {
        const valid = await decode(batch.messages.slice(from, from + size));
        await parts.start(() => handleValid(valid, batch));
      }
    } finally {
      // A part still being handled when decoding fails is waited for: the batch is delivered again only once nothing of it runs.
      await parts.idle();
    }
    await parts.settle();
    m.processed.inc({ stage: opts.name }, batch.messages.length);
    const last = batch.messages.at(-1);
    if (last) m.lag.set({ stage: opts.name, partition: String(batch.partition) }, Math.max(0, Number(batch.highWatermark) - Number(last.offset) - 1));
  };
  const subscription = await bus.subscribe({
    groupId: `weir.${opts.name}`,
    topics: [opts.topic],
    fromBeginning: true,
    concurrency: opts.concurrency,
    lingerMs: opts.lingerMs,
    members: opts.members,
    eachBatch: async (batch) => {
      try {
        await handleBatch(batch);
      } catch (err) {
        m.failedBatches.inc({ stage: opts.name });
        throw err;
      }
    },
  });
  return subscription;
}
