import { z } from 'zod';
import type { TopicSpec } from '../../infra/bus/types.js';
import type { Platform } from '../../infra/platform.js';
import type { Loudness, Shot, Silence, SourceDiagnostic, Thumbnail, TranscriptChunk } from '../../domain/video/source.js';
import { encodeJson } from './topics.js';

/**
 * The preprocessing queue on the bus, shaped like the render queue: PREPROCESS_TOPIC
 * (`sources.preprocess`) carries one job per message, keyed by source; workers answer on
 * `<topic>.status` (keyed by source, so one source's events stay in order), which the HTTP side
 * records in the source's record. A finished job's outcome is a blob keyed by its job id, written
 * before the event that names it: the event stays small, and a redelivered job reports the stored
 * outcome instead of running again. Workers so need only the bus and the blob store.
 */

export const DEFAULT_PREPROCESS_TOPIC = 'sources.preprocess';
export const preprocessStatusTopicOf = (topic: string): string => `${topic}.status`;
export const preprocessTopics = (topic: string): TopicSpec[] => [
  { topic, partitions: 6 },
  { topic: preprocessStatusTopicOf(topic), partitions: 3 },
];
export const preprocessWorkerGroupOf = (topic: string): string => `${topic}.workers`;
export const preprocessRecorderGroupOf = (topic: string): string => `${topic}.status.recorder`;

export const preprocessMessageSchema = z.object({ jobId: z.string().min(1), orgId: z.string().min(1), sourceId: z.string().min(1) });
export type PreprocessMessage = z.infer<typeof preprocessMessageSchema>;

export const queuePreprocess = (platform: Platform, m: PreprocessMessage) =>
  platform.bus.send(platform.config.PREPROCESS_TOPIC, [{ key: m.sourceId, value: encodeJson(m) }]);

export const preprocessEventSchema = z.object({
  jobId: z.string(),
  orgId: z.string(),
  sourceId: z.string(),
  /** `complete` and `failed` name an outcome stored under sourceKeys.outcome(sourceId, jobId). */
  status: z.enum(['running', 'complete', 'failed']),
  progress: z.number().min(0).max(1),
  workerId: z.string(),
  at: z.number(),
});
export type PreprocessEvent = z.infer<typeof preprocessEventSchema>;

/** What a finished job found (complete) or why it could not (failed). */
export type PreprocessOutcome = { jobId: string; diagnostics: SourceDiagnostic[] } & (
  | { status: 'failed' }
  | {
      status: 'complete';
      durationSeconds: number | null;
      width: number | null;
      height: number | null;
      transcript: TranscriptChunk[];
      shots: Shot[];
      thumbnails: Thumbnail[];
      silences: Silence[];
      loudness?: Loudness;
    }
);
