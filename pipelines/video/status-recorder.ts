import type { Platform } from '../../infra/platform.js';
import type { Stoppable } from '../../infra/lifecycle.js';
import type { JobStore } from './job-store.js';
import { recordStatusEvents, recorderGroupOf, statusEventSchema, statusTopicOf } from './topics.js';

/**
 * Records the render workers' status events in the job store, on the HTTP side (the store's owner).
 * Events of one job come in order; recording them twice changes nothing (job-store.ts).
 */
export function startStatusRecorder(platform: Platform, store: JobStore, renderTopic: string): Promise<Stoppable> {
  return recordStatusEvents({
    platform,
    groupId: recorderGroupOf(renderTopic),
    topic: statusTopicOf(renderTopic),
    schema: statusEventSchema,
    what: 'render',
    record: async (e) => {
      if (e.kind === 'job') await store.apply(e);
      else await store.workerSeen(e);
    },
  });
}
