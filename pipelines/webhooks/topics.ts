import { z } from 'zod';
import type { Platform } from '../../infra/platform.js';

/** Topics of the webhooks service (CONTRACTS.md 1b). */
export const WORKFLOW_EVENTS_TOPIC = 'workflow.events';
/** One message per delivery to one target; the delivery workers consume it. */
export const DELIVERIES_TOPIC = 'webhook.deliveries';

/** Target of a delivery: a registration id, or the organization's catch-all address. */
export const CATCH_ALL = '*';

/**
 * One delivery job. The envelope (`delivery_id`, `event`, `timestamp`, `payload`) is fixed when the
 * event fans out, so every attempt sends the same bytes; the target's URL and secret are read at
 * each attempt, so a changed registration applies to deliveries still pending.
 */
export const deliveryJobSchema = z.strictObject({
  delivery_id: z.string().min(1),
  org_id: z.string().min(1),
  target: z.string().min(1),
  event: z.string().min(1),
  timestamp: z.string(),
  payload: z.record(z.string(), z.unknown()),
  /** 1 for the first attempt; a deferral (open circuit) keeps the number. */
  attempt: z.number().int().min(1),
  /** Set by a redeliver request: the target is attempted even while disabled. */
  manual: z.boolean().optional(),
  /** Set by a redeliver request on its first attempt only: sent even while the circuit is open. */
  bypass_circuit: z.boolean().optional(),
  /**
   * The attempt number a redelivery started at: attempts keep counting up through the log, and the
   * redelivery's retries are counted from here (a fresh budget of retries).
   */
  retry_from: z.number().int().min(1).optional(),
});
export type DeliveryJob = z.infer<typeof deliveryJobSchema>;

export const jobKey = (job: Pick<DeliveryJob, 'org_id' | 'target'>): string => `${job.org_id}:${job.target}`;

/** Appends jobs to `webhook.deliveries`; resolves once the log holds them. */
export async function publishJobs(platform: Pick<Platform, 'bus' | 'codec'>, jobs: DeliveryJob[]): Promise<void> {
  if (jobs.length === 0) return;
  const messages = await Promise.all(jobs.map(async (job) => ({ key: jobKey(job), value: await platform.codec.encode(DELIVERIES_TOPIC, job) })));
  await platform.bus.send(DELIVERIES_TOPIC, messages);
}
