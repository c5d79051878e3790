import type { Platform } from '../../infra/platform.js';
import type { Stoppable } from '../../infra/lifecycle.js';
import { up } from '../../infra/health.js';
import { compiledTopicEventSchema } from '../../schemas/http/counters.js';
import { startStage } from '../stage.js';
import { APPLY_SLICE, createEventApplier, EVENTS_TOPIC } from './apply-events.js';
import type { ConfigStore } from './config-store.js';
import type { Flusher } from './flusher.js';

/**
 * The counter pipeline of the `counters` role: the consumer group `weir.counters` on `events`
 * (keyed `<org_id>:<entity_id>`, so one entity's events stay in one partition, in order) plus the
 * flusher that writes refreshed values to the counter table. On Kafka the process runs
 * KAFKA_COUNTER_MEMBERS members of the group, and a batch is handed to the applier a slice at a
 * time, the next slice decoded meanwhile: with one member and whole batches, Redis idled through
 * every fetch and then through the decoding of all six partitions' batches before their first
 * apply, about a sixth of a backlog's drain (issue 31, bench/results/peers/counters.findings.md).
 */
export async function startCounterPipeline(deps: { platform: Platform; configs: ConfigStore; flusher: Flusher }): Promise<Stoppable> {
  const handle = createEventApplier(deps);
  const stage = await startStage({ platform: deps.platform, name: 'counters', topic: EVENTS_TOPIC, schema: compiledTopicEventSchema, handle, members: deps.platform.config.KAFKA_COUNTER_MEMBERS, partSize: APPLY_SLICE });
  deps.flusher.start();
  return {
    async stop() {
      await stage.stop();
      await deps.flusher.stop();
    },
    health: () => stage.health?.() ?? up,
  };
}
