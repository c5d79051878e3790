import { z } from 'zod';
import type { Platform } from '../../infra/platform.js';
import type { Stoppable } from '../../infra/lifecycle.js';
import { emittedEventSchema } from '../../domain/webhooks/catalogue.js';
import { overLimit } from '../../domain/webhooks/bounds.js';
import { startStage } from '../stage.js';
import { WORKFLOW_EVENTS_TOPIC } from './topics.js';
import type { FanOut } from './fan-out.js';

/**
 * A `workflow.events` message: `{org_id, event, payload}` whose event is in the catalogue, whose
 * payload has that event's shape and fits the payload limit; anything else goes to
 * `workflow.events.dlq` with the reason.
 */
export const topicEventSchema = (payloadLimit: number) =>
  z.strictObject({ org_id: z.string().min(1).max(256), event: z.string(), payload: z.unknown() }).transform((m, ctx) => {
    const parsed = emittedEventSchema.safeParse({ event: m.event, payload: m.payload });
    if (!parsed.success) {
      for (const issue of parsed.error.issues) ctx.addIssue(issue as never);
      return z.NEVER;
    }
    const tooLarge = overLimit(m.payload, 'payload', payloadLimit, 'WEBHOOK_EVENT_PAYLOAD_LIMIT_BYTES');
    if (tooLarge) {
      ctx.addIssue({ code: 'custom', path: ['payload'], message: tooLarge });
      return z.NEVER;
    }
    return { orgId: m.org_id, ...parsed.data };
  });

/** The intake consumer: each valid message fans out, seeded with its position so a redelivery repeats the same delivery ids. */
export function startIntakeStage(platform: Platform, fanOut: FanOut): Promise<Stoppable> {
  return startStage({
    platform,
    name: 'webhooks.intake',
    topic: WORKFLOW_EVENTS_TOPIC,
    schema: topicEventSchema(platform.config.WEBHOOK_EVENT_PAYLOAD_LIMIT_BYTES),
    handle: async (records, batch) => {
      await fanOut(records.map((r) => ({ ...r.value, seed: `${batch.topic}:${batch.partition}:${r.message.offset}` })));
    },
  });
}
