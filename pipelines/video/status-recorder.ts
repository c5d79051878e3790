import type { Platform } from '../../infra/platform.js';
import type { Stoppable } from '../../infra/lifecycle.js';
import type { JobStore } from './job-store.js';
import { parseJson, recorderGroupOf, statusEventSchema, statusTopicOf } from './topics.js';

/**
 * Records the render workers' status events in the job store, on the HTTP side (the store's owner).
 * Events of one job come in order; recording them twice changes nothing (job-store.ts).
 */
export async function startStatusRecorder(platform: Platform, store: JobStore, renderTopic: string): Promise<Stoppable> {
  const log = platform.log.child({ consumer: 'render.status' });
  const sub = await platform.bus.subscribe({
    groupId: recorderGroupOf(renderTopic),
    topics: [statusTopicOf(renderTopic)],
    eachBatch: async (batch) => {
      for (const msg of batch.messages) {
        const e = statusEventSchema.safeParse(parseJson(msg.value));
        if (!e.success) {
          log.error({ partition: msg.partition, offset: msg.offset, reason: e.error.message }, 'render status event is malformed; skipped');
          continue;
        }
        if (e.data.kind === 'job') await store.apply(e.data);
        else await store.workerSeen(e.data);
      }
    },
  });
  return sub;
}
