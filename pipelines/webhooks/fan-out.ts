import { createHash } from 'node:crypto';
import type { Platform } from '../../infra/platform.js';
import { CATALOGUE, type EmittedEvent } from '../../domain/webhooks/catalogue.js';
import { passesFilter, withAutoPayload } from '../../domain/webhooks/filter.js';
import { CATCH_ALL, publishJobs, type DeliveryJob } from './topics.js';
import type { Registry } from './registry.js';

/**
 * Fan-out of one emitted event into delivery jobs: one per enabled registration of the event whose
 * filter passes (registrable events only), with its auto_payload merged, and one for the
 * organization's catch-all address, which receives every event unchanged.
 *
 * Delivery ids derive from a seed and the target: the topic consumer seeds with the message's
 * position, so a redelivered message fans out to the same ids; HTTP seeds with the
 * Idempotency-Key when the caller sends one.
 */

export const deliveryId = (seed: string, target: string): string =>
  `whd_${createHash('sha256').update(seed).update('\n').update(target).digest('hex').slice(0, 32)}`;

export interface EmittedFor extends EmittedEvent {
  orgId: string;
  /** Seeds the delivery ids (see above). */
  seed: string;
}

/** Called with every accepted event before it fans out (approvals keep their state this way). */
export type EventObserver = (events: EmittedFor[]) => Promise<void>;

export function createFanOut(deps: { platform: Platform; registry: Registry; observers?: EventObserver[] }) {
  const { clock } = deps.platform;

  async function plan(e: EmittedFor): Promise<DeliveryJob[]> {
    const timestamp = new Date(clock.now()).toISOString();
    const job = (target: string, payload: Record<string, unknown>): DeliveryJob => ({
      delivery_id: deliveryId(e.seed, target),
      org_id: e.orgId,
      target,
      event: e.event,
      timestamp,
      payload,
      attempt: 1,
    });
    const registered = CATALOGUE[e.event].kind === 'R' ? await deps.registry.forEvent(e.orgId, e.event) : [];
    const jobs = registered.filter((r) => passesFilter(r.filter, e.event, e.payload)).map((r) => job(r.id, withAutoPayload(e.payload, r.auto_payload)));
    if (await deps.registry.catchAll(e.orgId)) jobs.push(job(CATCH_ALL, e.payload));
    return jobs;
  }

  /** Fans the events out; resolves once their jobs are durably in `webhook.deliveries`. Answers the delivery ids per event. */
  return async function fanOut(events: EmittedFor[]): Promise<string[][]> {
    for (const observe of deps.observers ?? []) await observe(events);
    const planned = await Promise.all(events.map(plan));
    await publishJobs(deps.platform, planned.flat());
    return planned.map((js) => js.map((j) => j.delivery_id));
  };
}

export type FanOut = ReturnType<typeof createFanOut>;
