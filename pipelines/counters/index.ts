import type { Platform } from '../../infra/platform.js';
import type { Stoppable } from '../../infra/lifecycle.js';
import { up } from '../../infra/health.js';
import { compiledTopicEventSchema } from '../../schemas/http/counters.js';
import { startStage } from '../stage.js';
import { createEventApplier, EVENTS_TOPIC } from './apply-events.js';
import type { ConfigStore } from './config-store.js';
import type { Flusher } from './flusher.js';

/**
 * The counter pipeline of the `counters` role: the consumer group `weir.counters` on `events`
 * (keyed `<org_id>:<entity_id>`, so one entity's events stay in one partition, in order) plus the
 * flusher that writes refreshed values to the counter table. On Kafka the process runs
 * KAFKA_COUNTER_MEMBERS members of the group: with one, Redis idled through every fetch (about a
 * tenth of a backlog's drain) and the decoding of its first records (issue 31,
 * bench/results/peers/counters.findings.md).
 */
export async function startCounterPipeline(deps: { platform: Platform; configs: ConfigStore; flusher: Flusher }): Promise<Stoppable> {
  const handle = createEventApplier(deps);
  const stage = await startStage({ platform: deps.platform, name: 'counters', topic: EVENTS_TOPIC, schema: compiledTopicEventSchema, handle, members: deps.platform.config.KAFKA_COUNTER_MEMBERS });
  deps.flusher.start();
  return {
    async stop() {
      await stage.stop();
      await deps.flusher.stop();
    },
    health: () => stage.health?.() ?? up,
  };
}
