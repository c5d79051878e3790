import { z } from 'zod';
import type { Subscription, TopicSpec } from '../../infra/bus/types.js';
import type { Platform } from '../../infra/platform.js';
import type { RenderGraph } from '../../domain/video/render-graph.js';
import { RENDER_STATUSES } from './ports.js';

/**
 * The render queue on the bus. `render.jobs` carries one compiled job per message (keyed by job
 * id); workers answer on `<topic>.status` with state changes, progress and their own heartbeats,
 * which the HTTP side records. Workers so need only the bus and the blob store.
 */

export const DEFAULT_RENDER_TOPIC = 'render.jobs';
export const statusTopicOf = (renderTopic: string): string => `${renderTopic}.status`;
export const renderTopics = (renderTopic: string): TopicSpec[] => [
  { topic: renderTopic, partitions: 6 },
  { topic: statusTopicOf(renderTopic), partitions: 3 },
];
export const workerGroupOf = (renderTopic: string): string => `${renderTopic}.workers`;
export const recorderGroupOf = (renderTopic: string): string => `${renderTopic}.status.recorder`;

export interface JobMessage {
  jobId: string;
  orgId: string;
  graph: RenderGraph;
}

export const jobMessageSchema = z.object({
  jobId: z.string().min(1),
  orgId: z.string().min(1),
  // Compiled by the service itself before it was queued.
  graph: z.custom<RenderGraph>((g) => typeof g === 'object' && g !== null && (g as { version?: unknown }).version === '1'),
});

const outputSchema = z.object({ url: z.string(), durationSeconds: z.number(), width: z.number(), height: z.number(), sizeBytes: z.number() });

export const statusEventSchema = z.discriminatedUnion('kind', [
  z.object({
    kind: z.literal('job'),
    jobId: z.string(),
    orgId: z.string(),
    status: z.enum(RENDER_STATUSES),
    progress: z.number().min(0).max(1),
    output: outputSchema.optional(),
    errors: z.array(z.object({ code: z.string(), message: z.string() })).optional(),
    workerId: z.string(),
    at: z.number(),
  }),
  z.object({
    kind: z.literal('worker'),
    workerId: z.string(),
    concurrency: z.number().int(),
    busy: z.number().int(),
    /** Jobs it renders now. */
    jobs: z.array(z.string()),
    at: z.number(),
    stopping: z.boolean().optional(),
  }),
]);
export type StatusEvent = z.infer<typeof statusEventSchema>;
export type JobEvent = Extract<StatusEvent, { kind: 'job' }>;
export type WorkerEvent = Extract<StatusEvent, { kind: 'worker' }>;

export const encodeJson = (v: unknown): Buffer => Buffer.from(JSON.stringify(v));

/** A message's JSON value; undefined when it is no JSON (then its schema check reports it). */
export function parseJson(value: Buffer): unknown {
  try {
    return JSON.parse(value.toString('utf8'));
  } catch {
    return undefined;
  }
}

/**
 * Subscribes to a workers' status topic and hands each well-formed event to `record`, in order; a
 * malformed event is logged and skipped, since no redelivery could make it readable. Both the
 * render and the preprocess recorders are such a subscription.
 */
export function recordStatusEvents<T>(opts: {
  platform: Platform;
  groupId: string;
  topic: string;
  schema: z.ZodType<T>;
  what: string;
  record: (event: T) => Promise<void>;
}): Promise<Subscription> {
  const log = opts.platform.log.child({ consumer: opts.topic });
  return opts.platform.bus.subscribe({
    groupId: opts.groupId,
    topics: [opts.topic],
    eachBatch: async (batch) => {
      for (const msg of batch.messages) {
        const e = opts.schema.safeParse(parseJson(msg.value));
        if (!e.success) {
          log.error({ partition: msg.partition, offset: msg.offset, reason: e.error.message }, `${opts.what} status event is malformed; skipped`);
          continue;
        }
        await opts.record(e.data);
      }
    },
  });
}
